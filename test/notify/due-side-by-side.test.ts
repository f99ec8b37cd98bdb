/**
 * One due time, said alike everywhere a person reads it (issue 42: "the
 * email says 07:03 CET where the CLI says 06:03 UTC for the same board").
 * On a board whose WORK.md sets `notifications.timeZone` to New York: the
 * email that brings the approval (over a loopback SMTP server), the web
 * app's My work (in process, a real session) and `workboard inbox` (the real
 * binary, its own zone set elsewhere) all give the approval's due time as
 * the same clock time in the same named zone, the one New York's clock shows.
 */
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt, workboard } from '../support/cli-run.js';
import { cleanupHarnesses, type Harness } from '../support/svc-harness.js';
import { inProcessWeb, pageAs } from '../web/http-support.js';
import { CAST, daemonOn, notifyBoard, smtpServer, toApproval, type Clocks, type Smtp } from './support.js';

const ZONE = 'America/New_York';
// Monday 7 December 2026, 09:00 in New York.
const MONDAY_9 = '2026-12-07T14:00:00.000Z';
const EXACT = /\w{3} \d{1,2} \w{3} \d{4}, \d\d:\d\d [A-Z][A-Za-z0-9+:-]*/;

let smtp: Smtp;
let h: Harness;
let d: Clocks;
let web: { origin: string; close: () => Promise<void> } | undefined;

beforeAll(async () => {
  await ensureBuilt();
  smtp = await smtpServer();
  h = await notifyBoard({ notifications: { email: { from: 'workboard@example.com', smtp: { host: '127.0.0.1', port: smtp.port } }, timeZone: ZONE }, spec: { start: MONDAY_9 } });
  d = await daemonOn(h);
  web = await inProcessWeb(h.service);
}, 300_000);

afterAll(async () => {
  await web?.close();
  await d.stop();
  await smtp.close();
  await cleanupHarnesses();
});

describe('a due time', () => {
  it('reads the same in the email, on the page and in the CLI: the board zone’s clock, named', async () => {
    const view = await toApproval(h);
    const due = view.workItems[0].due as string;
    // What New York's clock shows at that moment, worked out here, not by workboard's words.
    const clock = new Intl.DateTimeFormat('en-GB', { timeZone: ZONE, hour: '2-digit', minute: '2-digit', hourCycle: 'h23' }).format(new Date(due));
    const expected = `, ${clock} EST`; // December: standard time

    await d.plan();
    const mail = smtp.mails.find((m) => m.to.includes(CAST.fin));
    if (!mail) throw new Error(`no email to ${CAST.fin}: ${JSON.stringify(smtp.mails.map((m) => m.to))}`);
    const inEmail = /Due (.*)\./.exec(mail.text)?.[1] ?? '';

    const html = await pageAs(h.board, web!.origin, '/work', CAST.fin);
    const onPage = new RegExp(`<time datetime="${due.replace(/[.]/g, '\\.')}" title="([^"]*)"`).exec(html)?.[1] ?? '';

    const cli = await workboard(['--board', h.root, '--as', CAST.fin, 'inbox'], { cwd: path.dirname(h.root), env: { TZ: 'Asia/Tokyo' } });
    expect(cli.code).toBe(0);
    const inCli = /due .*\((.*)\)/.exec(cli.stdout)?.[1] ?? '';

    const said = { email: EXACT.exec(inEmail)?.[0], page: EXACT.exec(onPage)?.[0], cli: EXACT.exec(inCli)?.[0] };
    console.log('one due time, three ways:', said);
    expect(said.email).toContain(expected);
    expect(said.page).toBe(said.email);
    expect(said.cli).toBe(said.email);
  }, 120_000);
});
