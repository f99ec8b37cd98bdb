/**
 * flow-1 on process maps (docs/profile-flow-1.md "7. Lineage and rollup"): a
 * subprocess step is drawn as the runs of the other process it starts, in
 * the Waiting lane, and links to that process's page; an end whose outcome
 * starts follow-on runs says so and links to their process. Without a link
 * target (the CLI) the drawing has no links. And the web app's full-size map
 * page lists those processes as links, since an image's links cannot be
 * followed.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { linkedProcesses, mapGraph, processMapSvg } from '../../src/map/index.js';
import { loadProcess } from '../../src/process/load.js';
import { FULL_OFFER } from '../../src/protocol/offer.js';
import { CAST } from '../support/svc-harness.js';
import { sectionText, servedHarness } from '../web/http-support.js';
import { ROOT } from './sources.js';

const fixture = (name: string) => {
  const l = loadProcess(readFileSync(path.join(ROOT, 'fixtures/service', name, 'PROCESS.md'), 'utf8'), FULL_OFFER);
  if (!l.ok) throw new Error(JSON.stringify(l.issues));
  return l.process;
};

describe('the map of a process that starts runs of others', () => {
  it('draws a subprocess step as the runs it starts, in the Waiting lane, linked to the other process', async () => {
    const g = mapGraph(fixture('onboarding'));
    const equipment = g.nodes.find((n) => n.id === 'equipment')!;
    expect(equipment).toMatchObject({ title: 'Runs of Equipment order', tag: 'Subprocess', lane: 'clock', link: 'equipment-order' });
    expect(equipment.text).toBe('One run of Equipment order per item of inputs.equipment; goes on when they have ended.');
    expect(equipment.text).not.toContain('event');
    expect(linkedProcesses(g).map((l) => [l.process, l.node.id])).toEqual([
      ['equipment-order', 'equipment'],
      ['access-request', 'access'],
    ]);

    const svg = await processMapSvg({ process: fixture('onboarding') }, { linkTo: (n) => `/processes/${n}` });
    expect(svg).toContain('<a href="/processes/equipment-order"><g class="node node-wait" data-id="equipment"');
    expect(svg).toContain('<a href="/processes/access-request">');
    expect(await processMapSvg({ process: fixture('onboarding') })).not.toContain('<a href=');
  });

  it('says an end starts follow-on runs, and links it to their process', () => {
    const g = mapGraph(fixture('hiring'));
    const links = linkedProcesses(g);
    expect(links.map((l) => [l.process, l.node.kind])).toEqual([['onboarding', 'end']]);
    expect(links[0]!.node.text).toContain('Then starts a run of Onboarding.');
  });
});

describe('the full-size map page', () => {
  const web = servedHarness({
    groups: { it: [CAST.fin] },
    processes: [{ folder: 'equipment-order' }, { folder: 'access-request', roles: { it: 'it' } }, { folder: 'onboarding', roles: { it: 'it' } }, { folder: 'hiring', roles: { it: 'it' } }],
  });

  it('lists the processes whose runs it starts, each linked, with the step or end that starts them', async () => {
    const onboarding = await web.page('/processes/onboarding/v1/map');
    expect(sectionText(onboarding, 'map-links-h')).toBe('Runs of other processes it startsEquipment order from “Runs of Equipment order”Access request from “Runs of Access request”');
    expect(onboarding).toContain('<a href="/processes/equipment-order">Equipment order</a>');
    const hiring = await web.page('/processes/hiring/v1/map');
    expect(sectionText(hiring, 'map-links-h')).toBe('Runs of other processes it startsOnboarding when it ends hired');
    const plain = await web.page('/processes/equipment-order/v1/map');
    expect(sectionText(plain, 'map-links-h')).toBeNull();
  });
});
