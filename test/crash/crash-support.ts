/**
 * Helpers for the crash-and-fault suite (not a test file). Everything here
 * drives real OS processes on real files: the built CLI (`bin/workboard.js`),
 * stdio MCP servers (`workboard mcp --as <agent>`) spoken to with raw
 * newline-delimited JSON-RPC (so a test can kill one at any instant), and the
 * worker in this folder. Boards are copies of `examples/board` (agent
 * `reviewer`, process `release-notes`: draft → tagged → editor_review → published).
 *
 * A run's `inputs.version` carries a tag chosen by the test (its requestId,
 * for starts), so the runs on disk can be counted per call: "exactly one run
 * per requestId" is read off the files, not off any answer.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, promises as fs, rmdirSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parse as parseYaml } from 'yaml';
import { BIN, ensureBuilt, ROOT } from '../support/cli-run.js';

export { BIN, ROOT };

/** Can this process mount a tmpfs? A test probes once, at load, so its skip shows the reason. */
export function tmpfsProbe(): { ok: true } | { ok: false; reason: string } {
  if (process.platform !== 'linux') return { ok: false, reason: `not Linux (${process.platform})` };
  if (process.getuid?.() !== 0) return { ok: false, reason: `not running as root (uid ${process.getuid?.()})` };
  const dir = mkdtempSync(path.join(os.tmpdir(), 'wb-crash-probe-'));
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=1m', 'tmpfs', dir], { stdio: 'pipe' });
    execFileSync('umount', [dir], { stdio: 'pipe' });
    return { ok: true };
  } catch (e) {
    return {
      ok: false,
      reason: `mounting a tmpfs failed: ${String((e as { stderr?: Buffer }).stderr ?? (e as Error).message)
        .trim()
        .slice(0, 120)}`,
    };
  } finally {
    try {
      rmdirSync(dir);
    } catch {
      // still mounted or already gone
    }
  }
}

/** Unmount a test's file system; lazily when something still holds it open. */
export function unmount(dir: string): void {
  try {
    execFileSync('umount', [dir]);
  } catch {
    execFileSync('umount', ['-l', dir]);
  }
}

export const AGENT = 'reviewer';
export const OPERATOR = 'mira@example.com';
export const PROCESS = 'release-notes';
export const RELEASE_DATE = '2026-12-01';
export const WORKER = path.join(ROOT, 'test', 'crash', 'crash-worker.mjs');

/** Documented CLI exit codes (docs/cli.md "Exit codes"). */
export const EXIT = { ok: 0, refused: 1, usage: 2, busy: 3, corrupt: 4, internal: 70 } as const;

/**
 * The CLI's exit code for a full disk, once the fix documents one (issue 13
 * item 4). Until then the full-disk test only demands a code that is not 0
 * (success), not 1 (refused or invalid: a full disk is neither) and not 70
 * (internal error).
 */
export const DISK_FULL_EXIT: number | null = 5;

/** Parsed JSON, read freely by the tests (eslint.config.mjs allows `any` in test/). */
export type Json = any;
export interface ToolResult {
  ok: boolean;
  data?: Json;
  error?: { code: string; message: string; issues?: string[] };
}

/** dist/ must be built before any process is started (`npm run build`, or `npm test`, which builds first). */
export async function built(): Promise<void> {
  try {
    await ensureBuilt();
  } catch (e) {
    // A source tree mid-edit may not compile; the tests run against whatever dist/ holds then.
    if (!(await exists(BIN)) || !(await exists(path.join(ROOT, 'dist', 'cli', 'main.js')))) throw e;
    process.stderr.write(`crash suite: the build failed, testing the dist/ there is: ${(e as Error).message.split('\n').slice(0, 3).join(' | ')}\n`);
  }
}

export async function exists(p: string): Promise<boolean> {
  try {
    await fs.lstat(p);
    return true;
  } catch {
    return false;
  }
}

const made: string[] = [];

/** A fresh temp folder (its real path), removed by `cleanup`. */
export async function tmp(prefix: string): Promise<string> {
  const d = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), prefix)));
  made.push(d);
  return d;
}

export async function cleanup(): Promise<void> {
  for (const d of made.splice(0)) await fs.rm(d, { recursive: true, force: true, maxRetries: 5, retryDelay: 100 });
}

