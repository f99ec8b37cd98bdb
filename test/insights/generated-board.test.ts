/**
 * A board driven through the real service on a set clock (bench/gen-insights.mjs):
 * its known figures, worked out by the generator from what it did, must be
 * exactly what `workboard stats --json` (a real CLI process) prints. A second
 * check recomputes a sample of figures straight from the audit lines with a
 * parser of its own.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt, workboard } from '../support/cli-run.js';

const RUNS = 40;
let dir: string;
let gen: { now: string; accounts: unknown[] };
let expectedAt: (accounts: unknown[], now: number, o: { tests: boolean }) => any;

async function stats(...args: string[]): Promise<any> {
  const r = await workboard(['--board', dir, 'stats', '--json', ...args], { cwd: dir });
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.stdout).data;
}

beforeAll(async () => {
  await ensureBuilt();
  const mod = await import('../../bench/gen-insights.mjs');
  dir = mkdtempSync(path.join(os.tmpdir(), 'wb-insights-'));
  gen = await mod.generateInsightsBoard(dir, { runs: RUNS });
  expectedAt = mod.expected;
}, 300_000);

afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The stats' step row of a step of expense-approval. */
const step = (s: any, id: string) => s.steps.find((x: any) => x.process === 'expense-approval' && x.step === id);

function compare(s: any, e: any): void {
  expect(s.runs).toEqual({ started: e.runs.started, ended: e.runs.ended, open: e.runs.open, byOutcome: e.runs.byOutcome, cycle: { count: e.runs.ended, p50Ms: e.runs.p50Ms, p90Ms: e.runs.p90Ms } });
  for (const id of ['review_claim', 'approve']) {
    const row = step(s, id);
    const want = e.steps[id];
    expect(
      {
        visits: row.visits,
        wallP50Ms: row.wall.p50Ms,
        wallP90Ms: row.wall.p90Ms,
        waitingP50Ms: row.waiting.p50Ms,
        waitingP90Ms: row.waiting.p90Ms,
        waitingForAgentsMs: row.waitingForAgentsMs,
        waitingForPeopleMs: row.waitingForPeopleMs,
        waitingNow: row.waitingNow,
      },
      id,
    ).toEqual(want);
  }
  expect(s.steps.map((x: any) => x.step).sort()).toEqual(['approve', 'review_claim']);
  expect({ agentsMs: s.waiting.agentsMs, peopleMs: s.waiting.peopleMs }).toEqual(e.waiting);
  expect(s.waiting.timersMs).toBe(0);
  const notes = Object.entries(e.rework.approve.notes as Record<string, number>)
    .sort((a, b) => b[1] - a[1])
    .map(([note, count]) => ({ note, count }));
  expect(s.rework).toEqual([{ process: 'expense-approval', step: 'approve', rejections: e.rework.approve.rejections, runs: e.rework.approve.runs, topNotes: notes }]);
  const agents = Object.fromEntries(s.agents.map((a: any) => [a.agent, { escalations: a.escalations, returns: a.returns, leaseExpiries: a.leaseExpiries }]));
  expect(agents).toEqual(e.agents);
  expect(s.leaseExpiries).toBe(e.leaseExpiries);
  expect(s.overdueNow).toBe(e.overdueNow);
  expect(s.per).toBe('week');
  const started = Object.fromEntries(s.periods.filter((w: any) => w.started > 0).map((w: any) => [w.period, w.started]));
  expect(started).toEqual(e.weeks.started);
  const ended = Object.fromEntries(s.periods.filter((w: any) => Object.keys(w.ended).length > 0).map((w: any) => [w.period, w.ended]));
  expect(ended).toEqual(e.weeks.ended);
}

