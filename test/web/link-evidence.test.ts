/**
 * Link evidence is a link only when it is http(s) or mailto (issue 25, item
 * 11): an agent's `javascript:`, `data:` or `vbscript:` link, in any of the
 * spellings a browser still runs, is shown as text on the run page. A real
 * `serve --http`; the evidence submitted through the service as an agent would.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { linkHref } from '../../src/words/links.js';
import { cleanupTmp } from '../support/tmp-board.js';
import { request, sessionCookie } from './http-support.js';
import { HELPER, PEOPLE, rid, startBoard, type WebBoard } from './web-support.js';

const HOSTILE = [
  'javascript:alert(1)',
  'JaVaScRiPt:alert(1)',
  ' javascript:alert(1)',
  '\u0001javascript:alert(1)',
  'java\tscript:alert(1)',
  'java\nscript:alert(1)',
  'javascript&#58;alert(1)',
  'javascript&colon;alert(1)',
  'data:text/html,<script>alert(1)</script>',
  'DATA:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==',
  'vbscript:msgbox(1)',
  '//evil.example/x',
  'not a url at all',
];
const FINE = ['https://example.com/policy?x=1#rail', 'http://example.com/', 'mailto:ana@example.com', 'HTTPS://EXAMPLE.COM/Up'];
/** The same, as a browser reads them (and as they are rendered). */
const FINE_HREFS = ['https://example.com/policy?x=1#rail', 'http://example.com/', 'mailto:ana@example.com', 'https://example.com/Up'];

const decode = (s: string) =>
  s
    .replace(/&quot;/g, '"')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');

describe('which link targets are links (pure)', () => {
  it('http, https and mailto are, as the browser would read them; nothing else is', () => {
    for (const ref of HOSTILE) expect({ ref, href: linkHref(ref) }).toEqual({ ref, href: null });
    expect(FINE.map(linkHref)).toEqual(FINE_HREFS);
  });
});

describe('a run page with hostile link evidence', () => {
  let wb: WebBoard;
  beforeAll(async () => {
    wb = await startBoard();
  });
  afterAll(async () => {
    await wb?.stop();
    await cleanupTmp();
  });

  it('renders only the http(s) and mailto links as links, and every other one as text', async () => {
    const s = wb.service;
    const start = await s.call('start_run', { process: 'payout', inputs: { payee: 'Sam', amount: 5 }, requestId: rid() }, HELPER);
    if (!start.ok) throw new Error(JSON.stringify(start.error));
    const runId = (start.data as { run: { id: string } }).run.id;
    const claim = await s.call('claim', { runId, stepId: 'draft', requestId: rid() }, HELPER);
    if (!claim.ok) throw new Error(JSON.stringify(claim.error));
    const evidence = [...HOSTILE, ...FINE].map((ref) => ({ kind: 'link' as const, ref }));
    const sub = await s.call('submit', { token: (claim.data as { token: string }).token, output: { memo: 'm' }, evidence, summary: 'links', requestId: rid() }, HELPER);
    expect(sub.ok).toBe(true);

    const page = await request(wb.base, 'GET', `/runs/${runId}`, { cookie: await sessionCookie(wb, PEOPLE.ana) });
    expect(page.status).toBe(200);
    const list = /<ul class="evidence">([\s\S]*?)<\/ul>/.exec(page.text)?.[1] ?? '';
    expect(list.match(/<li/g)?.length).toBe(HOSTILE.length + FINE.length);
    const hrefs = [...list.matchAll(/href="([^"]*)"/g)].map((m) => decode(m[1]!));
    expect(hrefs).toEqual(FINE_HREFS);
    expect(decode(list)).toContain('vbscript:msgbox(1)');
    expect(decode(list)).toContain('data:text/html,<script>alert(1)</script>');
  });
});
