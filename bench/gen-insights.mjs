// A board with realistic history for the Insights figures, and the figures it must give.
//
// Runs of `expense-approval` on a copy of examples/board are driven through the
// real Service (start_run, claim, submit, escalate, decide, cancel) on a clock
// this file sets, so every audit line is the engine's own. What each run does and
// how long each part takes is decided by the run's number k (no randomness):
//
//   agent    `checker` for k % 3 == 2, else `reviewer`
//   review   the agent waits (10 + 7k mod 50) min to claim, works (2 + 3k mod 8) min (within its 10-minute claim)
//   lapse    k % 8 == 5: a first claim lapses; the agent claims again 30 min after the first claim
//   escalate k % 5 == 2: after working, the agent escalates; Mira returns it after (30 + 11k mod 90) min;
//            the agent claims again after 15 min and works 5 min more
//   approve  Mira decides after (60 + 13k mod 600) min, or 3 days for k % 10 == 7 (past the 2-day due)
//   reject   k % 4 == 1: the first approval rejects with NOTES[k % 3]; the agent reviews again
//            (waits 20 min, works 5 min) and the second approval comes after 45 min
//   cancel   k % 13 == 12: Mira cancels the run 30 min into the approval instead
//   test     k % 10 == 9 is a test run
//   open     the last OPEN runs stop once submitted: their approval waits
//
// Runs follow one another: run k starts (1 + k mod 4) h after run k − 1 last moved
// (a day for the open runs), so the clock only goes forward. `now` is 1 h after
// the last call. While driving, this file writes down each step visit it made
// (entered, done, minutes waited for an agent and for a person) and `expected`
// computes the figures from that account alone, with its own arithmetic.
//
// As a module: `await generateInsightsBoard(dir, { runs })` → { now, expected, plans }.
// From a shell: node bench/gen-insights.mjs <new-dir> <runs>
import { cpSync, existsSync, mkdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Board } from '../dist/board/board.js';
import { addAgent } from '../dist/board/people.js';
import { Service } from '../dist/service/service.js';
import { resolveActor } from '../dist/service/identity.js';
import { EXAMPLE } from './gen-board.mjs';
import { REVIEWED } from './expense-acts.mjs';

const MIN = 60_000;
const HOUR = 60 * MIN;
const DAY = 24 * HOUR;
export const NOTES = ['The receipt is missing.', 'The amount is over the hotel limit.', 'The receipt is missing.'];
export const OPEN = 3;
const T0 = Date.parse('2026-09-07T08:00:00.000Z'); // a Monday

/** What run k does, from k alone. */
export function planOf(k, runs) {
  return {
    k,
    agent: k % 3 === 2 ? 'checker' : 'reviewer',
    test: k % 10 === 9,
    open: k >= runs - OPEN,
    claimAfter: (10 + ((7 * k) % 50)) * MIN,
    work: (2 + ((3 * k) % 8)) * MIN,
    lapse: k % 8 === 5,
    escalate: k % 5 === 2 ? { returnAfter: (30 + ((11 * k) % 90)) * MIN, claimAfter: 15 * MIN, work: 5 * MIN } : null,
    approveAfter: k % 10 === 7 ? 3 * DAY : (60 + ((13 * k) % 600)) * MIN,
    reject: k % 4 === 1 ? { note: NOTES[k % 3], claimAfter: 20 * MIN, work: 5 * MIN, approveAfter: 45 * MIN } : null,
    cancel: k % 13 === 12,
    gap: k >= runs - OPEN ? DAY : (1 + (k % 4)) * HOUR,
  };
}