/** A copy of examples/board (no `.work/`) at `<parent>/board`. */
export async function freshBoard(parent: string): Promise<string> {
  const root = path.join(parent, 'board');
  await fs.cp(path.join(ROOT, 'examples', 'board'), root, { recursive: true });
  await fs.rm(path.join(root, '.work'), { recursive: true, force: true });
  await fs.rm(path.join(root, 'runs'), { recursive: true, force: true });
  await fs.mkdir(path.join(root, 'runs'));
  await fs.writeFile(path.join(root, 'runs', '.gitkeep'), '');
  return root;
}

export function startArgs(tag: string, requestId = tag): Record<string, unknown> {
  return { process: PROCESS, inputs: { version: tag, releaseDate: RELEASE_DATE }, mode: 'live', requestId };
}

export const DRAFT_OUTPUT = { notes: 'Notes.', highlights: ['one'] };
export function submitArgs(token: string, requestId: string): Record<string, unknown> {
  return { token, output: DRAFT_OUTPUT, evidence: [{ kind: 'link', ref: 'https://example.com/pr/1' }], summary: 'Drafted the notes.', requestId };
}

// ---- processes -----------------------------------------------------------------

function childEnv(extra: Record<string, string> = {}): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined && !k.startsWith('WORKBOARD_')) env[k] = v;
  env.NO_COLOR = '1';
  return { ...env, ...extra };
}

export interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  ms: number;
}

export interface Proc {
  child: ChildProcess;
  started: number;
  /** Resolves when the process has exited. */
  done: Promise<Exit>;
  stdout(): string;
}

/** Spawn `node <args>` with piped output. */
export function spawnNode(args: string[], opts: { timeoutMs?: number } = {}): Proc {
  const started = Date.now();
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'], env: childEnv() });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => (stdout += d));
  child.stderr.on('data', (d) => (stderr += d));
  const timer = setTimeout(() => child.kill('SIGKILL'), opts.timeoutMs ?? 60_000);
  const done = new Promise<Exit>((resolve) => {
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr, ms: Date.now() - started });
    });
  });
  return { child, started, done, stdout: () => stdout };
}

export interface CliResult extends Exit {
  json: ToolResult | null;
}

/** Spawn `workboard --board <root> [--json] [--as who] ...args` without waiting. */
export function spawnCli(root: string, args: string[], opts: { as?: string; json?: boolean; timeoutMs?: number } = {}): Proc {
  const pre = ['--board', root];
  if (opts.json !== false) pre.push('--json');
  if (opts.as) pre.push('--as', opts.as);
  return spawnNode([BIN, ...pre, ...args], { timeoutMs: opts.timeoutMs ?? 60_000 });
}

function parseJson(s: string): ToolResult | null {
  try {
    return JSON.parse(s) as ToolResult;
  } catch {
    return null;
  }
}

/** Run the CLI to its end; with --json (the default) its one result object is parsed. */
export async function cli(root: string, args: string[], opts: { as?: string; json?: boolean; timeoutMs?: number } = {}): Promise<CliResult> {
  const r = await spawnCli(root, args, opts).done;
  return { ...r, json: opts.json === false ? null : parseJson(r.stdout) };
}

/** What a CLI call said, for failure messages. */
export function said(r: Exit): string {
  return `exit ${r.code}${r.signal ? ` (${r.signal})` : ''}\nstdout: ${r.stdout.slice(0, 1500)}\nstderr: ${r.stderr.slice(0, 1500)}`;
}

/** What `audit verify` said, less its `ok` lines: a chain that verified is not news. */
export function saidVerify(r: Exit): string {
  return said({
    ...r,
    stdout: r.stdout
      .split('\n')
      .filter((l) => !l.startsWith('ok '))
      .join('\n'),
  });
}

/**
 * A stdio MCP server (`workboard mcp --as <agent>`) spoken to with raw
 * newline-delimited JSON-RPC: calls can be pipelined, and the process killed
 * at any moment.
 */
export class Mcp {
  private buf = '';
  private nextId = 1;
  private readonly waiting = new Map<number, { resolve: (v: Json) => void; reject: (e: Error) => void; timer: NodeJS.Timeout }>();
  err = '';
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  private gone = false;

