/**
 * The step graph on small hand-written step lists: the edges of each kind,
 * reachability, the branch regions with what they refuse, and the steps a
 * rework resets.
 */
import { describe, expect, it } from 'vitest';
import { edgesOf, forwardEdges, StepGraph, type StepLinks } from '../../src/process/graph.js';

const agent = (id: string, next: StepLinks['next']): StepLinks => ({ id, kind: 'agent', next });
const approve = (id: string, next: string, onReject: string): StepLinks => ({ id, kind: 'approve', next, onReject });
const fork = (id: string, branches: string[], next: string | null): StepLinks => ({ id, kind: 'parallel', next, branches });
const finish = (id: string): StepLinks => ({ id, kind: 'finish', next: null });

describe('edges', () => {
  it('lists next or its routes, on_timeout, on_reject and the branches, each with its key and position', () => {
    expect(edgesOf(agent('a', [{ to: 'b' }, { to: 'c', when: 'later' }]))).toEqual([
      { to: 'b', key: 'next', index: 0 },
      { to: 'c', key: 'next', index: 1 },
    ]);
    expect(edgesOf({ id: 'w', kind: 'wait_for', next: 'b', onTimeout: 'c' })).toEqual([
      { to: 'b', key: 'next' },
      { to: 'c', key: 'on_timeout' },
    ]);
    expect(edgesOf(approve('r', 'b', 'a'))).toEqual([
      { to: 'b', key: 'next' },
      { to: 'a', key: 'on_reject' },
    ]);
    expect(edgesOf(fork('p', ['x', 'y'], 'z'))).toEqual([
      { to: 'z', key: 'next' },
      { to: 'x', key: 'parallel', index: 0 },
      { to: 'y', key: 'parallel', index: 1 },
    ]);
    expect(edgesOf(finish('done'))).toEqual([]);
  });

  it('keeps only next, routes and on_timeout as forward edges, and never join', () => {
    expect(forwardEdges(approve('r', 'b', 'a')).map((e) => e.to)).toEqual(['b']);
    expect(forwardEdges(agent('x', 'join'))).toEqual([]);
    expect(forwardEdges({ id: 'w', kind: 'wait_for', next: 'join', onTimeout: 'c' }).map((e) => e.to)).toEqual(['c']);
    expect(forwardEdges(fork('p', ['x', 'y'], 'z')).map((e) => e.to)).toEqual(['z']);
  });
});

describe('reachability', () => {
  it('follows every edge but join; steps nothing leads to are left out', () => {
    const g = new StepGraph([
      agent('a', 'p'),
      fork('p', ['x', 'y'], 'r'),
      agent('x', 'join'),
      agent('y', 'join'),
      approve('r', 'done', 'a'),
      finish('done'),
      agent('lost', 'done'),
      agent('ghost-target', 'nowhere'),
    ]);
    expect([...g.reachableFrom(g.get('a')!)]).toEqual(['a', 'p', 'r', 'x', 'y', 'done']);
  });

  it('reaches a step only through on_reject when nothing else leads there', () => {
    const g = new StepGraph([approve('r', 'done', 'fix'), finish('done'), agent('fix', 'r')]);
    expect(g.reachableFrom(g.get('r')!)).toEqual(new Set(['r', 'done', 'fix']));
  });
});

describe('branch regions', () => {
  it('places every step its entry reaches up to join, with its parallel step and entry', () => {
    const g = new StepGraph([
      fork('p', ['x', 'y'], 'after'),
      agent('x', 'x2'),
      agent('x2', 'join'),
      agent('y', [{ to: 'y2' }, { to: 'join' }]),
      agent('y2', 'join'),
      agent('after', 'done'),
      finish('done'),
    ]);
    const { place, findings } = g.branches();
    expect([...place]).toEqual([
      ['x', { parallel: 'p', entry: 'x' }],
      ['x2', { parallel: 'p', entry: 'x' }],
      ['y', { parallel: 'p', entry: 'y' }],
      ['y2', { parallel: 'p', entry: 'y' }],
    ]);
    expect(findings).toEqual([]);
  });

  it('stops at what parallel-1 forbids and says so, in the order it meets it', () => {
    const g = new StepGraph([
      fork('p', ['x', 'y', 'z'], 'done'),
      agent('x', [{ to: 'shared' }, { to: 'done' }]),
      agent('shared', 'join'),
      agent('y', [{ to: 'shared' }, { to: 'p' }]),
      fork('z', ['z1', 'z2'], 'join'),
      agent('z1', 'join'),
      agent('z2', 'join'),
      finish('done'),
    ]);
    const { place, findings } = g.branches();
    expect(findings).toEqual([
      { kind: 'to-finish', from: 'x', edge: { to: 'done', key: 'next', index: 1 } },
      { kind: 'to-fork', from: 'y', edge: { to: 'p', key: 'next', index: 1 } },
      { kind: 'shared', step: 'shared', first: 'x', entry: 'y' },
      { kind: 'nested', step: 'z' },
    ]);
    expect(place.get('shared')).toEqual({ parallel: 'p', entry: 'x' });
    expect(place.get('z')).toEqual({ parallel: 'p', entry: 'z' });
    // The nested parallel step is still a parallel step of its own, whose branches are walked too.
    expect(place.get('z1')).toEqual({ parallel: 'z', entry: 'z1' });
    expect(place.has('done')).toBe(false);
  });
});

describe('rework region', () => {
  const steps = [
    agent('draft', 'p'),
    fork('p', ['legal', 'finance'], 'review'),
    agent('legal', 'join'),
    agent('finance', 'finance-check'),
    agent('finance-check', 'finance-ok'),
    approve('finance-ok', 'join', 'finance'),
    approve('review', 'done', 'draft'),
    finish('done'),
  ];
  const g = new StepGraph(steps);

  it('is everything the returned-to step leads to, through every branch, but the rejecting step', () => {
    expect(g.reworkRegion('draft', 'review')).toEqual(['p', 'legal', 'finance', 'done', 'finance-check', 'finance-ok']);
    expect(g.reworkRegion('p', 'review')).toEqual(['legal', 'finance', 'done', 'finance-check', 'finance-ok']);
  });

  it('stays inside a branch when the rejection does, and does not follow on_reject or join', () => {
    expect(g.reworkRegion('finance', 'finance-ok')).toEqual(['finance-check']);
    expect(g.reworkRegion('finance-check', 'finance-ok')).toEqual([]);
  });

  it('is empty for an id that names no step', () => {
    expect(g.reworkRegion('nowhere', 'review')).toEqual([]);
  });
});
