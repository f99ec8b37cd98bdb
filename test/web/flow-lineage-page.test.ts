/**
 * flow-1 lineage on the people's run page (docs/profile-flow-1.md "7. Lineage and rollup"): a
 * parent lists the runs its steps started, by their titles, linked, with their
 * states and the step that started them, and their rolled-up state; a child
 * names its parent; a follow-on run names the run whose end started it. In
 * process, on a real socket, signed in with a real session.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CAST, cleanupHarnesses, Harness } from '../support/svc-harness.js';
import { inProcessWeb, pageAs, sectionText, shownRunIds } from './http-support.js';

const CONFIG = { publicOrigin: null, secure: false };

let h: Harness;
let origin: string;
let close: (() => Promise<void>) | undefined;

beforeAll(async () => {
  h = await Harness.open({
    groups: { it: [CAST.fin] },
    processes: [{ folder: 'equipment-order' }, { folder: 'access-request', roles: { it: 'it' } }, { folder: 'onboarding', roles: { it: 'it' } }, { folder: 'hiring', roles: { it: 'it' } }],
  });
  ({ origin, close } = await inProcessWeb(h.service, CONFIG));
});

afterAll(async () => {
  await close?.();
  await cleanupHarnesses();
});

const page = (path: string, email: string = CAST.fin) => pageAs(h.board, origin, path, email, CONFIG);

const lineageText = (html: string) => sectionText(html, 'lineage-h');

describe('the run page of a parent, a child and a follow-on run', () => {
  it('shows the parent, the children with their states and the step that started them, and the rollup', async () => {
    const hire = await h.start('hiring', { candidate: 'Mira Okafor', equipment: ['laptop', 'phone'], systems: [] });
    await h.decide(hire, 'offer', 'approved', CAST.fin);
    const hireRun = (await h.snapshot())[`runs/${hire.run.id}/RUN.md`]!;
    const onboarding = /followOns:\n {2}- (r-[0-9a-z]{26})/.exec(hireRun)![1]!;
    const kids = [...(await h.snapshot())[`runs/${onboarding}/equipment.md`]!.matchAll(/^ {2}- (r-[0-9a-z]{26})$/gm)].map((m) => m[1]!);
    const c = await h.claim(kids[0]!, 'order');
    await h.ok('submit', { token: c.token, output: { reference: 'PO-1' }, summary: 'Ordered.' }, CAST.agent);

    const parent = await page(`/runs/${onboarding}`);
    expect(parent).toContain(`<a href="/runs/${kids[0]}">Equipment order · Mira Okafor · laptop</a>`);
    expect(parent).toContain('<td data-label="Kind">Runs of another process</td>');
    expect(lineageText(parent)).toBe(
      'LineageStarted by the run Hiring · Mira Okafor · Ended: hiredIts runs, rolled up: Active (1 of 2 ended)Runs its steps started:' +
        'Equipment order · Mira Okafor · laptop · Ended: ordered · from “Equipment”Equipment order · Mira Okafor · phone · Active · from “Equipment”',
    );
    const child = await page(`/runs/${kids[1]}`);
    expect(lineageText(child)).toBe('LineageStarted by the run Onboarding · Mira Okafor · Waiting');
    expect(child).toContain(`<a href="/runs/${onboarding}">Onboarding · Mira Okafor</a>`);
    const first = await page(`/runs/${hire.run.id}`);
    expect(lineageText(first)).toBe('LineageIts runs, rolled up: Waiting (0 of 1 ended)Runs its end started:Onboarding · Mira Okafor · Waiting');

    // The parent cancelled: the open child says why, and the parent's rollup is done.
    await h.ok('cancel', { runId: onboarding, reason: 'The candidate withdrew.' }, CAST.operator);
    const cancelled = await page(`/runs/${kids[1]}`);
    expect(cancelled).toContain('its parent “Onboarding · Mira Okafor” was cancelled');
    const ended = await page(`/runs/${onboarding}`);
    expect(lineageText(ended)).toContain('Its runs, rolled up: Done (2 of 2 ended)');

    // The timelines name the runs a line started by their titles; no page shows a run's id as its words.
    expect(sectionText(first, 'audit-h')).toContain('its end started “Onboarding · Mira Okafor”');
    expect(sectionText(ended, 'audit-h')).toContain('“Equipment” started 2 runs of Equipment order and waits for them');
    for (const html of [parent, child, first, cancelled, ended]) expect(shownRunIds(html)).toEqual([]);
  });

  it('shows no lineage on a run that has none', async () => {
    const o = await h.start('equipment-order', { employee: 'Sam Lee', item: 'desk' });
    expect(lineageText(await page(`/runs/${o.run.id}`))).toBeNull();
  });
});
