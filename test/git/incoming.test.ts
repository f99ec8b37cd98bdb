/**
 * What a commit may never bring into a clone (src/git/incoming.ts), by rule,
 * without git: `.work/` of the board, a `..`/`.`/`.git`/empty name anywhere,
 * a link or submodule among the board's files; code beside the board and a
 * board below the repository's top are left alone.
 */
import { describe, expect, it } from 'vitest';
import { refusalText, refusedChanges } from '../../src/git/incoming.js';

const file = (path: string, mode = '100644') => ({ mode, path });

describe('refusedChanges', () => {
  it("refuses the board's .work/ (added or removed) and names git must not write, anywhere in the repository", () => {
    const refused = refusedChanges(
      [file('.work/tokens.json'), file('.work/web/sessions.json', '000000'), file('.work', '120000'), file('processes/../../escaped.txt'), file('src/./x'), file('a/.GIT/config'), file('a//b')],
      '',
    );
    expect(refused.map((r) => r.path)).toEqual(['.work/tokens.json', '.work/web/sessions.json', '.work', 'processes/../../escaped.txt', 'src/./x', 'a/.GIT/config', 'a//b']);
    expect(refused[3]!.why).toBe('".." in it');
  });

  it('refuses a link or submodule among the board files, not beside them', () => {
    const refused = refusedChanges(
      [file('runs', '120000'), file('files/x', '120000'), file('audit', '160000'), file('tools/link', '120000'), file('vendor/lib', '160000'), file('runs/r-1/RUN.md')],
      '',
    );
    expect(refused.map((r) => r.path)).toEqual(['runs', 'files/x', 'audit']);
  });

  it("reads the board below the repository's top by its prefix", () => {
    const refused = refusedChanges([file('board/.work/tokens.json'), file('.work/tokens.json'), file('board/runs', '120000'), file('other/../x')], 'board/');
    expect(refused.map((r) => r.path)).toEqual(['board/.work/tokens.json', 'board/runs', 'other/../x']);
  });

  it('says every path in one line', () => {
    expect(
      refusalText('origin/main (abc)', [
        { path: '.work/a', why: 'w' },
        { path: 'b', why: 'v' },
      ]),
    ).toBe('origin/main (abc) brings 2 paths this clone never takes from git: .work/a (w), b (v); nothing was changed: ask whoever pushed it to remove them in a new commit');
  });
});
