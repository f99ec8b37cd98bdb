/**
 * flow-1 lineage on the people's run page (docs/profile-flow-1.md "7. Lineage and rollup"): a
 * parent lists the runs its steps started, by their titles, linked, with their
 * states and the step that started them, and their rolled-up state; a child
 * names its parent; a follow-on run names the run whose end started it. In
 * process, on a real socket, signed in with a real session.
 */
import { describe, expect, it } from 'vitest';
import { CAST } from '../support/svc-harness.js';
import { sectionText, servedHarness, shownRunIds } from './http-support.js';

const web = servedHarness({
  groups: { it: [CAST.fin] },
  processes: [{ folder: 'equipment-order' }, { folder: 'access-request', roles: { it: 'it' } }, { folder: 'onboarding', roles: { it: 'it' } }, { folder: 'hiring', roles: { it: 'it' } }],
});

const lineageText = (html: string) => sectionText(html, 'lineage-h');

describe('the run page of a parent, a child and a follow-on run', () => {
  it('shows the parent, the children with their states and the step that started them, and the rollup', async () => {
    const hire = await web.h.start('hiring', { candidate: 'Mira Okafor', equipment: ['laptop', 'phone'], systems: [] });
    await web.h.decide(hire, 'offer', 'approved', CAST.fin);
    const hireRun = (await web.h.snapshot())[`runs/${hire.run.id}/RUN.md`]!;
    const onboarding = /followOns:\n {2}- (r-[0-9a-z]{26})/.exec(hireRun)![1]!;
    const kids = [...(await web.h.snapshot())[`runs/${onboarding}/equipment.md`]!.matchAll(/^ {2}- (r-[0-9a-z]{26})$/gm)].map((m) => m[1]!);
    const c = await web.h.claim(kids[0]!, 'order');
    await web.h.ok('submit', { token: c.token, output: { reference: 'PO-1' }, summary: 'Ordered.' }, CAST.agent);

    const parent = await web.page(`/runs/${onboarding}`);
    expect(parent).toContain(`<a href="/runs/${kids[0]}">Equipment order · Mira Okafor · laptop</a>`);
    expect(parent).toContain('<td data-label="Kind">Runs of another process</td>');
    expect(lineageText(parent)).toBe(
      'LineageStarted by the run Hiring · Mira Okafor · Ended: hiredIts runs, rolled up: Active (1 of 2 ended)Runs its steps started:' +
        'Equipment order · Mira Okafor · laptop · Ended: ordered · from “Equipment”Equipment order · Mira Okafor · phone · Active · from “Equipment”',
    );
    const child = await web.page(`/runs/${kids[1]}`);
    expect(lineageText(child)).toBe('LineageStarted by the run Onboarding · Mira Okafor · Waiting');
    expect(child).toContain(`<a href="/runs/${onboarding}">Onboarding · Mira Okafor</a>`);
    const first = await web.page(`/runs/${hire.run.id}`);
    expect(lineageText(first)).toBe('LineageIts runs, rolled up: Waiting (0 of 1 ended)Runs its end started:Onboarding · Mira Okafor · Waiting');

    // The parent cancelled: the open child says why, and the parent's rollup is done.
    await web.h.ok('cancel', { runId: onboarding, reason: 'The candidate withdrew.' }, CAST.operator);
    const cancelled = await web.page(`/runs/${kids[1]}`);
    expect(cancelled).toContain('its parent “Onboarding · Mira Okafor” was cancelled');
    const ended = await web.page(`/runs/${onboarding}`);
    expect(lineageText(ended)).toContain('Its runs, rolled up: Done (2 of 2 ended)');

    // The timelines name the runs a line started by their titles; no page shows a run's id as its words.
    expect(sectionText(first, 'audit-h')).toContain('its end started “Onboarding · Mira Okafor”');
    expect(sectionText(ended, 'audit-h')).toContain('“Equipment” started 2 runs of Equipment order and waits for them');
    for (const html of [parent, child, first, cancelled, ended]) expect(shownRunIds(html)).toEqual([]);
  });

  it('shows no lineage on a run that has none', async () => {
    const o = await web.h.start('equipment-order', { employee: 'Sam Lee', item: 'desk' });
    expect(lineageText(await web.page(`/runs/${o.run.id}`))).toBeNull();
  });
});
