/**
 * What a `git push --porcelain` said, told apart (docs/git.md "When a sync fails"):
 * - pushed;
 * - behind: the remote moved (`[rejected] … (fetch first)` or `(non-fast-forward)`),
 *   so fetching, merging and pushing again helps; so is a `[remote rejected]`
 *   whose ref another push moved while this one was received (git's
 *   `cannot lock ref … is at X but expected Y`, or its lock file held): two
 *   pushes met, and the next try fetches what the other brought;
 * - declined: the remote refused it (`[remote rejected]`: a pre-receive hook,
 *   a protected branch), with the remote's own words, which no retry mends;
 * - failed: no answer about the ref at all (the remote could not be reached).
 * Pure.
 */

export type PushOutcome = { kind: 'pushed' } | { kind: 'behind' } | { kind: 'declined'; reason: string; said: string[] } | { kind: 'failed' };

/** The status line of a ref in porcelain output: flag, `from:to`, summary (with the reason in parentheses). */
const REF_LINE = /^(?<flag>[ +\-*=!])\t[^\t]+\t(?<summary>.*)$/;

export function pushOutcome(code: number | null, stdout: string, stderr: string): PushOutcome {
  const refs = stdout.split('\n').flatMap((l) => {
    const g = REF_LINE.exec(l)?.groups;
    return g?.flag !== undefined && g.summary !== undefined ? [{ flag: g.flag, summary: g.summary }] : [];
  });
  const refused = refs.find((r) => r.flag === '!');
  if (!refused) return code === 0 ? { kind: 'pushed' } : { kind: 'failed' };
  const reason = /\(([^)]*)\)\s*$/.exec(refused.summary)?.[1] ?? refused.summary;
  if (/^\[rejected\]/.test(refused.summary) && /^(fetch first|non-fast-forward)$/.test(reason)) return { kind: 'behind' };
  // What the remote said (a hook's message), each line as it wrote it, without git's padding.
  const said = stderr
    .split('\n')
    .flatMap((l) => (/^remote: /.test(l) ? [l.slice('remote: '.length).trim()] : []))
    .filter((l) => l !== '');
  if (/^\[remote rejected\]/.test(refused.summary) && /^failed to (update ref|lock)$/.test(reason) && lostRace(`${said.join('\n')}\n${stderr}`)) return { kind: 'behind' };
  return { kind: 'declined', reason, said };
}

/** The remote's words when its ref moved under a push (another push won the race), not a rule that refuses it. */
function lostRace(words: string): boolean {
  return /cannot lock ref '[^']+': (is at [0-9a-f]+ but expected [0-9a-f]+|unable to create '[^']+\.lock': File exists)/i.test(words);
}

/** A declined push in one line: who declined, why, the remote's own words, and that retrying will not mend it. */
export function declinedText(remote: string, branch: string, d: { reason: string; said: string[] }): string {
  const said = d.said.length > 0 ? `, saying: ${d.said.map((l) => `“${l}”`).join(' ')}` : '';
  return `${remote} declined the push to ${branch} (${d.reason})${said}; this clone's commits are kept here, merged and committed, and syncing again will be declined the same way until ${remote} accepts them (ask whoever runs it, or sync another branch)`;
}
