/**
 * Out of office on the web (issue 42), over plain HTTP to a real `serve
 * --http`: Ana hands her approvals to Cy (not an approver); Cy's My work
 * marks the item "For Ana Silva"; delegating to oneself with a past date is
 * refused with both problems beside their fields and nothing changed; a
 * person who is not an operator cannot end Ana's, an operator can.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sessionCookie } from './http-support.js';
import { payoutAwaitingApproval, PEOPLE, startBoard, type WebBoard } from './web-support.js';
import { cleanupTmp } from '../support/tmp-board.js';

let wb: WebBoard;
beforeAll(async () => {
  wb = await startBoard();
});
afterAll(async () => {
  await wb?.stop();
  await cleanupTmp();
});

async function page(who: string, p: string): Promise<{ status: number; text: string; cookie: string }> {
  const cookie = await sessionCookie(wb, who);
  const res = await fetch(`${wb.base}${p}`, { headers: { cookie } });
  return { status: res.status, text: await res.text(), cookie };
}

async function post(cookie: string, p: string, fields: Record<string, string>): Promise<{ status: number; text: string; location: string | null }> {
  const form = await (await fetch(`${wb.base}/out-of-office`, { headers: { cookie } })).text();
  const csrf = /name="csrf" value="([^"]+)"/.exec(form)![1]!;
  const res = await fetch(`${wb.base}${p}`, {
    method: 'POST',
    redirect: 'manual',
    headers: { cookie, origin: wb.base, 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ csrf, ...fields }),
  });
  return { status: res.status, text: await res.text(), location: res.headers.get('location') };
}

const workMd = () => readFileSync(path.join(wb.root, 'WORK.md'), 'utf8');
const nextWeek = () => new Date(Date.now() + 7 * 86_400_000).toISOString().slice(0, 10);

describe('out of office on the web', () => {
  it('a refusal names every problem beside its field, keeps what was typed and changes nothing', async () => {
    const before = workMd();
    const { cookie } = await page(PEOPLE.ana, '/out-of-office');
    const r = await post(cookie, '/out-of-office', { to: PEOPLE.ana, until: '2020-01-01', note: 'Away' });
    expect(r.status).toBe(422);
    expect(r.text).toContain('a person cannot hand their work to themselves');
    expect(r.text).toMatch(/is already past/);
    expect(r.text).toContain('value="Away"');
    const empty = await post(cookie, '/out-of-office', { to: '', until: '' });
    expect(empty.status).toBe(422);
    expect(empty.text).toContain('choose who stands in for you');
    expect(empty.text).toContain('give the day you are back');
    expect(workMd()).toBe(before);
  });

  it('Ana hands her work to Cy, who sees her approval marked for her; an operator ends it', async () => {
    const runId = await payoutAwaitingApproval(wb, 'Dana');
    const cy = await page(PEOPLE.cy, '/work');
    expect(cy.text).not.toContain(runId);
    const { cookie } = await page(PEOPLE.ana, '/out-of-office');
    const set = await post(cookie, '/out-of-office', { to: PEOPLE.cy, until: nextWeek(), note: 'Holiday' });
    expect(set.status).toBe(303);
    expect(set.location).toBe('/out-of-office?done=set');
    expect(workMd()).toMatch(/delegations:\n {2}- from: ana@example.com\n {4}to: cy@example.com/);
    const mine = await page(PEOPLE.ana, '/out-of-office');
    expect(mine.text).toContain('You are out of office');
    expect((await page(PEOPLE.ana, '/work')).text).toContain('You are out of office');
    const work = await page(PEOPLE.cy, '/work');
    expect(work.text).toContain(runId);
    expect(work.text).toMatch(/For <span[^>]*>Ana Silva<\/span>, out of office/);
    expect((await page(PEOPLE.cy, '/out-of-office')).text).toContain('You stand in for');

    const ben = await page(PEOPLE.ben, '/out-of-office');
    expect(ben.text).not.toContain('Everyone out of office');
    const refused = await post(ben.cookie, '/out-of-office/end', { from: PEOPLE.ana });
    expect(refused.status).toBe(403);
    const ops = await page(PEOPLE.ops, '/out-of-office');
    expect(ops.text).toContain('Everyone out of office');
    const ended = await post(ops.cookie, '/out-of-office/end', { from: PEOPLE.ana });
    expect(ended.status).toBe(303);
    expect((await page(PEOPLE.cy, '/work')).text).not.toContain(runId);
  });
});
