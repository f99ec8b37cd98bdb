/**
 * flow-1's new commit points under SIGKILL (docs/profile-flow-1.md "8. All or nothing"): a real
 * process starts a run whose first step is a subprocess step and is killed
 * right after the parent's commit (its child recorded, not started), or right
 * after the child's commit (its start record not yet removed). The parent
 * then waits for a child that the next settle starts under the recorded id,
 * exactly once, however often settle runs; the child names its parent.
 */
import { spawn } from 'node:child_process';
import { existsSync, promises as fs } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Board } from '../../src/board/board.js';
import { Service } from '../../src/service/service.js';
import { ensureBuilt, ROOT } from '../support/cli-run.js';
import { CAST, cleanupHarnesses, Harness } from '../support/svc-harness.js';

const STARTER = path.join(ROOT, 'test', 'crash', 'flow-starter.mjs');

beforeAll(ensureBuilt, 300_000);
afterAll(cleanupHarnesses);

function starter(root: string, point: string): Promise<{ signal: string | null; out: string }> {
  const child = spawn(process.execPath, [STARTER, root, 'purchase', JSON.stringify({ supplier: 'Acme', amount: 10 }), point], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.on('data', (d) => (out += String(d)));
  child.stderr.on('data', (d) => (out += String(d)));
  return new Promise((resolve) => child.on('exit', (_code, signal) => resolve({ signal, out })));
}

const runDirs = async (root: string) => (await fs.readdir(path.join(root, 'runs'))).filter((d) => d.startsWith('r-')).sort();

describe('flow-1 starts under SIGKILL', () => {
  for (const point of ['after-parent', 'after-child'] as const) {
    it(`killed ${point === 'after-parent' ? 'after the parent\'s commit, before the child\'s start' : 'after the child\'s commit, before its record goes'}: the child exists once, naming its parent`, async () => {
      const h = await Harness.open({ groups: { legal: [CAST.lee] }, processes: [{ folder: 'contract-approval', roles: { legal: 'legal' } }, { folder: 'purchase' }] });
      const e = await starter(h.root, point);
      expect(e.signal, e.out).toBe('SIGKILL');
      const runs = await runDirs(h.root);
      expect(runs).toHaveLength(point === 'after-parent' ? 1 : 2);
      const records = await fs.readdir(path.join(h.root, '.work', 'starts'));
      expect(records).toHaveLength(1);
      const parentId = records[0]!.slice(0, 28);
      const childId = records[0]!.slice(29, 57);
      expect(await fs.readFile(path.join(h.root, 'runs', parentId, 'contract.md'), 'utf8')).toContain(`children:\n  - ${childId}\n`);
      expect(existsSync(path.join(h.root, 'runs', childId, 'RUN.md'))).toBe(point === 'after-child');

      // Another coordinator settles (what serve's daemon does on every change), twice, and twice more from a fresh process's view.
      for (let i = 0; i < 2; i++) {
        const s = await Service.open(await Board.open(h.root));
        await s.settleLineage();
        await s.settleLineage();
      }
      expect(await runDirs(h.root)).toEqual([parentId, childId].sort());
      expect(await fs.readdir(path.join(h.root, '.work', 'starts'))).toEqual([]);
      expect(await fs.readFile(path.join(h.root, 'runs', childId, 'RUN.md'), 'utf8')).toContain(`\nparent: ${parentId}\n`);
      // The child is a whole run that moves its parent when it ends.
      const s = await Service.open(await Board.open(h.root));
      const lee = { kind: 'person' as const, email: CAST.lee, operator: false };
      const view = await s.call('get_run', { runId: childId }, lee);
      if (!view.ok) throw new Error(JSON.stringify(view.error));
      const item = view.data.workItems[0]!;
      const done = await s.call('decide', { runId: childId, workItemId: item.id, snapshot: item.snapshot, decision: 'approved', requestId: `d-${point}` }, lee);
      expect(done.ok).toBe(true);
      const parent = await s.call('get_run', { runId: parentId }, lee);
      if (!parent.ok) throw new Error(JSON.stringify(parent.error));
      expect(parent.data.steps.map((x) => [x.id, x.state])).toEqual([['contract', 'done'], ['pay', 'ready'], ['refused', null], ['paid', null]]);
    }, 120_000);
  }
});
