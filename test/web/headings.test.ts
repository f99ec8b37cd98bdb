/**
 * A process body's own "# heading" sits inside the page, under "About this
 * process": its headings are shifted below the page's (h1 to h3, never past
 * h6), so the work item and process pages keep exactly one h1. A real
 * `serve --http` fetched without a browser; the payout body starts "# Payout".
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { markdownHtml } from '../../src/web/markdown.js';
import { cleanupTmp } from '../support/tmp-board.js';
import { request, sessionCookie } from './http-support.js';
import { PEOPLE, payoutAwaitingApproval, startBoard, type WebBoard } from './web-support.js';

const headings = (html: string): string[] => [...html.matchAll(/<(h[1-6])\b/g)].map((m) => m[1]!);

describe('headings in process text (pure)', () => {
  it('shift two levels below the page, and stop at h6', () => {
    expect(headings(markdownHtml('# A\n\n## B\n\n### C\n\n#### D\n\n##### E\n\n###### F'))).toEqual(['h3', 'h4', 'h5', 'h6', 'h6', 'h6']);
    expect(markdownHtml('# Payout')).toBe('<h3>Payout</h3>\n');
  });
});

describe('the pages that show a process body', () => {
  let wb: WebBoard;
  let cookie: string;
  beforeAll(async () => {
    wb = await startBoard();
    cookie = await sessionCookie(wb, PEOPLE.ana);
  });
  afterAll(async () => {
    await wb?.stop();
    await cleanupTmp();
  });

  it('have exactly one h1: the work item page and the process page', async () => {
    await payoutAwaitingApproval(wb);
    const inbox = await request(wb.base, 'GET', '/work', { cookie });
    const work = /href="(\/work\/[^"]+)"/.exec(inbox.text)?.[1];
    expect(work).toBeDefined();
    for (const path of [work!, '/processes/payout']) {
      const page = await request(wb.base, 'GET', path, { cookie });
      expect(page.status).toBe(200);
      expect(page.text).toContain('Payout</h3>');
      expect({ path, h1: headings(page.text).filter((h) => h === 'h1').length }).toEqual({ path, h1: 1 });
    }
  });
});