/** Drive every run through the service; returns what was done, as an account of visits. */
export async function generateInsightsBoard(dir, { runs }) {
  mkdirSync(dir, { recursive: true });
  cpSync(EXAMPLE, dir, { recursive: true });
  rmSync(path.join(dir, '.work'), { recursive: true, force: true });
  let clock = T0 - DAY;
  const board0 = await Board.open(dir);
  await addAgent(board0, 'mira@example.com', 'checker', 'Checks expense claims.');
  const now = () => new Date(clock);
  const board = await Board.open(dir, { now });
  const svc = await Service.open(board, { now });
  const A = (n) => resolveActor(board.manifest, n).actor;
  const mira = A('mira@example.com');
  let n = 0;
  const req = () => `ins-${++n}`;
  const ok = (r) => {
    if (!r.ok) throw new Error(`gen-insights: ${JSON.stringify(r.error)}`);
    return r.data;
  };
  const accounts = [];
  for (let k = 0; k < runs; k++) {
    const p = planOf(k, runs);
    clock += p.gap;
    const agent = A(p.agent);
    const acct = { ...p, id: null, startedAt: clock, endedAt: null, outcome: null, visits: [], leaseExpiries: [], escalations: [], returns: [], rejections: [] };
    accounts.push(acct);
    const s = ok(
      await svc.call(
        'start_run',
        { process: 'expense-approval', inputs: { claimant: 'mira@example.com', amount: 100 + k, receiptUrl: `https://example.com/r/${k}` }, ...(p.test ? { mode: 'test' } : {}), requestId: req() },
        mira,
      ),
    );
    const runId = (acct.id = s.run.id);
    const workItem = async () => ok(await svc.call('get_run', { runId }, mira)).workItems[0];
    const claim = async () => ok(await svc.call('claim', { runId, stepId: 'review_claim', requestId: req() }, agent)).token;
    const submit = (token) =>
      svc
        .call(
          'submit',
          {
            token,
            ...REVIEWED,
            requestId: req(),
          },
          agent,
        )
        .then(ok);
    const decide = async (decision, note) => {
      const wi = await workItem();
      ok(await svc.call('decide', { runId, workItemId: wi.id, snapshot: wi.snapshot, decision, ...(note ? { note } : {}), requestId: req() }, mira));
    };
    // review_claim
    const review = { step: 'review_claim', enteredAt: clock, doneAt: null, agentMs: 0, personMs: 0 };
    acct.visits.push(review);
    clock += p.claimAfter;
    review.agentMs += p.claimAfter;
    let token = await claim();
    if (p.lapse) {
      clock += 30 * MIN; // the lease (10 min) lapsed; the expiry is recorded by the next claim, at this time
      token = await claim();
      acct.leaseExpiries.push(p.agent);
    }
    clock += p.work;
    if (p.escalate) {
      ok(await svc.call('escalate', { token, note: 'The receipt is in a language I cannot read.', requestId: req() }, agent));
      acct.escalations.push(p.agent);
      clock += p.escalate.returnAfter;
      review.personMs += p.escalate.returnAfter;
      await decide('returned', 'It is in Norwegian: the total is the last line.');
      acct.returns.push(p.agent);
      clock += p.escalate.claimAfter;
      review.agentMs += p.escalate.claimAfter;
      token = await claim();
      clock += p.escalate.work;
    }
    await submit(token);
    review.doneAt = clock;
    // approve
    const approve = { step: 'approve', enteredAt: clock, doneAt: null, agentMs: 0, personMs: 0 };
    acct.visits.push(approve);
    if (p.open) continue;
    if (p.cancel) {
      clock += 30 * MIN;
      approve.personMs += 30 * MIN;
      ok(await svc.call('cancel', { runId, reason: 'The claim was withdrawn.', requestId: req() }, mira));
      Object.assign(acct, { endedAt: clock, outcome: 'cancelled' });
      continue;
    }
    clock += p.approveAfter;
    approve.personMs += p.approveAfter;
    if (p.reject) {
      await decide('rejected', p.reject.note);
      approve.doneAt = clock;
      acct.rejections.push(p.reject.note);
      const again = { step: 'review_claim', enteredAt: clock, doneAt: null, agentMs: p.reject.claimAfter, personMs: 0 };
      acct.visits.push(again);
      clock += p.reject.claimAfter;
      token = await claim();
      clock += p.reject.work;
      await submit(token);
      again.doneAt = clock;
      const approve2 = { step: 'approve', enteredAt: clock, doneAt: null, agentMs: 0, personMs: p.reject.approveAfter };
      acct.visits.push(approve2);
      clock += p.reject.approveAfter;
      await decide('approved');
      approve2.doneAt = clock;
    } else {
      await decide('approved');
      approve.doneAt = clock;
    }
    Object.assign(acct, { endedAt: clock, outcome: 'paid' });
  }
  const end = clock + HOUR;
  return { now: new Date(end).toISOString(), accounts, expected: expected(accounts, end, { tests: false }) };
}

// ---- the figures, from the account alone ------------------------------------------------

