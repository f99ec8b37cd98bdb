/**
 * A team that signs its commits (`commit.gpgSign`) gets signed merges from
 * `workboard sync` too. Board commits go through `git commit`, which signs by
 * itself; a sync's merge is made with `git commit-tree`, which ignores that
 * setting, so the sync asks for the signature (git/repo.ts `commitTree`).
 * The signer is a stand-in for gpg (`gpg.program`) that signs anything, so
 * no key is needed: what is checked is that git asked for a signature.
 */
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt } from '../support/cli-run.js';
import { git, submitAs, twoClones, wb } from '../support/git-clones.js';

/** What gpg prints when it signs: a status line on the status fd (2 here), the signature on stdout. */
const FAKE_GPG = `#!/bin/sh
cat > /dev/null
echo '[GNUPG:] BEGIN_SIGNING' >&2
echo '[GNUPG:] SIG_CREATED D 22 8 00 1700000000 0000000000000000000000000000000000000000' >&2
printf '%s\\n' '-----BEGIN PGP SIGNATURE-----' '' 'c3RhbmQtaW4=' '-----END PGP SIGNATURE-----'
`;

const signed = (dir: string, rev: string) => git(dir, 'cat-file', 'commit', rev).includes('\ngpgsig ');

describe('signed commits', () => {
  beforeAll(async () => {
    await ensureBuilt();
  }, 600_000);

  it('a sync that merges signs its merge commit when the clone signs its commits', async () => {
    const { root, a, b, run } = await twoClones();
    const signer = path.join(root, 'fake-gpg');
    await fs.writeFile(signer, FAKE_GPG, { mode: 0o755 });
    for (const dir of [a, b]) {
      git(dir, 'config', 'commit.gpgSign', 'true');
      git(dir, 'config', 'gpg.program', signer);
    }
    // Both clones move the run between syncs, so b's sync merges.
    const cancel = await wb(a, '--as', 'ana@example.com', 'cancel', run, '--reason', 'Not now.');
    expect(cancel.code, cancel.stderr).toBe(0);
    await submitAs(b, run, 'writer-b', 'Trains at night.');
    expect((await wb(a, 'sync')).code).toBe(0);
    const merging = await wb(b, 'sync');
    expect(merging.code, merging.stderr).toBe(0);
    expect(git(b, 'rev-list', '--parents', '-n', '1', 'HEAD').split(' ')).toHaveLength(3);
    expect(signed(b, 'HEAD'), 'the merge commit').toBe(true);
    expect(signed(b, 'HEAD^2'), "a's board commit, made by git commit").toBe(true);
  }, 600_000);
});
