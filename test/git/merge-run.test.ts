import { describe, expect, it } from 'vitest';
import { eventLine, sealEvent, type AuditEvent } from '../../src/board/audit.js';
import { parseSuperseded, supersededBreaks } from '../../src/board/superseded.js';
import { mergeRun, type RunFiles } from '../../src/git/merge-run.js';

/** A run folder as a coordinator leaves it: RUN.md at a rev, a step file, and the chain that got there. */
function folder(events: AuditEvent[], rev: number, step = 'ready'): RunFiles {
  return {
    'RUN.md': `---\nid: r-x\nrev: ${rev}\n---\n# run\n`,
    'draft.md': `---\nid: draft\nstate: ${step}\n---\n`,
    'audit.jsonl': events.map(eventLine).join(''),
  };
}

/** Extend a chain by lines whose actions are given, at minutes after the last. */
function extend(chain: AuditEvent[], ...actions: string[]): AuditEvent[] {
  const out = [...chain];
  for (const action of actions) {
    const head = out[out.length - 1];
    const ts = new Date(Date.UTC(2026, 11, 1, 9, out.length)).toISOString();
    out.push(
      sealEvent(
        { actor: action.split(':')[1] ?? 'server', action: action.split(':')[0]!, entity: 'r-x/draft', input: { fromRev: out.length, toRev: out.length + 1 } },
        head ? { seq: head.seq, hash: head.hash, ts: head.ts } : null,
        ts,
      ),
    );
  }
  return out;
}

const base = extend([], 'run.started', 'step.ready');

