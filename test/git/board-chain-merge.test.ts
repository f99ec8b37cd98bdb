/**
 * The board's own chain (audit/board.jsonl) merged without loss in every
 * topology (issue 41, item 4): three clones each create a token, C pushes,
 * B syncs with an unreachable push URL (so its merge stays local), A syncs,
 * B syncs again: a criss-cross. Every acknowledged `token.created` line must
 * be on every clone afterwards, in the chain or set aside beside it, and
 * `audit verify --git` must be clean. Real git, a bare remote, the real CLI.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt } from '../support/cli-run.js';
import { addClone, boardChainLines, boardFiles, git, twoClones, wb } from '../support/git-clones.js';

describe('board-chain merges keep every signed line', () => {
  beforeAll(async () => {
    await ensureBuilt();
  }, 600_000);

  it('a criss-cross of three clones that each created a token: no token.created line lost, verify --git clean', async () => {
    const { root, remote, a, b } = await twoClones();
    const c = await addClone(root, remote, 'c', 'c@example.com');
    const created = new Map<string, string>();
    for (const [dir, who] of [
      [a, 'writer-a'],
      [b, 'writer-b'],
      [c, 'writer-a'],
    ] as const) {
      const before = new Set((await boardChainLines(dir)).keys());
      const r = await wb(dir, 'token', 'create', who, '--name', `from-${dir.slice(-1)}`);
      expect(r.code, r.stderr).toBe(0);
      const added = [...(await boardChainLines(dir)).values()].filter((l) => !before.has(l.hash) && l.action === 'token.created');
      expect(added).toHaveLength(1);
      created.set(added[0]!.hash, dir.slice(-1));
    }
    expect((await wb(c, 'sync')).code).toBe(0);
    git(b, 'remote', 'set-url', '--push', 'origin', `${root}/nowhere.git`);
    const blocked = await wb(b, 'sync');
    expect(blocked.code).not.toBe(0);
    git(b, 'remote', 'set-url', '--push', 'origin', remote);
    expect((await wb(a, 'sync')).code).toBe(0);
    const again = await wb(b, 'sync');
    expect(again.code, again.stderr).toBe(0);
    for (const dir of [a, c, b, a, c]) expect((await wb(dir, 'sync')).code).toBe(0);

    const files = await boardFiles(a);
    for (const dir of [b, c]) expect(await boardFiles(dir)).toEqual(files);
    for (const dir of [a, b, c]) {
      const kept = await boardChainLines(dir);
      const lost = [...created].filter(([hash]) => !kept.has(hash)).map(([, from]) => `token.created on ${from}`);
      expect(lost, dir).toEqual([]);
      const verify = await wb(dir, 'audit', 'verify', '--git');
      expect(verify.code, verify.stdout).toBe(0);
    }
  }, 600_000);

  it('verify --git names every signed line a merge dropped: an octopus that kept one parent, and a commit that dropped the lines set aside', async () => {
    const { root, remote, a, b } = await twoClones();
    const c = await addClone(root, remote, 'c', 'c@example.com');
    for (const [dir, who] of [
      [a, 'writer-a'],
      [b, 'writer-b'],
      [c, 'writer-a'],
    ] as const) {
      expect((await wb(dir, 'token', 'create', who, '--name', `from-${dir.slice(-1)}`)).code).toBe(0);
      git(dir, 'add', '-A');
      git(dir, 'commit', '-qm', `a token on ${dir.slice(-1)}`);
    }
    const heads = [a, b, c].map((dir) => git(dir, 'rev-parse', 'HEAD'));
    git(a, 'fetch', '-q', b, 'HEAD');
    git(a, 'fetch', '-q', c, 'HEAD');
    const octopus = git(a, 'commit-tree', `${heads[0]}^{tree}`, '-p', heads[0]!, '-p', heads[1]!, '-p', heads[2]!, '-m', 'octopus keeping a');
    git(a, 'reset', '-q', '--hard', octopus);
    const r = await wb(a, 'audit', 'verify', '--git');
    expect(r.code, r.stdout).toBe(1);
    const broken = r.stdout.split('\n').filter((l) => l.startsWith('BROKEN'));
    expect(broken).toEqual([
      expect.stringMatching(/^BROKEN  audit\/board\.jsonl:\d+: merge dropped transitions of parent 2 \(\w+\)/),
      expect.stringMatching(/^BROKEN  audit\/board\.jsonl:\d+: merge dropped transitions of parent 3 \(\w+\)/),
    ]);
    const lost = r.stdout.split('\n').filter((l) => l.startsWith('          lost: '));
    expect(lost).toEqual([expect.stringMatching(/created a token for writer-b \("from-b"\)$/), expect.stringMatching(/created a token for writer-a \("from-c"\)$/)]);

    // Synced properly, lines are set aside on merge; a later commit that drops them is named, line by line.
    git(a, 'reset', '-q', '--hard', heads[0]!);
    for (const dir of [b, c, a, b]) expect((await wb(dir, 'sync')).code).toBe(0);
    const aside = await boardChainLines(b);
    git(b, 'rm', '-q', 'audit/superseded.jsonl');
    git(b, 'commit', '-qm', 'tidy');
    const dropped = await wb(b, 'audit', 'verify', '--git');
    expect(dropped.code, dropped.stdout).toBe(1);
    expect(dropped.stdout).toMatch(/BROKEN  audit\/superseded\.jsonl: dropped \d+ lines? set aside on merge in \w+ \(commit \w+ "tidy"/);
    const named = dropped.stdout.split('\n').filter((l) => l.startsWith('          lost: '));
    const tokens = [...aside.values()].filter((l) => l.action === 'token.created').length;
    expect(named.length).toBeGreaterThan(0);
    expect(named.length).toBeLessThan(tokens);
    for (const l of named) expect(l).toMatch(/created a token for writer-[ab] \("from-[abc]"\)$/);
  }, 600_000);
});
