import { describe, expect, it } from 'vitest';
import { pushOutcome } from '../../src/git/push-outcome.js';

describe('pushOutcome: what a push said, told apart', () => {
  it('a push a pre-receive hook declined: declined, with the remote\'s own words, never "behind"', () => {
    const out = pushOutcome(
      1,
      'To /r.git\n!\tHEAD:refs/heads/main\t[remote rejected] (pre-receive hook declined)\nDone\n',
      "remote: main is protected: open a merge request        \nremote: second line        \nerror: failed to push some refs to '/r.git'\n",
    );
    expect(out).toEqual({ kind: 'declined', reason: 'pre-receive hook declined', said: ['main is protected: open a merge request', 'second line'] });
  });

  it('a remote that moved: behind (fetch first, non-fast-forward)', () => {
    for (const why of ['fetch first', 'non-fast-forward']) {
      expect(pushOutcome(1, `To /r.git\n!\tHEAD:refs/heads/main\t[rejected] (${why})\nDone\n`, 'hint: Updates were rejected because the remote contains work\n')).toEqual({ kind: 'behind' });
    }
  });

  it('a pushed ref, and a push that never reached the remote', () => {
    expect(pushOutcome(0, 'To /r.git\n \tHEAD:refs/heads/main\tabc..def\nDone\n', '')).toEqual({ kind: 'pushed' });
    expect(pushOutcome(128, '', "fatal: '/nowhere.git' does not appear to be a git repository\n")).toEqual({ kind: 'failed' });
  });

  it('another refusal of the remote (a protected branch that a server names otherwise): declined with its reason', () => {
    expect(pushOutcome(1, 'To h:r\n!\tHEAD:refs/heads/main\t[remote rejected] (protected branch hook declined)\nDone\n', '')).toEqual({
      kind: 'declined',
      reason: 'protected branch hook declined',
      said: [],
    });
  });

  it('two pushes that met at the remote (the ref moved while this one was received): behind, so the sync fetches and tries again', () => {
    const raced =
      "remote: error: cannot lock ref 'refs/heads/main': is at 1163d44ae72482c0239799dd9b15cf1439b301dd but expected 77778cedc9321a81c2fd37cf30bcda6197ebd7d1\nerror: failed to push some refs to '/r.git'\n";
    expect(pushOutcome(1, 'To /r.git\n!\tHEAD:refs/heads/main\t[remote rejected] (failed to update ref)\nDone\n', raced)).toEqual({ kind: 'behind' });
    const held = "remote: error: cannot lock ref 'refs/heads/main': Unable to create '/r.git/refs/heads/main.lock': File exists.\n";
    expect(pushOutcome(1, 'To /r.git\n!\tHEAD:refs/heads/main\t[remote rejected] (failed to lock)\nDone\n', held)).toEqual({ kind: 'behind' });
  });

  it('a ref the remote could not update for another reason (its disk, its rights): declined with its words', () => {
    const out = pushOutcome(
      1,
      'To /r.git\n!\tHEAD:refs/heads/main\t[remote rejected] (failed to update ref)\nDone\n',
      "remote: error: cannot lock ref 'refs/heads/main': Unable to create '/r.git/refs/heads/main.lock': Permission denied\n",
    );
    expect(out).toMatchObject({ kind: 'declined', reason: 'failed to update ref' });
  });
});
