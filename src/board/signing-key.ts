/**
 * This coordinator's signing key on disk: `.work/audit-key.pem`, made on first
 * use, its public record committed once under `audit/keys/`, replaced on
 * rotation. The signing rules themselves are pure and live in signing.ts.
 */
import { existsSync, promises as fs } from 'node:fs';
import path from 'node:path';
import { BoardError } from './errors.js';
import { createExclusive, fileStamp, fsyncDir, HOST, isCode, removeIfExists, sleep, tempPathFor, writeFileAtomic } from './fsutil.js';
import { SIGNING_KEY_FILE } from './layout.js';
import type { SafeFiles } from './safe-files.js';
import { KEY_DIR, newPrivateKeyPem, signerFrom, type KeyRecord, type Signer } from './signing.js';

export class SigningKey {
  /** The key as loaded, with the key file's identity to notice a rotation by another process. */
  private loaded: { stamp: string; signer: Signer } | null = null;

  constructor(
    private readonly files: SafeFiles,
    private readonly now: () => Date,
  ) {}

  /**
   * The key that signs what this coordinator appends: `.work/audit-key.pem`,
   * made on first use (O_EXCL, so concurrent coordinators agree on one), its
   * public record committed under `audit/keys/`. Re-read when the file changes.
   */
  async signer(): Promise<Signer> {
    const file = this.files.abs(SIGNING_KEY_FILE);
    for (let attempt = 0; ; attempt++) {
      const stamp = fileStamp(file);
      if (this.loaded && this.loaded.stamp === stamp) return this.loaded.signer;
      if (stamp === '') {
        await createExclusive(file, newPrivateKeyPem(), { mode: 0o600, sync: true });
        continue;
      }
      let loaded;
      try {
        loaded = signerFrom((await fs.readFile(file)).toString('utf8'));
      } catch (e) {
        // Another coordinator is still writing it (it was just created), or it is damaged.
        if (attempt < 50) {
          await sleep(5);
          continue;
        }
        throw new BoardError('corrupt', `${SIGNING_KEY_FILE} is not an Ed25519 private key; restore it or remove it to start a new key (workboard audit key)`, [
          { path: SIGNING_KEY_FILE, message: e instanceof Error ? e.message : String(e) },
        ]);
      }
      await this.publish(loaded.record(HOST, this.now().toISOString()));
      this.loaded = { stamp, signer: loaded };
      return loaded;
    }
  }

  /** Commit a key's public record once, beside the others; an existing record is never rewritten. */
  async publish(rec: KeyRecord): Promise<void> {
    const rel = `${KEY_DIR}/${rec.fingerprint}.json`;
    const file = this.files.abs(rel);
    if (existsSync(file)) return;
    await this.files.assertNoLinks(rel);
    const tmp = tempPathFor(file);
    await createExclusive(tmp, `${JSON.stringify(rec, null, 2)}\n`, { sync: true });
    try {
      await fs.link(tmp, file);
      await fsyncDir(path.dirname(file));
    } catch (e) {
      if (!isCode(e, 'EEXIST')) throw e;
    } finally {
      await removeIfExists(tmp);
    }
  }

  /**
   * Replace this board's signing key: the new key's record carries the old
   * key's signature over it, so an auditor who pinned the old key trusts the
   * new one, and lines signed by the old key after this moment are refused.
   */
  async rotate(): Promise<{ from: string; to: string }> {
    const old = await this.signer();
    const pem = newPrivateKeyPem();
    const next = signerFrom(pem);
    await this.publish(next.record(HOST, this.now().toISOString(), { from: old }));
    await writeFileAtomic(this.files.abs(SIGNING_KEY_FILE), pem, { mode: 0o600 });
    return { from: old.fingerprint, to: next.fingerprint };
  }

  /** The fingerprint of the key this coordinator signs with (made if there is none yet). */
  async fingerprint(): Promise<string> {
    return (await this.signer()).fingerprint;
  }
}
