/**
 * Which unsigned lines a merge's replay wrote (docs/git.md "The merge
 * rule"): a replayed decision can let the engine consume an event held on
 * the run, and the step that event completes is written in the name of the
 * event's sender, not the decider's. The 300-round simulation (seed 11) met
 * it: verify called the line a removed signature, and every later sync of
 * that clone refused to push. Pure: lines made here, no disk.
 */
import { describe, expect, it } from 'vitest';
import type { AuditEvent } from '../../src/board/audit.js';
import { vouchedLines, type SupersededBranch } from '../../src/board/superseded.js';

let seq = 0;
const line = (action: string, actor: string, extra: { replayOf?: string; signed?: boolean } = {}): AuditEvent => ({
  seq: seq++,
  ts: '2026-12-07T19:04:38.815Z',
  actor,
  action,
  entity: 'r-1/signal',
  input: { fromRev: 0, toRev: 0, ...(extra.replayOf ? { replayOf: extra.replayOf } : {}) },
  prevHash: 'p',
  hash: `h${seq}`,
  ...(extra.signed ? { signer: 'key-a', sig: 'sig' } : {}),
});

describe('the lines a replay wrote, vouched for by the signed act they replay', () => {
  // A run waiting for an event, which ana sent while the review was open: held. Bob's rejection, made on another clone, is replayed here.
  const rejection = line('step.rejected', 'bob@example.com', { signed: true });
  const head = [line('run.started', 'bot1', { signed: true }), line('event.held', 'ana@example.com', { signed: true })];
  const replayed = (completedBy: string, consumed = true) => [
    ...head,
    line('step.rejected', 'bob@example.com', { replayOf: rejection.hash }),
    ...(consumed ? [line('event.consumed', 'server', { replayOf: rejection.hash })] : []),
    line('step.completed', completedBy, { replayOf: rejection.hash }),
    line('work-item.opened', 'server', { replayOf: rejection.hash }),
  ];
  const branches: SupersededBranch[] = [{ fork: { seq: 1, hash: 'h2' }, kept: 'h6', lines: [rejection], files: {} }];

  it("vouches for the step the held event completes, in its sender's name, right after the server consumed it", () => {
    const lines = replayed('ana@example.com');
    expect([...vouchedLines(lines, branches)].sort()).toEqual([2, 3, 4, 5]);
  });

  it('vouches for no one else in that place, and for no event sender elsewhere', () => {
    expect(vouchedLines(replayed('eve@example.com'), branches).has(4)).toBe(false);
    const notAfterConsumed = replayed('ana@example.com', false);
    expect(notAfterConsumed[3]!.actor).toBe('ana@example.com');
    expect(vouchedLines(notAfterConsumed, branches).has(3)).toBe(false);
    // A line naming no signed act is vouched for by nothing.
    expect(vouchedLines(replayed('ana@example.com'), []).size).toBe(0);
  });
});
