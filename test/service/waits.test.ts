/**
 * Waits and events (spec §2.2, §3.1, §3.5, §3.6; tool contracts
 * "send_event"): `wait` continues after its duration, `wait_until` at the
 * datetime in run data (at once when past; a missing value fails the run,
 * by: server), `wait_for` when its event arrives or at on_timeout (default:
 * next) when the timeout passes. Events that arrive early are held, consumed
 * oldest first, one per wait, and discarded when the run ends.
 *
 * Time only moves when the test moves the service's clock.
 */
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CAST, cleanupHarnesses, Harness, states, type BoardSpec } from '../support/svc-harness.js';

afterAll(cleanupHarnesses);

const SPEC: BoardSpec = {
  groups: { 'desk-team': [CAST.ann] },
  processes: [{ folder: 'timed-release' }, { folder: 'two-payments' }, { folder: 'cooling-off', roles: { desk: 'desk-team' } }],
};

describe('wait, wait_until and wait_for', () => {
  it('waits for the duration, then until the release time, then for the event; nobody works meanwhile', async () => {
    const h = await Harness.open(SPEC);
    const v = await h.start('timed-release', { releaseAt: h.iso('5h') });
    const id = v.run.id;
    expect(v.run.state).toBe('waiting');
    expect(states(v)).toEqual({ cool_off: 'waiting', release_time: null, tagged: null, chase: null, ship: null, shipped: null });
    expect(v.workItems).toEqual([]);

    h.advance('1h');
    h.advance('59m');
    expect(states(await h.view(id))).toMatchObject({ cool_off: 'waiting', release_time: null });

    h.advance('1m');
    const at2h = await h.view(id);
    expect(states(at2h)).toMatchObject({ cool_off: 'done', release_time: 'waiting', tagged: null });
    expect(at2h.data.steps.cool_off).toEqual({ by: 'server', at: h.at(), history: [] });
    expect(at2h.run.state).toBe('waiting');
    expect((await h.ok('get_work', {}, CAST.agent)).items).toEqual([]);

    h.advance('3h');
    const at5h = await h.view(id);
    expect(states(at5h)).toMatchObject({ cool_off: 'done', release_time: 'done', tagged: 'waiting', chase: null });
    expect(at5h.data.steps.release_time).toEqual({ by: 'server', at: h.at(), history: [] });

    h.advance('1h');
    const sent = await h.ok('send_event', { runId: id, name: 'release-tagged', data: { tag: 'v2.1.0' } }, CAST.agent);
    expect(sent).toEqual({ consumedBy: 'tagged' });
    const after = await h.view(id);
    expect(states(after)).toEqual({ cool_off: 'done', release_time: 'done', tagged: 'done', chase: null, ship: 'ready', shipped: null });
    expect(after.run.state).toBe('active');
    expect(after.data.steps.tagged).toEqual({ output: { tag: 'v2.1.0' }, by: CAST.agent, at: h.at(), history: [] });

    const c = await h.claim(id, 'ship');
    expect(c.data.steps.tagged.output).toEqual({ tag: 'v2.1.0' });
    const end = await h.ok('submit', { token: c.token, output: { version: 'v2.1.0' }, summary: 'Shipped the tagged build.' }, CAST.agent);
    expect(end.run).toMatchObject({ state: 'ended', outcome: 'shipped' });
    expect(states(end)).toEqual({ cool_off: 'done', release_time: 'done', tagged: 'done', chase: null, ship: 'done', shipped: 'done' });
  });

  it('a wait_until time already past continues at once', async () => {
    const h = await Harness.open(SPEC);
    const v = await h.start('timed-release', { releaseAt: h.iso('-1d') });
    h.advance('2h');
    const view = await h.view(v.run.id);
    expect(states(view)).toMatchObject({ cool_off: 'done', release_time: 'done', tagged: 'waiting' });
    expect(view.data.steps.release_time).toMatchObject({ by: 'server' });
  });

  it('a missing wait_until value fails the run, by: server, with a note', async () => {
    const h = await Harness.open(SPEC);
    const v = await h.start('timed-release', {});
    h.advance('2h');
    const view = await h.view(v.run.id);
    expect(view.run).toMatchObject({ state: 'ended', outcome: 'failed', ended: { by: 'server', at: h.at(), note: expect.any(String) } });
    expect(states(view)).toEqual({ cool_off: 'done', release_time: 'failed', tagged: null, chase: null, ship: null, shipped: null });
    expect(view.data.steps.release_time).toEqual({ decision: 'failed', note: expect.any(String), by: 'server', at: h.at(), history: [] });
    // list_runs agrees, and the run is closed to writes.
    const listed = await h.ok('list_runs', { process: 'timed-release' }, CAST.ann);
    expect(listed.items.find((r: { id: string }) => r.id === v.run.id)).toMatchObject({ state: 'ended', outcome: 'failed' });
    expect(await h.fail('send_event', { runId: v.run.id, name: 'release-tagged' }, CAST.agent)).toMatchObject({ code: 'conflict', issues: ['run_ended'] });
  });

  it('wait_for times out into on_timeout; an event after that is held, not consumed', async () => {
    const h = await Harness.open(SPEC);
    const v = await h.start('timed-release', { releaseAt: h.iso() });
    h.advance('2h');
    expect(states(await h.view(v.run.id))).toMatchObject({ tagged: 'waiting' });
    h.advance('23h');
    h.advance('59m');
    expect(states(await h.view(v.run.id))).toMatchObject({ tagged: 'waiting', chase: null });
    h.advance('1m');
    const view = await h.view(v.run.id);
    expect(states(view)).toEqual({ cool_off: 'done', release_time: 'done', tagged: 'done', chase: 'ready', ship: null, shipped: null });
    expect(view.data.steps.tagged).toMatchObject({ by: 'server', at: h.at() });
    expect(view.data.steps.tagged.output).toBeUndefined();

    h.advance('5m');
    expect(await h.ok('send_event', { runId: v.run.id, name: 'release-tagged', data: { tag: 'late' } }, CAST.agent)).toEqual({ consumedBy: null });
    const c = await h.claim(v.run.id, 'chase');
    const s = await h.ok('submit', { token: c.token, output: { answer: 'The tag was late; it is out now.' }, summary: 'Asked.' }, CAST.agent);
    expect(states(s)).toMatchObject({ chase: 'done', ship: 'ready' });
    expect(s.data.steps.tagged.output).toBeUndefined();
  });

  it('send_event is for agents and operators; a name that is not a step-id-like name is invalid', async () => {
    const h = await Harness.open(SPEC);
    const v = await h.start('timed-release', { releaseAt: h.iso() });
    expect((await h.fail('send_event', { runId: v.run.id, name: 'release-tagged' }, CAST.ann)).code).toBe('forbidden');
    expect((await h.fail('send_event', { runId: 'r-00000000000000000000000000', name: 'release-tagged' }, CAST.agent)).code).toBe('not_found');
    expect((await h.fail('send_event', { runId: v.run.id, name: 'Release Tagged' }, CAST.agent)).code).toBe('invalid');
    expect((await h.fail('send_event', { runId: v.run.id, name: 'release-tagged', data: 'v1' }, CAST.agent)).code).toBe('invalid');
    h.advance('2h');
    expect(await h.ok('send_event', { runId: v.run.id, name: 'release-tagged' }, CAST.operator)).toEqual({ consumedBy: 'tagged' });
    const view = await h.view(v.run.id);
    // No data: the wait's output is the empty object the event carried (or none).
    expect(view.data.steps.tagged.by).toBe(CAST.operator);
  });
});

