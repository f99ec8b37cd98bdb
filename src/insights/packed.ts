/**
 * A run's facts packed into arrays for keeping between CLI processes: no
 * repeated key names, and times as offsets from the run's start, so the kept
 * file of a 10k-run board is a fraction of the facts as objects and parses
 * in a fraction of the time. Packing then unpacking gives the same facts.
 * Pure.
 */
import { newFacts, type RunFacts, type Visit, type Wait, type WaitFor } from './facts.js';

type Rel = number | null;
/** step, entered, done, outcome, by, then each wait as for, from, to. */
type PackedVisit = [string, number, Rel, Visit['outcome'], string | null, ...(WaitFor | Rel)[]];
export type PackedFacts = [
  id: string,
  process: string,
  version: number,
  mode: RunFacts['mode'],
  startedAt: number,
  endedAt: Rel,
  outcome: string | null,
  visits: PackedVisit[],
  rejections: [string, string, number, string][],
  escalations: [string, string, number, 0 | 1][],
  returns: [string, string, number][],
  leaseExpiries: [string, string, number][],
  checks: [string, 'fail' | 'unsure', number][],
  started: [string | null, string, string][],
];

export function pack(f: RunFacts): PackedFacts {
  const t0 = f.startedAt;
  const rel = (ms: number | null): Rel => (ms === null ? null : ms - t0);
  return [
    f.id,
    f.process,
    f.version,
    f.mode,
    t0,
    rel(f.endedAt),
    f.outcome,
    f.visits.map((v) => {
      const packed: PackedVisit = [v.step, v.enteredAt - t0, rel(v.doneAt), v.outcome, v.by];
      for (const w of v.waits) packed.push(w.for, w.from - t0, rel(w.to));
      return packed;
    }),
    f.rejections.map((r) => [r.step, r.by, r.at - t0, r.note]),
    f.escalations.map((e) => [e.step, e.agent, e.at - t0, e.check ? 1 : 0]),
    f.returns.map((r) => [r.step, r.agent, r.at - t0]),
    f.leaseExpiries.map((x) => [x.step, x.agent, x.at - t0]),
    f.checks.map((c) => [c.step, c.verdict, c.at - t0]),
    f.started.map((c) => [c.step, c.process, c.run]),
  ];
}

// Plain loops rather than destructuring and map: unpacking 10k runs is on every warm `stats`.
export function unpack(p: PackedFacts): RunFacts {
  const t0 = p[4];
  const abs = (rel: Rel): number | null => (rel === null ? null : rel + t0);
  const visits: Visit[] = [];
  for (const v of p[7]) {
    const waits: Wait[] = [];
    for (let i = 5; i < v.length; i += 3) waits.push({ for: v[i] as WaitFor, from: (v[i + 1] as number) + t0, to: abs(v[i + 2] as Rel) });
    visits.push({ step: v[0], enteredAt: v[1] + t0, doneAt: abs(v[2]), outcome: v[3], by: v[4], waits });
  }
  const f = newFacts({ id: p[0], process: p[1], version: p[2], mode: p[3], startedAt: t0, endedAt: abs(p[5]), outcome: p[6] }, visits);
  for (const r of p[8]) f.rejections.push({ step: r[0], by: r[1], at: r[2] + t0, note: r[3] });
  for (const e of p[9]) f.escalations.push({ step: e[0], agent: e[1], at: e[2] + t0, check: e[3] === 1 });
  for (const r of p[10]) f.returns.push({ step: r[0], agent: r[1], at: r[2] + t0 });
  for (const x of p[11]) f.leaseExpiries.push({ step: x[0], agent: x[1], at: x[2] + t0 });
  for (const c of p[12]) f.checks.push({ step: c[0], verdict: c[1], at: c[2] + t0 });
  for (const c of p[13]) f.started.push({ step: c[0], process: c[1], run: c[2] });
  return f;
}
