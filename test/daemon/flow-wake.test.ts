/**
 * flow-1 under `serve` (docs/profile-flow-1.md §3): a blocked run wakes, or
 * fails naming its blocker, even when the process that ended the blocker was
 * SIGKILLed between that commit and its look at the runs it blocks. A real
 * `workboard serve` runs on the board; the blocker is decided by another real
 * process (flow-ender.mjs) that kills itself at exactly that point. The test
 * polls the blocked run's files until serve's daemon has moved it and prints
 * how long that took after the blocker's end (a speed goal is the bench's to
 * judge, not this test's: it asserts that it happens).
 */
import { spawn } from 'node:child_process';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt, ROOT } from '../support/cli-run.js';
import { CAST, cleanupHarnesses, Harness } from '../support/svc-harness.js';
import { until } from '../support/until.js';
import { kill, serve } from '../notify/support.js';

const ENDER = path.join(ROOT, 'test', 'daemon', 'flow-ender.mjs');

beforeAll(ensureBuilt, 300_000);
afterAll(cleanupHarnesses);

function ender(root: string, runId: string, email: string, decision: string, note?: string): Promise<{ signal: string | null; endedAt: number; out: string }> {
  const child = spawn(process.execPath, [ENDER, root, runId, email, decision, ...(note ? [note] : [])], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.on('data', (d) => (out += String(d)));
  child.stderr.on('data', (d) => (out += String(d)));
  return new Promise((resolve) => child.on('exit', (_code, signal) => resolve({ signal, endedAt: Number(/ended (\d+)/.exec(out)?.[1] ?? NaN), out })));
}

describe('flow-1 under serve', () => {
  it('serve wakes a blocked run, or fails it naming its blocker, after the process that ended the blocker was killed before it could', async () => {
    const h = await Harness.open({
      groups: { legal: [CAST.lee], finance: [CAST.fin] },
      processes: [
        { folder: 'contract-approval', roles: { legal: 'legal' } },
        { folder: 'supplier-payment', roles: { finance: 'finance' } },
      ],
    });
    const good = await h.start('contract-approval', { supplier: 'Acme' });
    const bad = await h.start('contract-approval', { supplier: 'Shady' });
    const wakes = await h.start('supplier-payment', { supplier: 'Acme', amount: 1, after: [good.run.id] });
    const fails = await h.start('supplier-payment', { supplier: 'Shady', amount: 1, after: [bad.run.id] });
    const runFile = (id: string) => fs.readFile(path.join(h.root, 'runs', id, 'RUN.md'), 'utf8');
    expect(await runFile(wakes.run.id)).toContain('blocked: true');

    const s = serve(h.root);
    try {
      await s.ready;
      for (const [blocker, decision, note, blocked, done] of [
        [good.run.id, 'approved', undefined, wakes.run.id, (t: string) => !t.includes('blocked: true') && t.includes('state: waiting')],
        [bad.run.id, 'rejected', 'Sanctioned owner.', fails.run.id, (t: string) => t.includes('outcome: failed')],
      ] as const) {
        const e = await ender(h.root, blocker, CAST.lee, decision, note);
        expect(e.signal, e.out).toBe('SIGKILL');
        // The ender cannot wake anything (its sweep is replaced by its own
        // SIGKILL), and serve may already have acted by now, so the blocked
        // run's file is not read here: what follows is serve's work alone.
        const seen = await until(async () => (done(await runFile(blocked)) ? Date.now() : undefined), 20_000, 5);
        process.stdout.write(`flow-1 wake under serve after a killed ender (${decision}): ${seen - e.endedAt} ms\n`);
      }
    } finally {
      await kill(s.child);
    }
    // What serve wrote, read back through the tools: the work is there, the failure names its blocker.
    const woken = await h.view(wakes.run.id);
    expect(woken.steps.map((x: { id: string; state: string | null }) => [x.id, x.state])).toEqual([
      ['release', 'waiting'],
      ['prepare', null],
      ['paid', null],
    ]);
    expect((await h.view(fails.run.id)).run).toMatchObject({ state: 'ended', outcome: 'failed', ended: { by: 'server', note: 'blocked by “Contract approval · Shady”, which ended rejected' } });
  }, 120_000);
});
