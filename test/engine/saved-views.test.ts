/** Saved views: WORK.md's views: checked with every problem named, and the pure rules of which runs a view shows and where. */
import { describe, expect, it } from 'vitest';
import { decodeDoc } from '../../src/board/document.js';
import { manifestFrom } from '../../src/board/manifest.js';
import { viewsFrom, type SavedView } from '../../src/engine/saved-views.js';
import { columns, matches, needsFullRead, viewRuns, type ViewRow } from '../../src/engine/view-filter.js';

const work = (views: string) =>
  Buffer.from(`---
schema: workboard/v1
name: demo
title: Demo
description: A board.
rev: 1
people:
  - email: mira@example.com
    name: Mira Okafor
groups:
  finance: [mira@example.com]
${views}---
`);

describe('views in WORK.md', () => {
  it('reads views, the first the default, levels from their words', () => {
    const r = decodeDoc(
      'WORK.md',
      work(`views:
  - id: blocked-payments
    title: Blocked payments
    filter: { process: [supplier-payment], blocked: true, priority: [high, urgent] }
    groupBy: waitingFor
    layout: board
  - id: everything
    title: Everything
`),
    );
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(manifestFrom(r.doc).views).toEqual([
      { id: 'blocked-payments', title: 'Blocked payments', filter: { process: ['supplier-payment'], blocked: true, priority: [30, 40] }, groupBy: 'waitingFor', layout: 'board' },
      { id: 'everything', title: 'Everything', filter: {}, groupBy: null, layout: 'list' },
    ]);
  });

  it('a board without views has none', () => {
    const r = decodeDoc('WORK.md', work(''));
    expect(r.ok && manifestFrom(r.doc).views).toEqual([]);
  });

  it('refuses a bad view naming every problem at once, each with its place and line', () => {
    const r = decodeDoc(
      'WORK.md',
      work(`views:
  - id: mine
    title: Mine
    filter: { assignee: nobody@example.com, state: [open], colour: red }
    layout: timeline
  - id: mine
    title: Again
    groupBy: owner
  - title: No id
`),
    );
    expect(r.ok).toBe(false);
    if (r.ok) return;
    const paths = r.issues.map((i) => i.path);
    expect(paths).toEqual(expect.arrayContaining(['views[0].filter.colour', 'views[0].layout', 'views[1].groupBy', 'views[2].id', 'views[1].id', 'views[0].filter.assignee']));
    expect(paths.some((p) => p.startsWith('views[0].filter.state'))).toBe(true);
    const text = r.issues.map((i) => `${i.path}: ${i.message}`).join('\n');
    expect(text).toContain('"mine" is already the id of views[0]');
    expect(text).toContain('"nobody@example.com" is neither a person');
    expect(r.issues.every((i) => typeof i.line === 'number')).toBe(true);
    console.log(text);
  });

  it('a group or a person declared on the board is a good assignee, and so are the operators', () => {
    for (const a of ['finance', 'mira@example.com', 'operators']) expect(decodeDoc('WORK.md', work(`views:\n  - id: v\n    title: V\n    filter: { assignee: ${a} }\n`)).ok).toBe(true);
  });
});

const row = (over: Partial<ViewRow>): ViewRow => ({
  id: 'r-01jd0000000000000000000000',
  process: 'supplier-payment',
  version: 1,
  state: 'active',
  outcome: null,
  mode: 'live',
  priority: 20,
  blocked: false,
  overdue: false,
  parent: null,
  waitingFor: [],
  startedAt: '2026-12-01T10:00:00Z',
  updatedAt: '2026-12-01T10:00:00Z',
  inputs: {},
  ...over,
});
const id = (n: number) => `r-01jd${String(n).padStart(22, '0')}`;
const view = (v: Partial<SavedView>): SavedView => ({ id: 'v', title: 'V', filter: {}, groupBy: null, layout: 'list', ...v });
const groups = { finance: ['mira@example.com'] };

