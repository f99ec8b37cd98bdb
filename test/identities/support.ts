/**
 * For the identity tests: a board made by the real CLI, a real `workboard
 * serve --http` process on a free loopback port, and raw MCP requests to it.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { BIN, ensureBuilt, workboard, workboardBatch, type CliResult } from '../support/cli-run.js';
import { tmpDir } from '../support/tmp-board.js';

/** One approval by the `approver` role, then paid: the smallest process a person decides. */
export const PAYOUT = `---
name: payout
description: Pay once finance approves.
inputs:
  amount: number
steps:
  - id: approve
    person: approver
    approve: Approve the payout.
    next: paid
  - id: paid
    finish: paid
---
Body.
`;

/** A new board with the given people and agents, made through the CLI. */
export async function boardWith(opts: { people?: string[]; agents?: string[] } = {}): Promise<{ dir: string; wb: (...args: string[]) => Promise<CliResult> }> {
  await ensureBuilt();
  const dir = path.join(await tmpDir('wb-ident-'), 'board');
  const wb = (...args: string[]) => workboard(['--board', dir, ...args], { cwd: path.dirname(dir) });
  // The fixture's commands run in one process; what a test calls through `wb` runs as a process of its own.
  const setUp = [['init', dir, '--name', 'team'], ...(opts.people ?? []).map((p) => ['person', 'add', p]), ...(opts.agents ?? []).map((a) => ['agent', 'add', a])];
  await workboardBatch(setUp.map((args) => ({ cwd: path.dirname(dir), args: ['--board', dir, ...args] })));
  return { dir, wb };
}

export interface Serving {
  url: URL;
  stop: () => Promise<void>;
}

/** The MCP URL a starting `workboard serve --http` prints, once it has (rejects if it exits first). */
export function listeningAt(child: ChildProcess): Promise<string> {
  let out = '';
  return new Promise<string>((resolve, reject) => {
    child.stdout!.on('data', (d) => {
      out += String(d);
      const m = /MCP over HTTP at (http:\S+)/.exec(out);
      if (m) resolve(m[1]!);
    });
    child.stderr!.on('data', (d) => (out += String(d)));
    child.once('close', () => reject(new Error(`serve exited: ${out}`)));
  });
}

/** `workboard serve --http 127.0.0.1:0` on the board, once it says where it listens. */
export async function serveHttp(dir: string): Promise<Serving> {
  const child: ChildProcess = spawn(process.execPath, [BIN, 'serve', '--http', '127.0.0.1:0', '--board', dir], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, NO_COLOR: '1' } });
  const found = await listeningAt(child);
  return {
    url: new URL(found),
    stop: async () => {
      const gone = new Promise((r) => child.once('close', r));
      child.kill('SIGTERM');
      await gone;
    },
  };
}

/** One JSON-RPC call to /mcp with a bearer token (or none). */
export async function rpc(url: URL, token: string | null, method = 'tools/list', params: Record<string, unknown> = {}): Promise<Response> {
  return fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
}