  private constructor(readonly child: ChildProcess) {
    child.stdout!.setEncoding('utf8');
    child.stdout!.on('data', (d: string) => {
      this.buf += d;
      for (let i = this.buf.indexOf('\n'); i >= 0; i = this.buf.indexOf('\n')) {
        const line = this.buf.slice(0, i);
        this.buf = this.buf.slice(i + 1);
        if (!line.trim()) continue;
        let msg: Json;
        try {
          msg = JSON.parse(line);
        } catch {
          continue;
        }
        const w = typeof msg.id === 'number' ? this.waiting.get(msg.id) : undefined;
        if (!w) continue;
        this.waiting.delete(msg.id);
        clearTimeout(w.timer);
        if (msg.error) w.reject(new Error(`JSON-RPC error ${JSON.stringify(msg.error)}`));
        else w.resolve(msg.result);
      }
    });
    child.stderr!.on('data', (d) => (this.err += String(d)));
    child.stdin!.on('error', () => undefined);
    this.exited = new Promise((resolve) =>
      child.on('close', (code, signal) => {
        this.gone = true;
        for (const [, w] of this.waiting) {
          clearTimeout(w.timer);
          w.reject(new Error(`the MCP server exited (${code ?? signal}) before answering; stderr: ${this.err.slice(0, 500)}`));
        }
        this.waiting.clear();
        resolve({ code, signal });
      }),
    );
  }

  static async start(root: string, as = AGENT): Promise<Mcp> {
    const child = spawn(process.execPath, [BIN, 'mcp', '--as', as, '--board', root], { stdio: ['pipe', 'pipe', 'pipe'], env: childEnv() });
    const m = new Mcp(child);
    await m.request('initialize', { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'crash-suite', version: '1' } }, 30_000);
    m.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    return m;
  }

  get pid(): number {
    return this.child.pid!;
  }

  private send(msg: unknown): void {
    if (!this.gone) this.child.stdin!.write(`${JSON.stringify(msg)}\n`);
  }

  request(method: string, params: unknown, timeoutMs = 30_000): Promise<Json> {
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      if (this.gone) return reject(new Error('the MCP server is gone'));
      const timer = setTimeout(() => {
        this.waiting.delete(id);
        reject(new Error(`no answer to ${method} within ${timeoutMs} ms (the server hung); stderr: ${this.err.slice(0, 500)}`));
      }, timeoutMs);
      this.waiting.set(id, { resolve, reject, timer });
      this.send({ jsonrpc: '2.0', id, method, params });
    });
  }

  /** One tool call; resolves with the tool's `{ok, data}` / `{ok: false, error}` object. */
  async call(tool: string, args: Record<string, unknown>, timeoutMs = 30_000): Promise<ToolResult> {
    const r = await this.request('tools/call', { name: tool, arguments: args }, timeoutMs);
    const structured = r.structuredContent as ToolResult | undefined;
    if (structured) return structured;
    return JSON.parse((r.content as { text: string }[])[0]!.text) as ToolResult;
  }

  kill(): void {
    if (!this.gone) this.child.kill('SIGKILL');
  }

  async close(): Promise<void> {
    if (this.gone) return;
    this.child.stdin!.end();
    const t = setTimeout(() => this.child.kill('SIGKILL'), 5_000);
    await this.exited;
    clearTimeout(t);
  }
}

export function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

/** What a CLI call said, on one line: exit code, and the --json error or the first lines of stderr. */
export function saidShort(r: Exit & { json?: ToolResult | null }): string {
  const j = r.json ?? parseJson(r.stdout);
  const what = j ? brief(j) : `stdout ${JSON.stringify(r.stdout.slice(0, 200))} stderr ${JSON.stringify(r.stderr.slice(0, 300))}`;
  return `exit ${r.code}${r.signal ? ` (${r.signal})` : ''}: ${what}`;
}

/** A short description of a tool result, for assertion messages. */
export function brief(r: ToolResult | null | undefined): string {
  if (!r) return 'no result';
  if (r.ok) return 'ok';
  return `${r.error?.code}: ${r.error?.message} ${(r.error?.issues ?? []).join(' | ')}`.slice(0, 600);
}

// ---- the board on disk ---------------------------------------------------------------