describe('a wait that continues into a person step', () => {
  it('opens one work item, the same one on every read, that its assignee can decide', async () => {
    const h = await Harness.open(SPEC);
    const v = await h.start('cooling-off', {});
    expect(states(v)).toEqual({ cool_off: 'waiting', confirm: null, confirmed: null });
    h.advance('1d');
    h.advance('1m');
    const first = await h.view(v.run.id);
    expect(states(first)).toEqual({ cool_off: 'done', confirm: 'waiting', confirmed: null });
    const wi = h.item(first, 'confirm');
    expect(wi.assignedTo).toEqual({ group: 'desk-team' });
    // A work item is one thing: every read shows it under the same id.
    const second = await h.view(v.run.id);
    expect(h.item(second, 'confirm').id).toBe(wi.id);
    const inbox = await h.ok('get_work', {}, CAST.ann);
    expect(inbox.items.map((i: { workItem: { id: string } }) => i.workItem.id)).toEqual([wi.id]);
    // The exact decide call from get_work works.
    const item = inbox.items[0].workItem;
    const end = await h.ok('decide', { ...item.decide.arguments, requestId: 'cooling-off-1', decision: 'approved' }, CAST.ann);
    expect(end.run).toMatchObject({ state: 'ended', outcome: 'confirmed' });
  });
});

