/**
 * When the next rungs fall, as serve's daemon asks on every pass, follows
 * commits (docs/operators.md "Reminders and escalation ladders"): a pass when
 * nothing changed reads no run's files and no record of rungs sent; a rung
 * sent by another coordinator, a decision and a WORK.md edit are each seen at
 * the next pass; and the record of a run that ended, or whose folder is gone,
 * is removed (at once for a run ending under serve, at the first pass for
 * leftovers).
 */
import { existsSync, promises as fs } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { Board } from '../../src/board/board.js';
import { editManifest } from '../../src/board/people.js';
import { Service } from '../../src/service/service.js';
import { cleanupHarnesses, type Harness } from '../support/svc-harness.js';
import { CAST, notifyBoard, toApproval } from './support.js';

const H = 3_600_000;
// Monday 7 December 2026, 09:00 in Berlin; approve is due 2 days after it opens.
const MONDAY_9 = '2026-12-07T08:00:00.000Z';
const DUE = Date.parse('2026-12-09T08:00:00.000Z');

afterEach(cleanupHarnesses);

async function ladderBoard(): Promise<Harness> {
  const h = await notifyBoard({ finance: [CAST.fin], notifications: { timeZone: 'Europe/Berlin' }, spec: { start: MONDAY_9 } });
  await editManifest(h.board, CAST.operator, 'reminders.set', (m) => {
    m.reminders = { ladders: { 'claim-review': { steps: { approve: { before: ['1d'], after: { every: '6h', times: 2 } } } } } };
    return 'reminders';
  });
  return h;
}

/** A coordinator of its own on the board, as serve opens one, counting what it reads of runs and of records of rungs. */
async function coordinator(h: Harness): Promise<{ svc: Service; board: Board; reads: { runs: number; records: number } }> {
  const board = await Board.open(h.root);
  const reads = { runs: 0, records: 0 };
  const state = board.state.read.bind(board.state);
  board.state.read = (rel: string) => {
    if (rel.startsWith('.work/reminders/')) reads.records++;
    return state(rel);
  };
  const snapshot = board.store.snapshot.bind(board.store);
  board.store.snapshot = (scope, fn) => {
    if (scope.kind === 'run') reads.runs++;
    return snapshot(scope, fn);
  };
  const svc = await Service.open(board, { now: () => new Date(h.clock) });
  return { svc, board, reads };
}

const record = (h: Harness, runId: string) => path.join(h.root, '.work/reminders', `${runId}.json`);

describe('when the next rungs fall', () => {
  it('reads nothing again while nothing changed, and follows a rung sent elsewhere, a decision and a WORK.md edit', async () => {
    const h = await ladderBoard();
    const a = await toApproval(h);
    const b = await toApproval(h, 'live', 130);
    const c = await coordinator(h);

    expect(await c.svc.reminderTimes()).toEqual(
      new Map([
        [a.run.id, DUE - 24 * H],
        [b.run.id, DUE - 24 * H],
      ]),
    );
    expect(c.reads.records).toBe(2);
    c.reads.runs = 0;
    c.reads.records = 0;
    for (let i = 0; i < 3; i++) await c.svc.reminderTimes();
    expect(c.reads).toEqual({ runs: 0, records: 0 });

    // Another coordinator (the harness's own service) sends run a's first rung: only a is read again, and moves on.
    h.setTime(new Date(DUE - 24 * H).toISOString());
    expect((await h.service.remind(a.run.id)).map((e) => e.action)).toEqual(['work-item.reminded']);
    const times = await c.svc.reminderTimes();
    expect(times.get(a.run.id)).toBe(DUE + 6 * H);
    expect(times.get(b.run.id)).toBe(DUE - 24 * H);
    expect(c.reads.records).toBe(1);

    // b is decided elsewhere: it has no rung left.
    await h.decide(await h.view(b.run.id), 'approve', 'approved', CAST.fin);
    expect([...(await c.svc.reminderTimes()).keys()]).toEqual([a.run.id]);

    // WORK.md's ladder changes: every run is planned by the new one.
    await editManifest(h.board, CAST.operator, 'reminders.set', (m) => {
      m.reminders = { ladders: { 'claim-review': { steps: { approve: { after: { every: '12h', times: 1 } } } } } };
      return 'reminders';
    });
    await c.board.refresh();
    expect(await c.svc.reminderTimes()).toEqual(new Map([[a.run.id, DUE + 12 * H]]));
  });

  it('removes the record of a run that ends, and at its first pass every leftover of a run ended or deleted', async () => {
    const h = await ladderBoard();
    const a = await toApproval(h);
    const b = await toApproval(h, 'live', 130);
    const gone = await toApproval(h, 'live', 140);
    h.setTime(new Date(DUE - 24 * H).toISOString());
    for (const v of [a, b, gone]) await h.service.remind(v.run.id);
    for (const v of [a, b, gone]) expect(existsSync(record(h, v.run.id))).toBe(true);

    // Leftovers from before this coordinator: b ended, gone's folder deleted by hand.
    await h.ok('cancel', { runId: b.run.id, reason: 'Withdrawn.' }, CAST.operator);
    await fs.rm(path.join(h.root, 'runs', gone.run.id), { recursive: true });
    const c = await coordinator(h);
    await c.svc.reminderTimes();
    expect(existsSync(record(h, a.run.id))).toBe(true);
    expect(existsSync(record(h, b.run.id))).toBe(false);
    expect(existsSync(record(h, gone.run.id))).toBe(false);

    // a ends while this coordinator runs: its record goes at the next pass.
    await h.decide(await h.view(a.run.id), 'approve', 'approved', CAST.fin);
    await c.svc.reminderTimes();
    expect((await h.view(a.run.id)).run.state).toBe('ended');
    expect(existsSync(record(h, a.run.id))).toBe(false);
    expect(await fs.readdir(path.join(h.root, '.work/reminders'))).toEqual([]);
  });
});
