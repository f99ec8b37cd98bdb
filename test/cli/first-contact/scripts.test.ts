/**
 * Issue 16, scripts, through the real binary: a value goes alone to stdout
 * (item 6); a lost claim token comes back by repeating the claim's request
 * id (item 7); one identity rule for every command (item 8); --json usage
 * errors are one JSON object, and a bad --state lists the allowed ones
 * (item 9); without a terminal decide needs the snapshot (item 10).
 */
import { spawnSync } from 'node:child_process';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, ensureBuilt, workboard } from '../../support/cli-run.js';
import { chainEvents, cleanupTmp, snapshotDir, tmpDir } from '../../support/tmp-board.js';

let root = '';
const wb = (args: string[], env: Record<string, string> = {}) => workboard(args, { cwd: root, env });
const HELLO =
  '---\nname: hello\ndescription: Draft and approve a greeting.\ninputs:\n  to: string\nsteps:\n  - id: draft\n    agent: Greet.\n    output: { greeting: string }\n  - id: approve\n    person: approver\n    approve: Friendly and spelled right.\n    next: sent\n  - id: sent\n    finish: sent\n---\n# Hello\n';

beforeAll(async () => {
  await ensureBuilt();
  root = path.join(await tmpDir(), 'team');
  await workboard(['init', root, '--name', 'team'], { cwd: path.dirname(root) });
  for (const a of [
    ['person', 'add', 'ana@example.com'],
    ['group', 'add', 'approvers', 'ana@example.com'],
    ['agent', 'add', 'helper'],
  ])
    expect((await wb(a)).code).toBe(0);
  await fs.mkdir(path.join(root, 'processes/hello'), { recursive: true });
  await fs.writeFile(path.join(root, 'processes/hello/PROCESS.md'), HELLO);
  expect((await wb(['publish', 'processes/hello', '--role', 'approver=approvers'])).code).toBe(0);
}, 180_000);
afterAll(cleanupTmp);

async function startRun(): Promise<string> {
  const r = await wb(['start', 'hello', '--input', 'to=Sam', '--as', 'helper']);
  expect(r.code, r.stderr).toBe(0);
  return r.stdout.trim();
}

describe('item 6: a value alone on stdout', () => {
  it('start prints the run id, claim the token, upload the id; each can be used as captured', async () => {
    const started = await wb(['start', 'hello', '--input', 'to=Sam', '--as', 'helper']);
    expect(started.stdout).toMatch(/^r-[0-9a-z]{26}\n$/);
    const runId = started.stdout.trim();
    const claim = await wb(['claim', runId, 'draft', '--as', 'helper']);
    expect(claim.code).toBe(0);
    expect(claim.stdout.split('\n')).toHaveLength(2);
    expect(claim.stderr).toContain('expires ');
    const submit = await wb(['submit', claim.stdout.trim(), '--output', 'greeting=Hi', '--summary', 'Wrote it.', '--as', 'helper']);
    expect(submit.code, submit.stderr).toBe(0);
    // In a shell, captured values work quoted and unquoted.
    const script =
      'RUN=$(node "$BIN" start hello --input to=Kim --as helper) && TOKEN=$(node "$BIN" claim $RUN draft --as helper) && node "$BIN" submit $TOKEN --output greeting=Hi --summary ok --as helper';
    const sh = spawnSync('sh', ['-c', script], { cwd: root, encoding: 'utf8', env: { ...process.env, BIN, NO_COLOR: '1' } });
    expect(sh.status, sh.stderr).toBe(0);
    expect(sh.stdout).toMatch(/\n {2}waiting {3}Friendly and spelled right/);
    const file = path.join(root, '..', 'note.txt');
    await fs.writeFile(file, 'a note');
    const up = await wb(['upload', file, '--as', 'helper']);
    expect(up.stdout).toMatch(/^f-[0-9a-f]{32}\n$/);
  });
});

describe('item 7: a lost token', () => {
  it('claim prints its request id; repeating it gives the same token; claiming anew says how to recover', async () => {
    const runId = await startRun();
    const first = await wb(['claim', runId, 'draft', '--as', 'helper']);
    const requestId = /request id (\S+)/.exec(first.stderr)?.[1];
    expect(requestId, first.stderr).toBeDefined();
    const again = await wb(['claim', runId, 'draft', '--as', 'helper']);
    expect(again.code).toBe(1);
    expect(again.stdout).toBe('');
    expect(again.stderr).toContain('claimed_by_you');
    expect(again.stderr).toContain('--request-id');
    expect(again.stderr).toContain('lease ends');
    const replay = await wb(['claim', runId, 'draft', '--request-id', requestId!, '--as', 'helper']);
    expect(replay.code, replay.stderr).toBe(0);
    expect(replay.stdout).toBe(first.stdout);
  });
});