describe('mergeRun: a run is resolved as one thing', () => {
  it('takes the only side that changed, whole, and sets nothing aside', () => {
    const b = folder(base, 2);
    const theirs = folder(extend(base, 'step.claimed:a1', 'step.submitted:a1'), 4, 'done');
    for (const m of [mergeRun(b, b, theirs), mergeRun(b, theirs, b)]) {
      expect(m.files).toEqual(theirs);
      expect(m.superseded).toBeNull();
    }
  });

  it('a run changed on both sides: the higher RUN.md rev wins whole, the other side is kept as a superseded branch', () => {
    const b = folder(base, 2);
    const oursChain = extend(base, 'step.claimed:a1', 'step.submitted:a1');
    const theirsChain = extend(base, 'step.claimed:a2');
    const ours = folder(oursChain, 4, 'done');
    const theirs = folder(theirsChain, 3, 'ready');
    const m = mergeRun(b, ours, theirs);
    expect(m.taken).toBe('ours');
    expect(m.files!['RUN.md']).toBe(ours['RUN.md']);
    expect(m.files!['draft.md']).toBe(ours['draft.md']);
    expect(m.files!['audit.jsonl']).toBe(ours['audit.jsonl']);
    const { branches, problems } = parseSuperseded(m.files!['superseded.jsonl']!);
    expect(problems).toEqual([]);
    expect(branches).toHaveLength(1);
    expect(branches[0]!.fork).toEqual({ seq: 1, hash: base[1]!.hash });
    expect(branches[0]!.kept).toBe(oursChain[3]!.hash);
    expect(branches[0]!.lines.map((l) => [l.action, l.actor])).toEqual([['step.claimed', 'a2']]);
    expect(branches[0]!.files).toEqual({ 'RUN.md': theirs['RUN.md'], 'draft.md': theirs['draft.md'] });
    expect(supersededBreaks(branches, oursChain)).toEqual([]);
    expect(m.superseded?.side).toBe('theirs');
  });

  it('gives the same bytes whichever way round the merge is made', () => {
    const b = folder(base, 2);
    const x = folder(extend(base, 'step.claimed:a1'), 3);
    const y = folder(extend(base, 'step.claimed:a2'), 3);
    const xy = mergeRun(b, x, y).files;
    const yx = mergeRun(b, y, x).files;
    expect(xy).toEqual(yx);
    expect(xy!['superseded.jsonl']).toBeDefined();
  });

  it('equal revs: the longer chain wins (a lease renewal adds a line, not a rev)', () => {
    const b = folder(base, 2);
    const renewed = folder(extend(base, 'step.claimed:a1', 'lease.renewed:a1'), 3);
    const other = folder(extend(base, 'step.claimed:a2'), 3);
    expect(mergeRun(b, other, renewed).files!['audit.jsonl']).toBe(renewed['audit.jsonl']);
    expect(mergeRun(b, renewed, other).files!['audit.jsonl']).toBe(renewed['audit.jsonl']);
  });

  it("a person's act outranks server lines: a cancel beats another clone's overdue mark, whatever the revs and hashes say", () => {
    const b = folder(base, 2);
    // Many cancels against many overdue marks, so the old coin (the last line's hash) would have lost some.
    for (let i = 0; i < 12; i++) {
      const cancelled = folder(extend(base, `run.cancelled:ana@example.com`), 3, 'cancelled');
      const overdue = folder(extend(base, ...Array.from({ length: 1 + (i % 3) }, () => 'step.overdue')), 3 + (i % 3));
      for (const m of [mergeRun(b, cancelled, overdue), mergeRun(b, overdue, cancelled)]) {
        expect(m.files!['audit.jsonl']).toBe(cancelled['audit.jsonl']);
        const aside = parseSuperseded(m.files!['superseded.jsonl']!).branches;
        expect(aside.flatMap((br) => br.lines.map((l) => l.actor))).toEqual(Array.from({ length: 1 + (i % 3) }, () => 'server'));
      }
    }
    // An agent's accepted submission too; two sides that both hold acts fall back to the rev.
    const submitted = folder(extend(base, 'step.claimed:a1', 'step.completed:a1'), 4, 'done');
    const timers = folder(extend(base, 'step.overdue', 'wait.ended', 'step.overdue'), 5);
    expect(mergeRun(b, timers, submitted).files!['audit.jsonl']).toBe(submitted['audit.jsonl']);
    const cancel = folder(extend(base, 'step.overdue', 'run.cancelled:ana@example.com'), 5, 'cancelled');
    expect(mergeRun(b, cancel, submitted).files!['audit.jsonl']).toBe(cancel['audit.jsonl']);
  });

  it('a side whose chain is broken never wins over one that verifies', () => {
    const b = folder(base, 2);
    const good = folder(extend(base, 'step.claimed:a1'), 3);
    const badChain = extend(base, 'step.claimed:a2', 'step.submitted:a2');
    const tampered = { ...folder(badChain, 9), 'audit.jsonl': folder(badChain, 9)['audit.jsonl']!.replace('"a2"', '"zz"') };
    expect(mergeRun(b, tampered, good).files!['audit.jsonl']).toBe(good['audit.jsonl']);
    expect(mergeRun(b, good, tampered).files!['audit.jsonl']).toBe(good['audit.jsonl']);
  });

  it('three clones: every branch forks from the kept chain, and the result does not depend on the order of the merges', () => {
    const shared = extend(base, 'step.claimed:a1');
    const a = folder(extend(shared, 'lease.renewed:a1', 'step.submitted:a1'), 4);
    const bb = folder(extend(shared, 'lease.renewed:a1', 'step.escalated:a1'), 4);
    const c = folder(extend(base, 'step.claimed:a3', 'lease.renewed:a3', 'lease.renewed:a3', 'step.submitted:a3'), 5);
    const b0 = folder(base, 2);
    const ab = mergeRun(b0, a, bb).files!;
    const abc = mergeRun(b0, ab, c).files!;
    const ac = mergeRun(b0, a, c).files!;
    const acb = mergeRun(b0, ac, bb).files!;
    const cb = mergeRun(b0, c, bb).files!;
    const cba = mergeRun(b0, cb, a).files!;
    expect(abc).toEqual(acb);
    expect(abc).toEqual(cba);
    expect(abc['audit.jsonl']).toBe(c['audit.jsonl']);
    const { branches } = parseSuperseded(abc['superseded.jsonl']!);
    expect(branches).toHaveLength(2);
    for (const br of branches) expect(br.fork).toEqual({ seq: 1, hash: base[1]!.hash });
    expect(supersededBreaks(branches, parseChain(c['audit.jsonl']!))).toEqual([]);
  });

  it('a branch set aside by one merge is never lost by the next', () => {
    const b0 = folder(base, 2);
    const x = folder(extend(base, 'step.claimed:a1'), 3);
    const y = folder(extend(base, 'step.claimed:a2'), 3);
    const merged = mergeRun(b0, x, y).files!;
    const winnerChain = parseChain(merged['audit.jsonl']!);
    const later = { ...merged, 'RUN.md': '---\nid: r-x\nrev: 4\n---\n', 'audit.jsonl': extend(winnerChain, 'step.submitted:a1').map(eventLine).join('') };
    const other = folder(extend(winnerChain, 'step.escalated:a1'), 4);
    const again = mergeRun(merged, later, { ...other, 'superseded.jsonl': merged['superseded.jsonl']! }).files!;
    const lines = parseSuperseded(again['superseded.jsonl']!).branches.flatMap((br) => br.lines.map((l) => l.action));
    expect(lines.sort()).toEqual(['step.claimed', 'step.escalated'].sort());
  });
});

function parseChain(text: string): AuditEvent[] {
  return text
    .trimEnd()
    .split('\n')
    .map((l) => JSON.parse(l) as AuditEvent);
}
