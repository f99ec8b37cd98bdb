/**
 * Insights on real chains dated far from now (issue 39, item 6): a run
 * started on 1970-01-01 (a machine whose clock reset) and cancelled an hour
 * later, one started on 2000-01-01 and still open, and one started now and
 * cancelled on 9999-12-30, each written by the real service on a clock this
 * test sets. A real `workboard serve --http` draws `/insights` for them and
 * `workboard stats --json` prints them: both answer, in at most MAX_PERIODS
 * periods, with each run counted where it belongs (worked out by hand below).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Board } from '../../src/board/board.js';
import { MAX_PERIODS } from '../../src/insights/time.js';
import { Service } from '../../src/service/service.js';
import { ensureBuilt, workboard } from '../support/cli-run.js';
import { sessionCookie } from '../web/http-support.js';
import { HELPER, PEOPLE, person, rid, startBoard, type WebBoard } from '../web/web-support.js';

let wb: WebBoard;
let cookie: string;
const ids: Record<'a' | 'b' | 'c', string> = { a: '', b: '', c: '' };

beforeAll(async () => {
  await ensureBuilt();
  wb = await startBoard();
  let clock = Date.parse('1970-01-01T00:00:00.000Z');
  const now = () => new Date(clock);
  const board = await Board.open(wb.root, { now });
  const svc = await Service.open(board, { now });
  const start = async () => {
    const r = await svc.call('start_run', { process: 'payout', inputs: { payee: 'Sam', amount: 120 }, requestId: rid() }, HELPER);
    if (!r.ok) throw new Error(JSON.stringify(r));
    return (r.data as { run: { id: string } }).run.id;
  };
  const cancel = async (runId: string) => {
    const r = await svc.call('cancel', { runId, reason: 'Withdrawn.', requestId: rid() }, person(PEOPLE.ops));
    if (!r.ok) throw new Error(JSON.stringify(r));
  };
  ids.a = await start();
  clock = Date.parse('1970-01-01T01:00:00.000Z');
  await cancel(ids.a);
  clock = Date.parse('2000-01-01T00:00:00.000Z');
  ids.b = await start();
  clock = Date.parse('2026-12-01T09:00:00.000Z');
  ids.c = await start();
  clock = Date.parse('9999-12-30T00:00:00.000Z');
  await cancel(ids.c);
  cookie = await sessionCookie(wb, PEOPLE.ops);
}, 120_000);

afterAll(async () => {
  await wb?.stop();
});

async function stats(...filter: string[]): Promise<any> {
  const r = await workboard(['--board', wb.root, 'stats', '--json', ...filter], { cwd: wb.root });
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.stdout).data;
}

async function page(path: string): Promise<{ status: number; text: string }> {
  const res = await fetch(`${wb.base}${path}`, { headers: { cookie } });
  return { status: res.status, text: await res.text() };
}

/** The row heads of the page's runs-per-period table. */
const periodRows = (html: string) => {
  const section = /<section aria-labelledby="throughput">([\s\S]*?)<\/section>/.exec(html)?.[1] ?? '';
  return [...section.matchAll(/<th scope="row">([^<]*)<\/th>/g)].map((m) => m[1]!);
};

describe('runs dated 1970, 2000 and ended in 9999', () => {
  it('workboard stats counts them by the hundred years, 1900–1999 to 9900–9999', async () => {
    const s = await stats();
    expect(s.runs).toMatchObject({ started: 3, ended: 2, open: 1, byOutcome: { cancelled: 2 } });
    expect(s.per).toBe('100 years');
    expect(s.periods.length).toBe(81);
    expect(s.periods.length).toBeLessThanOrEqual(MAX_PERIODS);
    expect(s.periods[0]).toEqual({ period: '1900–1999', from: '1900-01-01', started: 1, ended: { cancelled: 1 }, overdue: 0 });
    expect(s.periods[1]).toEqual({ period: '2000–2099', from: '2000-01-01', started: 2, ended: {}, overdue: 0 });
    expect(s.periods.at(-1)).toEqual({ period: '9900–9999', from: '9900-01-01', started: 0, ended: { cancelled: 1 }, overdue: 0 });
  });

  it('workboard stats takes --since 0001-01-01 --until 9999-12-31, and counts 1970 to 2000 by the quarter', async () => {
    const all = await stats('--since', '0001-01-01', '--until', '9999-12-31');
    expect(all.filter).toMatchObject({ since: '0001-01-01T00:00:00.000Z', until: '+010000-01-01T00:00:00.000Z' });
    expect(all.runs.started).toBe(3);
    const early = await stats('--until', '2001-01-01');
    expect(early.runs.started).toBe(2);
    expect(early.per).toBe('quarter');
    expect(early.periods.length).toBe(121); // 1970-Q1 … 2000-Q1
    expect(early.periods[0]).toEqual({ period: '1970-Q1', from: '1970-01-01', started: 1, ended: { cancelled: 1 }, overdue: 0 });
    expect(early.periods[120]).toEqual({ period: '2000-Q1', from: '2000-01-01', started: 1, ended: {}, overdue: 0 });
  });

  it('the Insights page answers with the same periods, and a period leads to its runs', async () => {
    const p = await page('/insights');
    expect(p.status, p.text.slice(0, 300)).toBe(200);
    expect(p.text).toContain('Runs per 100 years');
    const rows = periodRows(p.text);
    expect(rows.length).toBe(81);
    expect(rows[0]).toBe('1900–1999 (from 1900-01-01)');
    expect(rows.at(-1)).toBe('9900–9999 (from 9900-01-01)');
    expect(p.text).toContain('<svg'); // the chart is drawn

    const wide = await page('/insights?since=0001-01-01&until=9999-12-31');
    expect(wide.status).toBe(200);
    expect(periodRows(wide.text).length).toBe(81);

    const early = await page('/insights?until=2001-01-01');
    expect(early.status).toBe(200);
    expect(periodRows(early.text)).toHaveLength(121);

    const behind = await page(`/insights/runs?bar=started&period=${encodeURIComponent('2000–2099')}`);
    expect(behind.status).toBe(200);
    expect(behind.text).toContain('runs started in 2000–2099');
    expect([ids.b, ids.c].every((id) => behind.text.includes(`/runs/${id}`))).toBe(true);
    expect(behind.text).not.toContain(`/runs/${ids.a}`);
  });
});