/** Nearest rank: the value at position ceil(p/100 · n) of the sorted values, 1-based. */
function pct(values, p) {
  if (values.length === 0) return null;
  const s = [...values].sort((a, b) => a - b);
  return s[Math.ceil((p / 100) * s.length) - 1];
}

/** The ISO week of an instant, by counting days from a Monday known to start week 2026-W37. */
function weekOf(ms) {
  const monday = Date.parse('2026-09-07T00:00:00Z'); // 2026-W37
  const w = 37 + Math.floor((ms - monday) / (7 * DAY));
  return `2026-W${String(w).padStart(2, '0')}`;
}

const DUE = 2 * DAY;

export function expected(accounts, now, { tests }) {
  const runs = accounts.filter((a) => tests || !a.test);
  const ended = runs.filter((a) => a.endedAt !== null);
  const byOutcome = {};
  for (const a of ended) byOutcome[a.outcome] = (byOutcome[a.outcome] ?? 0) + 1;
  const cycles = ended.map((a) => a.endedAt - a.startedAt);
  const steps = {};
  let agentsMs = 0;
  let peopleMs = 0;
  let overdueNow = 0;
  for (const a of runs) {
    for (const v of a.visits) {
      const s = (steps[v.step] ??= { visits: 0, walls: [], waits: [], agentMs: 0, personMs: 0, waitingNow: 0 });
      s.visits++;
      // An open visit (an open run's approval) has waited for a person until now; a cancelled one until the cancel.
      const personMs = v.doneAt === null ? (a.endedAt ?? now) - v.enteredAt : v.personMs;
      s.agentMs += v.agentMs;
      s.personMs += personMs;
      agentsMs += v.agentMs;
      peopleMs += personMs;
      if (v.doneAt !== null) {
        s.walls.push(v.doneAt - v.enteredAt);
        s.waits.push(v.agentMs + v.personMs);
      } else if (a.endedAt === null) {
        s.waitingNow++;
        if (v.step === 'approve' && now - v.enteredAt > DUE) overdueNow++;
      }
    }
  }
  const agents = {};
  const agent = (id) => (agents[id] ??= { escalations: 0, returns: 0, leaseExpiries: 0 });
  for (const a of runs) {
    for (const id of a.escalations) agent(id).escalations++;
    for (const id of a.returns) agent(id).returns++;
    for (const id of a.leaseExpiries) agent(id).leaseExpiries++;
  }
  const notes = {};
  for (const a of runs) for (const nt of a.rejections) notes[nt] = (notes[nt] ?? 0) + 1;
  const started = {};
  const endedWeekly = {};
  for (const a of runs) {
    started[weekOf(a.startedAt)] = (started[weekOf(a.startedAt)] ?? 0) + 1;
    if (a.endedAt !== null) {
      const w = weekOf(a.endedAt);
      endedWeekly[w] ??= {};
      endedWeekly[w][a.outcome] = (endedWeekly[w][a.outcome] ?? 0) + 1;
    }
  }
  return {
    runs: { started: runs.length, ended: ended.length, open: runs.length - ended.length, byOutcome, p50Ms: pct(cycles, 50), p90Ms: pct(cycles, 90) },
    steps: Object.fromEntries(
      Object.entries(steps).map(([id, s]) => [
        id,
        {
          visits: s.visits,
          wallP50Ms: pct(s.walls, 50),
          wallP90Ms: pct(s.walls, 90),
          waitingP50Ms: pct(s.waits, 50),
          waitingP90Ms: pct(s.waits, 90),
          waitingForAgentsMs: s.agentMs,
          waitingForPeopleMs: s.personMs,
          waitingNow: s.waitingNow,
        },
      ]),
    ),
    waiting: { agentsMs, peopleMs },
    rework: { approve: { rejections: runs.reduce((n, a) => n + a.rejections.length, 0), runs: runs.filter((a) => a.rejections.length > 0).length, notes } },
    agents,
    leaseExpiries: runs.reduce((n, a) => n + a.leaseExpiries.length, 0),
    overdueNow,
    weeks: { started, ended: endedWeekly },
  };
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const [dir, n] = process.argv.slice(2);
  if (!dir || !n || existsSync(path.join(dir, 'WORK.md'))) {
    console.error('usage: node bench/gen-insights.mjs <new-dir> <runs>');
    process.exit(2);
  }
  const { now, expected: e } = await generateInsightsBoard(dir, { runs: Number(n) });
  console.log(JSON.stringify({ now, expected: e }, null, 2));
}