describe('held events', () => {
  it('events that arrive before their wait are held and consumed oldest first, one per wait, in the write that readies it', async () => {
    const h = await Harness.open(SPEC);
    const v = await h.start('two-payments', {});
    h.advance('1m');
    expect(await h.ok('send_event', { runId: v.run.id, name: 'payment', data: { n: 1 } }, CAST.agent)).toEqual({ consumedBy: null });
    h.advance('1m');
    expect(await h.ok('send_event', { runId: v.run.id, name: 'payment', data: { n: 2 } }, CAST.operator)).toEqual({ consumedBy: null });
    expect(await h.ok('send_event', { runId: v.run.id, name: 'unrelated', data: { x: true } }, CAST.agent)).toEqual({ consumedBy: null });
    expect(states(await h.view(v.run.id))).toEqual({ invoice: 'ready', first_instalment: null, second_instalment: null, paid: null });

    h.advance('1m');
    const c = await h.claim(v.run.id, 'invoice');
    const end = await h.ok('submit', { token: c.token, output: { number: 'INV-9' }, summary: 'Raised INV-9.' }, CAST.agent);
    expect(end.run).toMatchObject({ state: 'ended', outcome: 'paid' });
    expect(states(end)).toEqual({ invoice: 'done', first_instalment: 'done', second_instalment: 'done', paid: 'done' });
    expect(end.data.steps.first_instalment).toMatchObject({ output: { n: 1 }, by: CAST.agent });
    expect(end.data.steps.second_instalment).toMatchObject({ output: { n: 2 }, by: CAST.operator });
  });

  it('each delivery satisfies one wait', async () => {
    const h = await Harness.open(SPEC);
    const v = await h.start('two-payments', {});
    const c = await h.claim(v.run.id, 'invoice');
    const s = await h.ok('submit', { token: c.token, output: { number: 'INV-10' }, summary: 'Raised INV-10.' }, CAST.agent);
    expect(states(s)).toMatchObject({ first_instalment: 'waiting', second_instalment: null });
    expect.soft(s.run.state).toBe('waiting');
    expect(await h.ok('send_event', { runId: v.run.id, name: 'payment', data: { n: 1 } }, CAST.agent)).toEqual({ consumedBy: 'first_instalment' });
    expect(states(await h.view(v.run.id))).toMatchObject({ first_instalment: 'done', second_instalment: 'waiting', paid: null });
    expect(await h.ok('send_event', { runId: v.run.id, name: 'payment', data: { n: 2 } }, CAST.agent)).toEqual({ consumedBy: 'second_instalment' });
    const end = await h.view(v.run.id);
    expect(end.run).toMatchObject({ state: 'ended', outcome: 'paid' });
    expect(end.data.steps.second_instalment.output).toEqual({ n: 2 });
  });

  it('a wait_for timeout without on_timeout continues at next', async () => {
    const h = await Harness.open(SPEC);
    const v = await h.start('two-payments', {});
    const c = await h.claim(v.run.id, 'invoice');
    await h.ok('submit', { token: c.token, output: { number: 'INV-11' }, summary: 'Raised.' }, CAST.agent);
    await h.ok('send_event', { runId: v.run.id, name: 'payment', data: { n: 1 } }, CAST.agent);
    h.advance('3d');
    const end = await h.view(v.run.id);
    expect(end.run).toMatchObject({ state: 'ended', outcome: 'paid' });
    expect(states(end)).toEqual({ invoice: 'done', first_instalment: 'done', second_instalment: 'done', paid: 'done' });
    expect(end.data.steps.second_instalment).toMatchObject({ by: 'server' });
  });

  it('an event with no wait is held until the run ends, then discarded', async () => {
    const h = await Harness.open(SPEC);
    const v = await h.start('two-payments', {});
    const marker = 'held-marker-7f3a';
    await h.ok('send_event', { runId: v.run.id, name: 'unrelated', data: { marker } }, CAST.agent);
    await h.ok('cancel', { runId: v.run.id, reason: 'Invoice raised by mistake.' }, CAST.operator);
    // The run's record no longer holds the event (its audit trail may still say it arrived).
    const dir = path.join(h.root, 'runs', v.run.id);
    for (const f of await fs.readdir(dir)) {
      if (!f.endsWith('.md')) continue;
      expect(await fs.readFile(path.join(dir, f), 'utf8'), f).not.toContain(marker);
    }
    expect(await h.fail('send_event', { runId: v.run.id, name: 'unrelated' }, CAST.agent)).toMatchObject({ code: 'conflict', issues: ['run_ended'] });
  });
});
