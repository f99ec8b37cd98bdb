// The reminders section of `npm run bench` (--only=reminders): serve's daemon pass on a board whose
// WORK.md declares a reminder ladder (docs/operators.md "Reminders and escalation ladders"), where
// every open run has an item waiting for finance on that ladder, no rung yet due. Each pass asks when
// every open run's next rung falls (Service.reminderTimes, what the daemon asks on every pass) and
// then plans its sleep (Daemon.plan: deadlines, rungs, lineage, the courier). Nothing changes
// between passes. Printed: p50 of 30 calls of each, in ms, and how many records of rungs sent
// (`.work/reminders/<run>.json`) a pass reads. Not a test.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Board } from '../dist/board/board.js';
import { editManifest } from '../dist/board/people.js';
import { Daemon } from '../dist/daemon/daemon.js';
import { Service } from '../dist/service/service.js';
import { generateBoard } from './gen-board.mjs';
import { p50Of } from './stats.mjs';

const CALLS = 30;

/** A ladder whose rungs fall weeks after the generated runs' items opened: none is due during the bench. */
const LADDER = { ladders: { 'expense-approval': { after: { every: '30d', times: 2 }, escalate: { after: '60d', to: 'finance' } } } };

const p50 = (fn) => p50Of(fn, CALLS);

export async function remindersSection({ quick, sizes = quick ? [2000] : [2000, 10_000] }) {
  const rows = [];
  for (const runs of sizes) {
    const base = mkdtempSync(path.join(tmpdir(), 'wb-bench-reminders-'));
    try {
      const dir = path.join(base, 'board');
      // Started from now on, a minute apart: no approval is overdue (its `due` is 2 days), so the daemon writes nothing down.
      const counts = await generateBoard(dir, runs, { readyEvery: 1, awaitingEvery: 1, end: Date.now() + (runs + 1) * 60_000 });
      const board = await Board.open(dir);
      await editManifest(board, 'mira@example.com', 'reminders.set', (m) => {
        m.reminders = LADDER;
        return 'reminders';
      });
      await board.refresh();
      const svc = await Service.open(board);
      // Count the reads of records of rungs sent.
      let recordReads = 0;
      const read = board.state.read.bind(board.state);
      board.state.read = (rel) => {
        if (rel.startsWith('.work/reminders/')) recordReads++;
        return read(rel);
      };
      const daemon = new Daemon(board, svc, { log: () => undefined });
      await daemon.start();
      try {
        const laddered = (await svc.reminderTimes()).size;
        const times = await p50(() => svc.reminderTimes());
        recordReads = 0;
        const pass = await p50(() => daemon.plan());
        rows.push({ runs, open: counts.awaiting + counts.ready, laddered, times, pass, recordReadsPerPass: recordReads / (CALLS + 1) });
      } finally {
        await daemon.stop();
      }
    } finally {
      rmSync(base, { recursive: true, force: true });
    }
  }
  const f = (x) => x.toFixed(1);
  return {
    lines: [
      `Reminders: serve's daemon pass on a board where every open run waits on a reminder ladder and nothing changed, p50 of ${CALLS} calls, ms`,
      '',
      '| open runs | items on a ladder | when the next rungs fall | a whole daemon pass | records read a pass |',
      '|---|---|---|---|---|',
      ...rows.map((r) => `| ${r.open} | ${r.laddered} | ${f(r.times)} | ${f(r.pass)} | ${f(r.recordReadsPerPass)} |`),
    ],
    json: rows,
  };
}

if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(new URL(import.meta.url).pathname)) {
  // node bench/reminders.mjs [--quick] [--runs=10000]: this section alone.
  const runs = process.argv.find((a) => a.startsWith('--runs='));
  const r = await remindersSection({ quick: process.argv.includes('--quick'), ...(runs ? { sizes: [Number(runs.slice(7))] } : {}) });
  console.log(r.lines.join('\n'));
}
