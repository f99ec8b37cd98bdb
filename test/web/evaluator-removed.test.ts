/**
 * A published version stays readable whatever WORK.md says later: a process
 * with a check was published while the board had an evaluator, then the
 * evaluator was taken out of WORK.md. get_run still answers, and so must the
 * web app: the run page names the process, its map is drawn, and rejecting
 * an approval that returns nowhere still asks to confirm. In process, on a
 * real socket, signed in with a real session.
 */
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { cookieName, csrfToken } from '../../src/web/security.js';
import { createLoginLink, redeemCode } from '../../src/web/sessions.js';
import { CAST, cleanupHarnesses, Harness } from '../support/svc-harness.js';
import { inProcessWeb } from './http-support.js';

const CONFIG = { publicOrigin: null, secure: false };

// The approval comes first, so the run waits on it without the check ever being asked.
const CHECKED = `---
name: vetted-note
description: Finance approves a note, then an agent files it and a model checks the filing.
steps:
  - id: approve
    person: finance
    approve: Approve the note when it is complete.
    next: file
  - id: file
    agent: File the approved note.
    output: { filed: boolean }
    check:
      - ask: The note was filed.
        pass: 0.9
    next: done
  - id: done
    finish: done
---
# Notes finance vets

A note finance approves before it is filed.
`;

let h: Harness;
let origin: string;
let close: (() => Promise<void>) | undefined;
let runId: string;

beforeAll(async () => {
  h = await Harness.open({ groups: { finance: [CAST.fin] }, evaluator: { command: process.execPath, args: ['-e', ''], timeoutSeconds: 5 } });
  const folder = path.join(h.root, '..', 'vetted-note');
  await fs.mkdir(folder, { recursive: true });
  await fs.writeFile(path.join(folder, 'PROCESS.md'), CHECKED);
  await h.publish(folder, { finance: 'finance' });
  runId = (await h.start('vetted-note', {})).run.id;

  // The evaluator leaves WORK.md: check-1 is no longer offered.
  const work = path.join(h.root, 'WORK.md');
  const [, front, body] = /^---\n([\s\S]*?)---\n([\s\S]*)$/.exec(await fs.readFile(work, 'utf8'))!;
  const manifest = parse(front!) as Record<string, unknown>;
  delete manifest.evaluator;
  await fs.writeFile(work, `---\n${stringify(manifest)}---\n${body}`);

  ({ origin, close } = await inProcessWeb(h.service, CONFIG));
});

afterAll(async () => {
  await close?.();
  await cleanupHarnesses();
});

async function signedIn(email: string): Promise<{ cookie: string; csrf: string }> {
  const code = new URL(await createLoginLink(h.board, email, origin)).searchParams.get('code')!;
  const token = (await redeemCode(h.board, code))!.token;
  return { cookie: `${cookieName(CONFIG)}=${token}`, csrf: csrfToken(token) };
}

describe('a run of a checked process once the evaluator is removed from WORK.md', () => {
  it('get_run still answers, and check-1 is no longer offered', async () => {
    const d = await h.ok('describe', {}, CAST.fin);
    expect(d.profiles).not.toContain('check-1');
    const view = await h.ok('get_run', { runId }, CAST.fin);
    expect(view.workItems.map((w: { stepId: string }) => w.stepId)).toEqual(['approve']);
  });

  it('the run page names the process and its map is drawn', async () => {
    const { cookie } = await signedIn(CAST.fin);
    const page = await fetch(`${origin}/runs/${runId}`, { headers: { cookie } });
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('Notes finance vets');
    const map = await fetch(`${origin}/runs/${runId}/map.svg`, { headers: { cookie } });
    expect(map.status).toBe(200);
    expect(map.headers.get('content-type')).toBe('image/svg+xml; charset=utf-8');
    expect(await map.text()).toMatch(/^<svg\b/);
  });

  it('rejecting the approval, which returns nowhere, asks to confirm first', async () => {
    const { cookie, csrf } = await signedIn(CAST.fin);
    const item = (await h.ok('get_run', { runId }, CAST.fin)).workItems[0] as { id: string; snapshot: string };
    const res = await fetch(`${origin}/work/${runId}/${item.id}`, {
      method: 'POST',
      redirect: 'manual',
      headers: { cookie, origin, 'content-type': 'application/x-www-form-urlencoded' },
      // With its note, the rejection would be decided at once if the page did not know the step returns nowhere.
      body: new URLSearchParams({ csrf, decision: 'rejected', note: 'The note is incomplete.', snapshot: item.snapshot }).toString(),
    });
    const text = await res.text();
    expect(res.status, text).toBe(200);
    expect(text).toContain('rejecting ends the run as rejected');
    // Nothing was decided: the approval is still open.
    const after = await h.ok('get_run', { runId }, CAST.fin);
    expect(after.run.state).toBe('waiting');
    expect(after.workItems.map((w: { id: string }) => w.id)).toEqual([item.id]);
  });
});