describe('item 8: one identity rule', () => {
  it('read-only commands need no identity', async () => {
    const runId = await startRun();
    for (const args of [['show', runId], ['runs'], ['log', runId], ['processes'], ['describe'], ['map', 'hello']]) {
      const r = await wb(args);
      expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(0);
    }
  });

  it("the default identity is git's user.email when the board declares that person, else the login; WORKBOARD_AS wins", async () => {
    const home = await tmpDir();
    await fs.writeFile(path.join(home, '.gitconfig'), '[user]\n\temail = ana@example.com\n');
    const asAna = await wb(['person', 'add', 'bo@example.com'], { HOME: home, GIT_CONFIG_NOSYSTEM: '1' });
    expect(asAna.code, asAna.stderr).toBe(0);
    const inbox = await wb(['inbox'], { HOME: home, GIT_CONFIG_NOSYSTEM: '1' });
    expect(inbox.code, inbox.stderr).toBe(0);
    await fs.writeFile(path.join(home, '.gitconfig'), '[user]\n\temail = stranger@example.com\n');
    await wb(['person', 'add', 'cy@example.com'], { HOME: home, GIT_CONFIG_NOSYSTEM: '1' });
    await wb(['person', 'add', 'di@example.com'], { HOME: home, GIT_CONFIG_NOSYSTEM: '1', WORKBOARD_AS: 'helper' });
    const lines = (await chainEvents(path.join(root, 'audit/board.jsonl'))).filter((e) => e.action === 'person.added').slice(-3);
    expect(lines.map((e) => e.actor)).toEqual(['ana@example.com', expect.stringMatching(/^user:/), 'helper']);
  });
});

describe('item 9: --json usage errors', () => {
  it('print exactly one JSON object on stdout, exit 2', async () => {
    for (const args of [
      ['--json', 'runs', '--state', 'bogus'],
      ['--json', 'nosuch'],
      ['--json', 'start'],
      ['--json', 'start', 'hello', '--input', 'nokey', '--as', 'helper'],
    ]) {
      const r = await wb(args);
      expect(r.code, args.join(' ')).toBe(2);
      const v = JSON.parse(r.stdout) as { ok: boolean; error: { code: string; message: string } };
      expect(v).toMatchObject({ ok: false, error: { code: 'usage' } });
    }
  });

  it('runs --state names the allowed states', async () => {
    const r = await wb(['runs', '--state', 'bogus']);
    expect(r.code).toBe(2);
    for (const s of ['active', 'waiting', 'ended', 'cancelled']) expect(r.stderr).toContain(s);
  });
});

describe('item 10: decide without a terminal', () => {
  it('needs --snapshot (nothing changes without it); with it the decision is taken, and a stale one is refused', async () => {
    const runId = await startRun();
    const token = (await wb(['claim', runId, 'draft', '--as', 'helper'])).stdout.trim();
    await wb(['submit', token, '--output', 'greeting=Hi', '--summary', 'Wrote it.', '--as', 'helper']);
    const args = await wb(['inbox', '--decide-args', '--limit', '100', '--as', 'ana@example.com']);
    const line = args.stdout.split('\n').find((l) => l.startsWith(runId));
    expect(line, args.stdout + args.stderr).toBeDefined();
    const [run, item, flag, snapshot] = line!.split(' ');
    expect([run, flag]).toEqual([runId, '--snapshot']);
    const before = await snapshotDir(root);
    const bare = await wb(['decide', runId, item!, 'approved', '--as', 'ana@example.com']);
    expect(bare.code).toBe(2);
    expect(bare.stderr).toContain('--snapshot');
    expect(await snapshotDir(root)).toEqual(before);
    const stale = await wb(['decide', runId, item!, 'approved', '--snapshot', 'a'.repeat(64), '--as', 'ana@example.com']);
    expect(stale.code).toBe(1);
    expect(stale.stderr).toMatch(/^stale/);
    const ok = await wb(['decide', runId, item!, 'approved', '--snapshot', snapshot!, '--as', 'ana@example.com']);
    expect(ok.code, ok.stderr).toBe(0);
    expect(ok.stdout).toContain('ended (sent)');
  });
});
