/**
 * For the operations tests: a real `workboard serve --http 127.0.0.1:0`
 * process with every line it writes kept (the secret grep reads them all),
 * raw tool calls over /mcp, and a claim-review board on the real clock.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createToken } from '../../src/service/credentials.js';
import { BIN } from '../support/cli-run.js';
import { Harness, type Data } from '../support/svc-harness.js';

/** Every line every serve of this test file wrote, stdout and stderr. */
export const allLines: string[] = [];

export interface Served {
  child: ChildProcess;
  base: URL;
  mcp: URL;
  /** This serve's lines so far. */
  lines(): string[];
  /** Resolves with how it exited. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** SIGTERM, then its exit. */
  stop(): Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** `workboard serve --http 127.0.0.1:0 <extra>` on `root`, without the caller's WORKBOARD_ settings unless given in `env`. */
export async function serveOps(root: string, extra: string[] = [], env: Record<string, string> = {}): Promise<Served> {
  const clean: Record<string, string> = { NO_COLOR: '1' };
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined && !k.startsWith('WORKBOARD_')) clean[k] = v;
  const child = spawn(process.execPath, [BIN, 'serve', '--board', root, '--http', '127.0.0.1:0', ...extra], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...clean, ...env } });
  const mine: string[] = [];
  const keep = (stream: NodeJS.ReadableStream) => {
    let rest = '';
    stream.on('data', (d) => {
      const parts = (rest + String(d)).split('\n');
      rest = parts.pop()!;
      mine.push(...parts);
      allLines.push(...parts);
    });
    stream.on('end', () => {
      if (rest) {
        mine.push(rest);
        allLines.push(rest);
      }
    });
  };
  keep(child.stdout);
  keep(child.stderr);
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((r) => child.once('exit', (code, signal) => r({ code, signal })));
  const mcp = await new Promise<URL>((resolve, reject) => {
    const look = setInterval(() => {
      const m = mine.map((l) => /MCP over HTTP at (http:\S+)/.exec(l)).find(Boolean);
      if (m) {
        clearInterval(look);
        resolve(new URL(m[1]!));
      }
    }, 20);
    void exited.then(({ code }) => {
      clearInterval(look);
      reject(new Error(`serve exited ${code} before it listened:\n${mine.join('\n')}`));
    });
  });
  return {
    child,
    base: new URL('/', mcp),
    mcp,
    lines: () => mine,
    exited,
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      return exited;
    },
  };
}

/** A board with claim-review published (finance-approver: fin), on the real clock. */
export function claimBoard(extra: Parameters<typeof Harness.open>[0] = {}): Promise<Harness> {
  return Harness.open({ groups: { finance: ['fin@example.com'] }, processes: [{ folder: 'claim-review', roles: { 'finance-approver': 'finance' } }], start: new Date().toISOString(), ...extra });
}

export async function tokenFor(h: Harness, identity: string): Promise<string> {
  return (await createToken(h.board.store, identity, new Date())).token;
}

/** One tools/call over /mcp: the tool's result (ok, data or error). */
export async function call(mcp: URL, token: string, name: string, args: Record<string, unknown>): Promise<Data> {
  const res = await fetch(mcp, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: args } }),
  });
  if (res.status !== 200) throw new Error(`${name}: HTTP ${res.status} ${await res.text()}`);
  return (await res.json()).result.structuredContent;
}
