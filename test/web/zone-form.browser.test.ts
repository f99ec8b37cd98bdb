/**
 * Date-time fields are typed as the board's clocks show them: on a board whose
 * WORK.md says `notifications.timeZone: Europe/Berlin`, the field is labelled
 * "Berlin time" and a summer time typed in it starts the run at the instant it
 * stands for (two hours before the same clock time in UTC). A real browser
 * against a real `serve --http`, at 1280 and 390 px, with axe-core.
 */
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { editManifest } from '../../src/board/people.js';
import { cleanupTmp } from '../support/tmp-board.js';
import {
  ARTIFACTS,
  axeProblems,
  HAVE_BROWSER,
  launch,
  NO_BROWSER_REASON,
  PEOPLE,
  release,
  republish,
  runView,
  serveBoard,
  signedIn,
  startBoard,
  stopServer,
  type WebBoard,
  shot,
} from './web-support.js';

if (!HAVE_BROWSER) console.warn(NO_BROWSER_REASON);

const MEETING = `---
name: meeting
description: A meeting is booked for a time.
inputs:
  topic: string
  startsAt: { type: datetime, description: When the meeting starts }
steps:
  - id: hold
    person: approver
    approve: Confirm the meeting.
    next: done
  - id: done
    finish: held
---
# Meeting
`;

describe.skipIf(!HAVE_BROWSER)(`date-time fields in the board's zone${HAVE_BROWSER ? '' : ` (skipped: ${NO_BROWSER_REASON})`}`, () => {
  let wb: WebBoard;
  let browser: Browser;
  beforeAll(async () => {
    const first = await startBoard();
    await first.stop();
    await editManifest(first.board, 'test', 'board.edited', (d) => {
      d.notifications = { ...(d.notifications ?? {}), timeZone: 'Europe/Berlin' };
      return 'notifications.timeZone';
    });
    await republish(first, 'meeting', MEETING, { approver: 'approvers' });
    const { server, base } = await serveBoard(first.root);
    wb = { ...first, server, base, stop: () => stopServer(server) };
    browser = await launch();
  });
  afterAll(async () => {
    await release(browser);
    await wb?.stop();
    await cleanupTmp();
  });

  it.each([
    ['desktop', { width: 1280, height: 900 }, '2026-07-01T09:30', '2026-07-01T07:30:00Z'],
    ['phone', { width: 390, height: 844 }, '2026-12-01T09:30', '2026-12-01T08:30:00Z'],
  ] as const)('%s: the label names Berlin time and the typed time is read in it', async (name, viewport, typed, instant) => {
    const { ctx, page } = await signedIn(browser, wb, PEOPLE.ana, viewport);
    await page.goto(`${wb.base}/processes/meeting`);
    const field = page.getByLabel('When the meeting starts (Berlin time)');
    expect(await field.getAttribute('type')).toBe('datetime-local');
    expect(await page.locator('main').textContent()).not.toContain('(UTC)');
    await page.getByLabel('Topic').fill(`Planning, ${name}`);
    await field.fill(typed);
    await shot(page, { path: path.join(ARTIFACTS, `zone-form-${name}.png`), fullPage: true });
    expect(await axeProblems(page)).toEqual([]);
    await page.getByRole('button', { name: 'Start a run of version 1' }).click();
    await page.waitForURL(/\/runs\/r-[0-9a-z]{26}\?started=1$/);
    const runId = /\/runs\/(r-[0-9a-z]{26})/.exec(page.url())![1]!;
    expect((await runView(wb, runId)).data.inputs).toEqual({ topic: `Planning, ${name}`, startsAt: instant });
    await ctx.close();
  });
});