async function walk(dir: string, out: string[], root: string): Promise<void> {
  let entries;
  try {
    entries = await fs.readdir(dir, { withFileTypes: true });
  } catch {
    return;
  }
  for (const e of entries) {
    const abs = path.join(dir, e.name);
    out.push(path.relative(root, abs).split(path.sep).join('/') + (e.isDirectory() ? '/' : ''));
    if (e.isDirectory()) await walk(abs, out, root);
  }
}

/** Every path under the board (folders end with `/`), `.work/` included. */
export async function allPaths(root: string): Promise<string[]> {
  const out: string[] = [];
  await walk(root, out, root);
  return out.sort();
}

/** The frontmatter of a markdown board file, parsed, or null when it has none that parses. */
export function frontmatter(text: string): Json | null {
  const m = /^---\r?\n([\s\S]*?)\r?\n---(\r?\n|$)/.exec(text);
  if (!m) return null;
  try {
    return parseYaml(m[1]!);
  } catch {
    return null;
  }
}

export interface RunFolder {
  id: string;
  entries: string[];
  run: Json | null;
}

/** Every entry of runs/ (but .gitkeep), with what it holds and its RUN.md parsed. */
export async function runFolders(root: string): Promise<RunFolder[]> {
  const out: RunFolder[] = [];
  const runs = path.join(root, 'runs');
  for (const id of (await fs.readdir(runs)).sort()) {
    if (id === '.gitkeep') continue;
    const dir = path.join(runs, id);
    let entries: string[] = [];
    try {
      entries = (await fs.readdir(dir)).sort();
    } catch {
      entries = ['<not a folder>'];
    }
    let run: Json | null = null;
    try {
      run = frontmatter(await fs.readFile(path.join(dir, 'RUN.md'), 'utf8'));
    } catch {
      run = null;
    }
    out.push({ id, entries, run });
  }
  return out;
}

/** Run ids on disk per `inputs.version` tag. */
export async function runsByTag(root: string): Promise<Map<string, string[]>> {
  const map = new Map<string, string[]>();
  for (const f of await runFolders(root)) {
    const tag = f.run?.inputs?.version;
    if (typeof tag !== 'string') continue;
    map.set(tag, [...(map.get(tag) ?? []), f.id]);
  }
  return map;
}

/**
 * What a crash or a fault may not leave behind once recovery ran and every
 * writer is gone: run folders that are not whole (no RUN.md that parses, no
 * audit chain), temp files anywhere, lock files or break guards, pending journals.
 */
export async function leftovers(root: string): Promise<{ badRunFolders: string[]; temps: string[]; locks: string[]; journals: string[] }> {
  const badRunFolders: string[] = [];
  for (const f of await runFolders(root)) {
    if (!f.run || !f.entries.includes('RUN.md') || !f.entries.includes('audit.jsonl')) badRunFolders.push(`runs/${f.id}/ holds [${f.entries.join(', ')}]`);
  }
  const every = await allPaths(root);
  return {
    badRunFolders,
    temps: every.filter((p) => p.includes('.tmp-')),
    locks: every.filter((p) => p.startsWith('.work/locks/') && p !== '.work/locks/'),
    journals: every.filter((p) => p.startsWith('.work/journal/') && p !== '.work/journal/'),
  };
}

export interface Health {
  verify: CliResult;
  doctor: CliResult;
  left: Awaited<ReturnType<typeof leftovers>>;
}

/**
 * The end of every scenario: a first `doctor` (a coordinator touching the
 * board performs recovery), then `audit verify` and `doctor` again, and the
 * files left behind.
 */
export async function recoverAndCheck(root: string): Promise<{ first: CliResult } & Health> {
  const first = await cli(root, ['doctor'], { json: false });
  const verify = await cli(root, ['audit', 'verify'], { json: false });
  const doctor = await cli(root, ['doctor'], { json: false });
  return { first, verify, doctor, left: await leftovers(root) };
}

/** Findings worth printing from a Health, empty when clean. */
export function healthProblems(h: Health): string[] {
  const p: string[] = [];
  // Only the lines that report something: a chain that verified is not news.
  if (h.verify.code !== 0) p.push(`audit verify: ${saidVerify(h.verify)}`);
  if (h.doctor.code !== 0) p.push(`doctor: ${said(h.doctor)}`);
  for (const [k, v] of Object.entries(h.left)) if (v.length) p.push(`${k}: ${v.slice(0, 20).join(', ')}${v.length > 20 ? ` … (${v.length})` : ''}`);
  return p;
}
