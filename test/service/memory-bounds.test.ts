/**
 * What a long-lived `workboard serve` keeps in memory for runs stays within
 * its bounds however many runs it has seen (issue 25, item 13: a soak grew
 * serve's RSS for as long as it ran). Counts and byte sizes of what is held,
 * never times or RSS: the curve itself is the bench's soak section.
 */
import { cpSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Board } from '../../src/board/board.js';
import type { ChainState } from '../../src/board/chain-file.js';
import { SafeFiles } from '../../src/board/safe-files.js';
import { resolveActor } from '../../src/service/identity.js';
import { Service } from '../../src/service/service.js';

const EXAMPLE = fileURLToPath(new URL('../../examples/board', import.meta.url));
const made: string[] = [];
afterAll(() => {
  for (const d of made) rmSync(d, { recursive: true, force: true });
});

function tempDir(prefix: string): string {
  const d = mkdtempSync(path.join(tmpdir(), prefix));
  made.push(d);
  return d;
}

/** More runs than the ended runs whose last valid state is kept (64). */
const RUNS = 72;

describe('memory a long-lived service keeps per run', () => {
  let svc: Service;
  let board: Board;
  let open = 0;

  // RUNS runs, each read while open (get_work, get_run) and then ended by a write (decide).
  beforeAll(async () => {
    const dir = path.join(tempDir('wb-mem-'), 'b');
    cpSync(EXAMPLE, dir, { recursive: true });
    rmSync(path.join(dir, '.work'), { recursive: true, force: true });
    board = await Board.open(dir);
    svc = await Service.open(board);
    const agent = resolveActor(board.manifest, 'reviewer');
    const mira = resolveActor(board.manifest, 'mira@example.com');
    if (!agent.ok || !mira.ok) throw new Error('the example board lacks reviewer or mira');
    let n = 0;
    const call = async (tool: string, args: Record<string, unknown>, who: typeof agent.actor): Promise<any> => {
      const r = await svc.call(tool as never, { ...args, ...(['get_run', 'get_work', 'list_runs'].includes(tool) ? {} : { requestId: `mem-${++n}` }) } as never, who);
      if (!r.ok) throw new Error(`${tool}: ${JSON.stringify(r.error)}`);
      return r.data;
    };
    for (let i = 0; i < RUNS; i++) {
      const s = await call('start_run', { process: 'expense-approval', inputs: { claimant: 'mira@example.com', amount: i + 1, receiptUrl: 'https://example.com/r' } }, mira.actor);
      await call('get_work', { limit: 5 }, agent.actor);
      const c = await call('claim', { runId: s.run.id, stepId: 'review_claim' }, agent.actor);
      await call(
        'submit',
        { token: c.token, output: { withinPolicy: true, notes: 'ok' }, evidence: [{ kind: 'link', ref: 'https://example.com/r' }], summary: 'Checked.', next: 'approve', reason: 'in policy' },
        agent.actor,
      );
      const v = await call('get_run', { runId: s.run.id }, mira.actor);
      await call('decide', { runId: s.run.id, workItemId: v.workItems[0].id, snapshot: v.workItems[0].snapshot, decision: 'approved' }, mira.actor);
    }
    for (const state of ['active', 'waiting']) open += (await call('list_runs', { state, limit: 100 }, mira.actor)).items.length;
    // Then every ended run is read once, as an auditor's browsing does: more of them than the few kept.
    for (const r of (await call('list_runs', { state: 'ended', limit: 100 }, mira.actor)).items) await call('get_run', { runId: r.id }, mira.actor);
  }, 120_000);

  it('keeps the last valid state of a few ended runs, not of every run that ended', () => {
    const reader = (svc as unknown as { reader: { lastGood: Map<string, unknown>; lastGoodEnded?: Map<string, unknown> } }).reader;
    // None of the runs ended by a write stays among the open runs' states; of the ended runs read, a few are kept.
    expect(reader.lastGood.size).toBeLessThanOrEqual(open);
    expect(reader.lastGoodEnded?.size).toBeGreaterThan(0);
    expect(reader.lastGoodEnded?.size).toBeLessThanOrEqual(64);
  });

  it('keeps each cached chain’s last line in memory of its own, not a slice of the shared 8 KiB pool', () => {
    const chains = (board.store as unknown as { chains: { chains: Map<string, ChainState> } }).chains.chains;
    expect(chains.size).toBeGreaterThanOrEqual(RUNS);
    for (const c of chains.values()) if (c.tail.length > 0) expect(c.tail.buffer.byteLength).toBe(c.tail.length);
  });
});

describe('memory a long-lived store keeps per folder', () => {
  it('remembers a bounded number of folders as real (not links)', async () => {
    const root = tempDir('wb-dirs-');
    const files = new SafeFiles(root);
    const DIRS = 4200; // past the bound of 4096
    for (let i = 0; i < DIRS; i++) mkdirSync(path.join(root, `d${i}`));
    for (let i = 0; i < DIRS; i++) await files.assertNoLinks(`d${i}/f.md`);
    const realDirs = (files as unknown as { realDirs: Map<string, unknown> }).realDirs;
    expect(realDirs.size).toBeLessThanOrEqual(4096);
    expect(realDirs.size).toBeGreaterThan(0);
  });
});
