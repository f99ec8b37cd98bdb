/**
 * `.work/` never comes from git by a plain `git pull` or `git clone` either
 * (issue 39, item 2): a collaborator commits `.work/tokens.json` (a token for
 * an operator) and `.work/web/sessions.json` with `git add -f` and pushes.
 * - In a clone set up by init --git or git-setup, a `git pull` made while
 *   `serve --http` runs leaves this clone's records as they were (git never
 *   writes under .work/ there): the planted token is refused, the clone's
 *   own token works.
 * - In a fresh clone of that history, git did write them: whatever git
 *   tracks under .work/ is read as absent, so the planted token is refused
 *   and lists nowhere.
 * Real git, a bare remote, a real serve and real HTTP.
 */
import { spawn } from 'node:child_process';
import http from 'node:http';
import { freePort } from '../support/free-port.js';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { BIN, ensureBuilt } from '../support/cli-run.js';
import { git, twoClones, wb } from '../support/git-clones.js';
import { until } from '../support/until.js';

/** The HTTP status /mcp answers an initialize with this bearer token. */
function statusFor(port: number, token: string): Promise<number> {
  const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-03-26', capabilities: {}, clientInfo: { name: 't', version: '1' } } });
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: '127.0.0.1',
        port,
        method: 'POST',
        path: '/mcp',
        agent: false,
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${token}` },
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode!));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/** `serve --http` on a clone, stopped after `fn`. */
async function serving(dir: string, fn: (port: number) => Promise<void>): Promise<void> {
  const port = await freePort();
  const serve = spawn(process.execPath, [BIN, 'serve', '--http', `127.0.0.1:${port}`], { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  serve.stdout.on('data', (d: Buffer) => (out += d.toString()));
  serve.stderr.on('data', (d: Buffer) => (out += d.toString()));
  try {
    await until(() => (out.includes('MCP over HTTP at') ? true : undefined), 60_000);
    await fn(port);
  } finally {
    serve.kill('SIGTERM');
    await new Promise((r) => serve.once('close', r));
  }
}

/** Clone B plants a token for the operator and a session file in git, and pushes; the planted token's secret. */
async function plant(b: string): Promise<string> {
  const made = await wb(b, 'token', 'create', 'ana@example.com', '--name', 'planted');
  expect(made.code, made.stderr).toBe(0);
  await fs.mkdir(path.join(b, '.work/web'), { recursive: true });
  await fs.writeFile(path.join(b, '.work/web/sessions.json'), '{"sessions":[]}\n');
  // --sparse: git-setup keeps .work/ out of this clone's checkouts, so a plain add -f is refused here; a collaborator can still do it.
  git(b, 'add', '-f', '--sparse', '.work/tokens.json', '.work/web/sessions.json');
  git(b, 'commit', '-qm', 'Plant state');
  git(b, 'push', '-q', 'origin', 'main');
  return made.stdout.trim();
}

describe('a plain git pull or clone never brings .work/ into use', () => {
  beforeAll(async () => {
    await ensureBuilt();
  }, 600_000);

  it("git pull in a set-up clone while serve runs: this clone's tokens stay, the planted one is refused", async () => {
    const { a, b } = await twoClones();
    const mine = await wb(a, 'token', 'create', 'writer-a', '--name', 'mine');
    expect(mine.code, mine.stderr).toBe(0);
    // Token records by id and hash (serving marks a token's last use in the file).
    const records = async () =>
      (JSON.parse(await fs.readFile(path.join(a, '.work/tokens.json'), 'utf8')) as { tokens: { id: string; name: string | null; hash: string }[] }).tokens.map((t) => `${t.id} ${t.name} ${t.hash}`);
    const before = await records();
    const planted = await plant(b);
    await serving(a, async (port) => {
      expect(await statusFor(port, mine.stdout.trim())).toBe(200);
      git(a, 'pull', '-q', '--no-rebase', 'origin', 'main');
      expect(await records()).toEqual(before);
      expect(await statusFor(port, planted)).toBe(401);
      expect(await statusFor(port, mine.stdout.trim())).toBe(200);
    });
    const listed = await wb(a, 'token', 'list');
    expect(listed.stdout).not.toContain('planted');
  }, 600_000);

  it('a fresh git clone of a history holding .work/: what git tracks there is never read', async () => {
    const { root, remote, b } = await twoClones();
    const planted = await plant(b);
    const c = path.join(root, 'c');
    git(root, 'clone', '-q', remote, 'c');
    // git wrote them: this clone never ran git-setup.
    expect(await fs.readFile(path.join(c, '.work/tokens.json'), 'utf8')).toContain('planted');
    expect((await wb(c, 'token', 'list')).stdout).not.toContain('planted');
    await serving(c, async (port) => {
      expect(await statusFor(port, planted)).toBe(401);
    });
    // On the collaborator's clone, which made the token itself, it works: the refusal is about where the file came from.
    git(b, 'rm', '-q', '--cached', '--sparse', '.work/tokens.json', '.work/web/sessions.json');
    await serving(b, async (port) => {
      expect(await statusFor(port, planted)).toBe(200);
    });
  }, 600_000);
});
