/**
 * Issue 16, getting it running, through the real binary: mcp-config prints
 * configuration whose stdio command really serves MCP (item 1); the demo
 * serves a copy of the example board with a token that works, a run waiting
 * at finance's approval, and the example board untouched (item 2); init --git
 * outside git, --board for init (items 3, 4); `new` writes a process that
 * validates and publishes as written, and validate takes a published name (item 5).
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, promises as fs } from 'node:fs';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, ensureBuilt, ROOT, workboard } from '../../support/cli-run.js';
import { cleanupTmp, snapshotDir, tmpDir } from '../../support/tmp-board.js';

beforeAll(ensureBuilt, 180_000);
afterAll(cleanupTmp);

async function boardWithAgent(): Promise<string> {
  const root = path.join(await tmpDir(), 'b');
  expect((await workboard(['init', root, '--name', 'b'], { cwd: path.dirname(root) })).code).toBe(0);
  expect((await workboard(['agent', 'add', 'helper'], { cwd: root })).code).toBe(0);
  return root;
}

describe('item 1: mcp-config', () => {
  it('prints stdio configuration by absolute paths that start a working MCP server', async () => {
    const root = await boardWithAgent();
    const r = await workboard(['mcp-config', 'helper'], { cwd: root });
    expect(r.code, r.stderr).toBe(0);
    const cfg = JSON.parse(r.stdout).mcpServers.workboard as { command: string; args: string[] };
    expect(path.isAbsolute(cfg.command)).toBe(true);
    expect(existsSync(cfg.command)).toBe(true);
    expect(cfg.args.slice(1)).toEqual(['mcp', '--as', 'helper', '--board', root]);
    expect(await fs.realpath(cfg.args[0]!)).toBe(await fs.realpath(BIN));
    // The configuration is launched as a client would: from another folder, with no PATH.
    const client = new Client({ name: 'cfg-test', version: '1' });
    await client.connect(new StdioClientTransport({ command: cfg.command, args: cfg.args, cwd: await tmpDir(), env: {}, stderr: 'pipe' }));
    const tools = await client.listTools();
    expect(tools.tools.map((t) => t.name)).toContain('claim');
    await client.close();
  }, 60_000);

  it('has a form for each client, for stdio and for HTTP with a token the board holds for that agent', async () => {
    const root = await boardWithAgent();
    const claude = await workboard(['mcp-config', 'helper', '--client', 'claude'], { cwd: root });
    expect(claude.stdout).toBe(`claude mcp add workboard -- ${process.execPath} ${BIN} mcp --as helper --board ${root}\n`);
    const vscode = JSON.parse((await workboard(['mcp-config', 'helper', '--client', 'vscode'], { cwd: root })).stdout);
    expect(vscode.servers.workboard).toMatchObject({ type: 'stdio', command: process.execPath });
    const codex = (await workboard(['mcp-config', 'helper', '--client', 'codex'], { cwd: root })).stdout;
    expect(codex).toContain('[mcp_servers.workboard]\n');
    expect(codex).toContain(`command = ${JSON.stringify(process.execPath)}\n`);
    const http = await workboard(['mcp-config', 'helper', '--client', 'cursor', '--http', 'http://127.0.0.1:7999/mcp'], { cwd: root });
    expect(http.code, http.stderr).toBe(0);
    const entry = JSON.parse(http.stdout).mcpServers.workboard as { url: string; headers: { Authorization: string } };
    expect(entry.url).toBe('http://127.0.0.1:7999/mcp');
    const token = entry.headers.Authorization.replace(/^Bearer /, '');
    // The token made for the configuration is one the board knows, for that agent.
    const list = await workboard(['--json', 'token', 'list'], { cwd: root });
    expect(JSON.stringify(JSON.parse(list.stdout))).toContain('"identity":"helper"');
    expect(token).toMatch(/^wb_/);
    expect((await workboard(['mcp-config', 'nobody'], { cwd: root })).code).toBe(1);
    expect((await workboard(['mcp-config', 'helper', '--client', 'emacs'], { cwd: root })).code).toBe(2);
  }, 60_000);
});

describe('item 2: the demo (npm start)', () => {
  it('serves a copy of the example board: the printed token works, a run waits for Mira, examples/board is untouched', async () => {
    const before = await snapshotDir(path.join(ROOT, 'examples/board'), { includeState: true });
    const dir = path.join(await tmpDir(), 'demo');
    const child = spawn(process.execPath, [BIN, 'demo', '--dir', dir, '--http', '127.0.0.1:0'], { env: { ...process.env, NO_COLOR: '1' }, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (out += d));
    const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
    await new Promise<void>((resolve, reject) => {
      const t = setInterval(() => {
        if (out.includes('Ctrl-C stops')) resolve();
        if (child.exitCode !== null) reject(new Error(out));
      }, 50);
      void exited.then(() => clearInterval(t));
    });
    try {
      const url = /"url": "(http:\/\/127\.0\.0\.1:\d+\/mcp)"/.exec(out)?.[1];
      const token = /"Authorization": "Bearer (wb_[^"]+)"/.exec(out)?.[1];
      const runId = / decide (r-[0-9a-z]+) /.exec(out)?.[1];
      // The summary names people as WORK.md does, not by their addresses.
      expect(out).toContain('Jon Berg filed an expense claim of 184.50 EUR');
      expect(out).toContain('it now waits for Mira Okafor (finance)');
      expect(url && token && runId, out).toBeTruthy();
      // People's links follow the address the demo listens on: no other address printed, and login-link agrees (issue 42, slip 8).
      expect(out).not.toContain("people's links point to");
      const signin = await workboard(['--board', dir, 'login-link', 'mira@example.com'], { cwd: dir });
      expect(signin.stdout.trim()).toMatch(new RegExp(`^http://127\\.0\\.0\\.1:${new URL(url!).port}/signin\\?code=`));
      // A real MCP client over HTTP with the printed token, as the agent.
      const { StreamableHTTPClientTransport } = await import('@modelcontextprotocol/sdk/client/streamableHttp.js');
      const client = new Client({ name: 'demo-test', version: '1' });
      await client.connect(new StreamableHTTPClientTransport(new URL(url!), { requestInit: { headers: { Authorization: `Bearer ${token}` } } }));
      const run = (await client.callTool({ name: 'get_run', arguments: { runId } })).structuredContent as { ok: boolean; data: any };
      await client.close();
      expect(run.ok).toBe(true);
      expect(run.data.steps.find((s: { id: string }) => s.id === 'review_claim').state).toBe('done');
      expect(run.data.workItems).toHaveLength(1);
      expect(run.data.workItems[0]).toMatchObject({ stepId: 'approve', assignedTo: { group: 'finance' } });
      // The person's way in is printed: the decide command for that work item.
      expect(out).toContain(`decide ${runId} ${run.data.workItems[0].id} --as mira@example.com`);
      expect(out).toContain(dir);
      // What the newcomer's inbox shows.
      const inbox = await workboard(['--board', dir, 'inbox', '--as', 'mira@example.com'], { cwd: dir });
      expect(inbox.stdout).toContain('Amount claimed in EUR: 184.50 EUR');
      // The second chain (flow-1): an onboarding started its contract approval as a run of its own; a payment
      // blocked by that contract woke when legal approved it, and the onboarding moved on; a saved view shows it.
      expect(out).toContain('Ana Ruiz (legal) approved it: the onboarding moved on to finance, and the payment woke: it now waits');
      const onboarding = / show (r-[0-9a-z]+) {3}\(the onboarding and the run it started\)/.exec(out)?.[1];
      expect(onboarding, out).toBeTruthy();
      const parent = await workboard(['--board', dir, 'show', onboarding!], { cwd: dir });
      expect(parent.stdout).toContain('Supplier onboarding · 48,000.00 EUR · Nordlicht Logistics  waiting');
      expect(parent.stdout).toContain('rollup:  done (1 of 1 ended)');
      expect(parent.stdout).toMatch(/children:\n +Contract approval · 48,000\.00 EUR · Nordlicht Logistics {2}ended approved {2}from Approve contract\n/);
      expect(parent.stdout).toContain('waiting for the Finance group: Register the supplier and its bank details in the payment system');
      // The finished subprocess step's output names its child by title, not by id.
      expect(parent.stdout).toMatch(/Run: Contract approval · 48,000\.00 EUR · Nordlicht Logistics {2}· {2}Outcome: approved/);
      expect(parent.stdout).not.toMatch(/Run: r-/);
      const child = /children:\n.*\n +(r-[0-9a-z]+)\n/.exec(parent.stdout)?.[1];
      const contract = await workboard(['--board', dir, 'show', child!], { cwd: dir });
      expect(contract.stdout).toMatch(/parent: +Supplier onboarding · 48,000\.00 EUR · Nordlicht Logistics {2}waiting\n/);
      const view = await workboard(['--board', dir, 'runs', '--view', 'open-by-priority', '--as', 'mira@example.com'], { cwd: dir });
      expect(view.stdout).toContain('Supplier payment · 12,000.00 EUR · Nordlicht Logistics · High  Waiting · high · waiting for the finance group');
    } finally {
      child.kill('SIGTERM');
      expect(await exited).toBe(0);
    }
    expect(await snapshotDir(path.join(ROOT, 'examples/board'), { includeState: true })).toEqual(before);
    const git = spawnSync('git', ['-C', ROOT, 'status', '--porcelain', '--', 'examples/board'], { encoding: 'utf8' });
    if (git.status === 0) expect(git.stdout).toBe('');
  }, 90_000);
});

describe('items 3 and 4: init', () => {
  it('init --git outside a git repository runs git init, says so, and sets up the merge driver', async () => {
    const base = await tmpDir();
    const r = await workboard(['init', 'team', '--git'], { cwd: base });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain('ran git init');
    const driver = spawnSync('git', ['-C', path.join(base, 'team'), 'config', 'merge.workboard.driver'], { encoding: 'utf8' });
    expect(driver.stdout).toContain('merge-driver');
  });

  it('init --git without git refuses before creating anything (exit 1)', async () => {
    const base = await tmpDir();
    // PATH holds only node: no git anywhere.
    const bin = await tmpDir();
    await fs.symlink(process.execPath, path.join(bin, 'node'));
    const r = await workboard(['init', 'team', '--git'], { cwd: base, env: { PATH: bin } });
    expect(r.code, r.stderr).toBe(1);
    expect(r.stderr).toContain('needs git');
    expect(await fs.readdir(base)).toEqual([]);
  });

  it('--board names where init creates the board', async () => {
    const base = await tmpDir();
    const here = path.join(base, 'here');
    await fs.mkdir(here);
    await workboard(['init', '--name', 'here'], { cwd: here });
    const r = await workboard(['--board', path.join(base, 'elsewhere'), 'init'], { cwd: here });
    expect(r.code, r.stderr).toBe(0);
    expect(existsSync(path.join(base, 'elsewhere', 'WORK.md'))).toBe(true);
    expect((await workboard(['--board', path.join(base, 'x'), 'init', path.join(base, 'y')], { cwd: here })).code).toBe(2);
  });
});

describe('item 5: new', () => {
  it('writes a commented PROCESS.md that validates and publishes as written; validate takes a published name', async () => {
    const root = await boardWithAgent();
    await workboard(['person', 'add', 'ana@example.com'], { cwd: root });
    await workboard(['group', 'add', 'approvers', 'ana@example.com'], { cwd: root });
    const made = await workboard(['new', 'hello'], { cwd: root });
    expect(made.code, made.stderr).toBe(0);
    expect(made.stdout).toBe(`${path.join('processes', 'hello', 'PROCESS.md')}\n`);
    const text = await fs.readFile(path.join(root, 'processes/hello/PROCESS.md'), 'utf8');
    for (const part of ['agent:', 'output:', 'evidence: [link]', '- { to:', 'approve:', 'on_reject:', 'finish:', '# ']) expect(text).toContain(part);
    expect((await workboard(['validate', 'processes/hello'], { cwd: root })).code).toBe(0);
    const pub = await workboard(['publish', 'processes/hello', '--role', 'approver=approvers'], { cwd: root });
    expect(pub.code, pub.stderr).toBe(0);
    const byName = await workboard(['validate', 'hello'], { cwd: root });
    expect(byName.code, byName.stdout + byName.stderr).toBe(0);
    expect(byName.stdout).toContain(path.join('processes', 'hello', 'v1', 'PROCESS.md'));
    // A second `new` of the same name changes nothing.
    const again = await workboard(['new', 'hello'], { cwd: root });
    expect(again.code).toBe(1);
    expect(await fs.readFile(path.join(root, 'processes/hello/PROCESS.md'), 'utf8')).toBe(text);
  }, 60_000);
});