describe('which runs a view shows', () => {
  it('each filter keeps only its runs', () => {
    const cases: [SavedView['filter'], Partial<ViewRow>, Partial<ViewRow>][] = [
      [{ process: ['a', 'b'] }, { process: 'b' }, { process: 'c' }],
      [{ state: ['waiting'] }, { state: 'waiting' }, { state: 'active' }],
      [{ blocked: true }, { blocked: true, state: 'waiting' }, { blocked: false }],
      [{ blocked: false }, { blocked: false }, { blocked: true }],
      [{ priority: [40, 30] }, { priority: 30 }, { priority: 20 }],
      [{ overdue: true }, { overdue: true }, { overdue: false }],
      [{ mode: 'test' }, { mode: 'test' }, { mode: 'live' }],
      [{ parent: id(1) }, { parent: id(1) }, { parent: id(2) }],
      [{ parent: id(1) }, { parent: id(1) }, { parent: null }],
      [{ assignee: 'finance' }, { waitingFor: [{ kind: 'group', name: 'finance' }] }, { waitingFor: [{ kind: 'group', name: 'legal' }] }],
      [{ assignee: 'mira@example.com' }, { waitingFor: [{ kind: 'group', name: 'finance' }] }, { waitingFor: [{ kind: 'agent' }] }],
      [{ assignee: 'mira@example.com' }, { waitingFor: [{ kind: 'person', email: 'mira@example.com' }] }, { waitingFor: [{ kind: 'person', email: 'sam@example.com' }] }],
    ];
    for (const [filter, kept, dropped] of cases) {
      expect(matches(filter, row(kept), groups), JSON.stringify([filter, kept])).toBe(true);
      expect(matches(filter, row(dropped), groups), JSON.stringify([filter, dropped])).toBe(false);
    }
  });

  it("all of a filter's fields must hold", () => {
    const f = { process: ['supplier-payment'], blocked: true };
    expect(matches(f, row({ blocked: true }), groups)).toBe(true);
    expect(matches(f, row({ blocked: true, process: 'other' }), groups)).toBe(false);
  });

  it('orders as the Runs page does: open runs of a higher level first, then newest first; ended runs by id', () => {
    const rows = [row({ id: id(1) }), row({ id: id(2), priority: 40 }), row({ id: id(3), priority: 10 }), row({ id: id(4) }), row({ id: id(5), priority: 40, state: 'ended' })];
    expect(viewRuns(view({}), rows, groups).map((r) => r.id)).toEqual([id(2), id(5), id(4), id(1), id(3)]);
  });

  it('reads ended runs in full only when the view needs a field the index does not hold', () => {
    expect(needsFullRead(view({ filter: { state: ['ended'] } }))).toBe(false);
    expect(needsFullRead(view({ filter: { priority: [40] } }))).toBe(true);
    expect(needsFullRead(view({ groupBy: 'parent' }))).toBe(true);
  });
});

describe("a board layout's columns", () => {
  it("by state by default, in the protocol's order, with the states the filter names even when empty", () => {
    const cols = columns(view({ layout: 'board', filter: { state: ['active', 'waiting', 'ended'] } }), [row({ id: id(1), state: 'ended' }), row({ id: id(2) })]);
    expect(cols.map((c) => [c.key, c.runs.map((r) => r.id)])).toEqual([
      [{ by: 'state', state: 'active' }, [id(2)]],
      [{ by: 'state', state: 'waiting' }, []],
      [{ by: 'state', state: 'ended' }, [id(1)]],
    ]);
  });

  it('by priority, most urgent first', () => {
    const cols = columns(view({ layout: 'board', groupBy: 'priority' }), [row({ id: id(1), priority: 10 }), row({ id: id(2), priority: 40 }), row({ id: id(3) })]);
    expect(cols.map((c) => c.key)).toEqual([
      { by: 'priority', level: 40 },
      { by: 'priority', level: 20 },
      { by: 'priority', level: 10 },
    ]);
  });

  it('by who a run waits for: the first waiter, runs waiting for no one last', () => {
    const cols = columns(view({ layout: 'board', groupBy: 'waitingFor' }), [
      row({ id: id(1), state: 'ended' }),
      row({ id: id(2), waitingFor: [{ kind: 'group', name: 'finance' }, { kind: 'agent' }] }),
      row({ id: id(3), waitingFor: [{ kind: 'runs' }] }),
      row({ id: id(4), waitingFor: [{ kind: 'group', name: 'finance' }] }),
    ]);
    expect(cols.map((c) => [c.key, c.runs.map((r) => r.id)])).toEqual([
      [{ by: 'waitingFor', waiter: { kind: 'group', name: 'finance' } }, [id(2), id(4)]],
      [{ by: 'waitingFor', waiter: { kind: 'runs' } }, [id(3)]],
      [{ by: 'waitingFor', waiter: null }, [id(1)]],
    ]);
  });

  it('by parent, runs without one last', () => {
    const cols = columns(view({ layout: 'board', groupBy: 'parent' }), [row({ id: id(1) }), row({ id: id(2), parent: id(9) })]);
    expect(cols.map((c) => c.key)).toEqual([
      { by: 'parent', parent: id(9) },
      { by: 'parent', parent: null },
    ]);
  });
});

describe('viewsFrom', () => {
  it('keeps every filter key it is given', () => {
    expect(viewsFrom({ views: [{ id: 'a', title: 'A', filter: { state: ['waiting'], overdue: true, mode: 'test', assignee: 'finance', parent: id(1) } }] })[0]!.filter).toEqual({
      state: ['waiting'],
      overdue: true,
      mode: 'test',
      assignee: 'finance',
      parent: id(1),
    });
  });
});