describe('workboard stats on a generated board', () => {
  it('gives exactly the figures the generator decided, live runs only by default', async () => {
    const s = await stats();
    const e = expectedAt(gen.accounts, Date.parse(s.now), { tests: false });
    // The generator's own plan fixes these; they are not read off the stats.
    expect(e.runs.started).toBe(36);
    expect(e.rework.approve.rejections).toBeGreaterThan(0);
    expect(e.leaseExpiries).toBeGreaterThan(0);
    expect(Object.values(e.agents).every((a: any) => a.escalations > 0)).toBe(true);
    compare(s, e);
    expect(s.filter.modes).toEqual(['live']);
  });

  it('counts test runs with --tests, and test runs alone with --tests only', async () => {
    const s = await stats('--tests');
    compare(s, expectedAt(gen.accounts, Date.parse(s.now), { tests: true }));
    const only = await stats('--tests', 'only');
    expect(only.runs.started).toBe(RUNS - 36);
  });

  it('agrees with a sample of figures recomputed from the audit lines by a parser of its own', async () => {
    const s = await stats();
    const started: Record<string, number> = {};
    let rejections = 0;
    const expiries: Record<string, number> = {};
    const cycles: number[] = [];
    for (const id of readdirSync(path.join(dir, 'runs')).filter((n) => n.startsWith('r-'))) {
      const lines = readFileSync(path.join(dir, 'runs', id, 'audit.jsonl'), 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l));
      if (lines[0].input.changes.mode === 'test') continue;
      // An ISO week by hand: the Thursday of the line's week decides the year and the number.
      const day = new Date(lines[0].ts.slice(0, 10) + 'T00:00:00Z');
      const thursday = new Date(day.getTime() + (3 - ((day.getUTCDay() + 6) % 7)) * 86_400_000);
      const firstJan = Date.UTC(thursday.getUTCFullYear(), 0, 1);
      const week = `${thursday.getUTCFullYear()}-W${String(Math.floor((thursday.getTime() - firstJan) / 86_400_000 / 7) + 1).padStart(2, '0')}`;
      started[week] = (started[week] ?? 0) + 1;
      for (const l of lines) {
        if (l.action === 'step.rejected') rejections++;
        if (l.action === 'lease.expired') expiries[l.input.changes.agent] = (expiries[l.input.changes.agent] ?? 0) + 1;
        if (l.action === 'run.ended' || l.action === 'run.cancelled') cycles.push(Date.parse(l.ts) - Date.parse(lines[0].ts));
      }
    }
    cycles.sort((a, b) => a - b);
    expect(Object.fromEntries(s.periods.filter((w: any) => w.started > 0).map((w: any) => [w.period, w.started]))).toEqual(started);
    expect(s.rework[0].rejections).toBe(rejections);
    expect(Object.fromEntries(s.agents.filter((a: any) => a.leaseExpiries > 0).map((a: any) => [a.agent, a.leaseExpiries]))).toEqual(expiries);
    expect(s.runs.cycle.p50Ms).toBe(cycles[Math.ceil(cycles.length / 2) - 1]);
    expect(s.runs.cycle.p90Ms).toBe(cycles[Math.ceil(cycles.length * 0.9) - 1]);
  });

  it('filters by start time and names every bad option at once, changing nothing', async () => {
    const s = await stats('--since', '2026-09-14', '--until', '2026-09-20');
    const e = expectedAt(
      gen.accounts.filter((a: any) => a.startedAt >= Date.parse('2026-09-14T00:00:00Z') && a.startedAt < Date.parse('2026-09-21T00:00:00Z')),
      Date.parse(s.now),
      { tests: false },
    );
    expect(s.runs.started).toBe(e.runs.started);
    expect(s.runs.byOutcome).toEqual(e.runs.byOutcome);
    const bad = await workboard(['--board', dir, 'stats', '--since', 'last tuesday', '--version-number', 'x', '--tests', 'maybe'], { cwd: dir });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('since: last tuesday');
    expect(bad.stderr).toContain('version: x');
    expect(bad.stderr).toContain('tests: maybe');
  });

  it('says its figures in words: titles and names, not ids', async () => {
    const r = await workboard(['--board', dir, 'stats'], { cwd: dir });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('Expense approval');
    expect(r.stdout).toContain('Read the receipt and compare the claim with the travel policy');
    expect(r.stdout).not.toMatch(/review_claim|expense-approval|r-[0-9a-z]{26}/);
  });
});
