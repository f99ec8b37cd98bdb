/**
 * What the board files every command reads decode to, kept across processes
 * (docs/architecture.md "Decodes kept across processes"). Every CLI call
 * opens the board and reads WORK.md, and most load a published process
 * (VERSION.md, then PROCESS.md parsed, validated and hashed); decoding them
 * afresh was about a fifth of a short call's CPU. A valid answer is kept in
 * `.work/decoded/`, keyed by the file's sha256 and the build that decoded it
 * (and, for a process, the profiles it was checked against), and read back
 * while all still match: an edited file, or a new build, is decoded afresh.
 * Nothing is flushed; a lost or torn record is decoded again. A record git
 * brought is read as absent, like every `.work/` record (the data in it need
 * not be what the file says).
 */
import { mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { sha256Hex } from '../core/hash.js';
import { isObj } from '../process/validate/raw.js';
import { decodedBefore, decodeDoc, rememberDecoded, type BoardDoc, type Decoded } from './document.js';
import { isCode, readIfExists, writeFileAtomic } from './fsutil.js';
import { DECODED_DIR, fileKind, WORK_FILE } from './layout.js';
import type { SafeFiles } from './safe-files.js';
import type { Distrusted } from './state.js';

/** The board files whose decodes are kept: the one every command reads first, and published versions (never rewritten). */
const kept = (rel: string): boolean => rel === WORK_FILE || fileKind(rel) === 'version';

/** The record a decode of `rel` is kept in. */
export const keptRecord = (rel: string): string => `${DECODED_DIR}/${encodeURIComponent(rel)}.json`;

let stamp: string | null | undefined;

/**
 * The build this code came from: the hash of its inputs that `npm run build`
 * writes in dist/built (scripts/build.mjs), found beside the running module
 * (dist/board/ or dist/bundle/). Null when running from source, which keeps nothing.
 */
export function buildStamp(): string | null {
  if (stamp === undefined) {
    try {
      stamp =
        readFileSync(new URL('../built', import.meta.url), 'utf8')
          .split('\n')[1]
          ?.trim() || null;
    } catch (e) {
      if (!isCode(e, 'ENOENT', 'ENOTDIR')) throw e;
      stamp = null;
    }
  }
  return stamp;
}

/** A kept decode of these bytes of `rel`, whole: the record is a file anyone on the machine can edit, so a field missing or of another type means decoding afresh. */
function isKeptDoc(v: unknown, rel: string, sha256: string): v is BoardDoc {
  return isObj(v) && v.rel === rel && v.sha256 === sha256 && isObj(v.data) && typeof v.body === 'string' && typeof v.rev === 'number';
}

export class KeptDecodes {
  constructor(
    private readonly files: SafeFiles,
    private readonly distrusted: Distrusted,
    private readonly build: string,
    /** False for a caller that promises to change nothing (`audit verify`): it reads a record, never writes one. */
    private readonly writes: boolean,
  ) {}

  /** `decodeDoc`, answered from the kept record when it holds this file's bytes as decoded by this build. */
  async decode(rel: string, bytes: Buffer): Promise<Decoded> {
    if (!kept(rel)) return decodeDoc(rel, bytes);
    const sha256 = sha256Hex(bytes);
    if (decodedBefore(rel, sha256)) return decodeDoc(rel, bytes);
    let fresh: Decoded | undefined;
    const doc = await this.answer(
      rel,
      sha256,
      '',
      (v): v is BoardDoc => isKeptDoc(v, rel, sha256),
      () => {
        fresh = decodeDoc(rel, bytes);
        return fresh.ok ? fresh.doc : null;
      },
    );
    // From the record: seeded into this process's decodes, which hand out copies.
    if (fresh === undefined && doc !== null) rememberDecoded(doc);
    return fresh ?? decodeDoc(rel, bytes);
  }

  /**
   * What `compute` makes of these bytes of `rel` (their sha256) under
   * `variant` (whatever else the answer depends on), from the kept record
   * when this build kept one for exactly them. `whole`: the record's answer
   * has every field of its type, as it is a file anyone on the machine can
   * edit, so it must also match the checksum written with it. A null answer
   * (the file is not valid) is never kept.
   */
  async answer<T extends object>(rel: string, sha256: string, variant: string, whole: (v: unknown) => v is T, compute: () => T | null): Promise<T | null> {
    const record = keptRecord(rel);
    const k = await this.read(record);
    // The answer's own checksum as well: a record damaged or edited by hand is never half believed.
    if (k && k.build === this.build && k.sha256 === sha256 && k.variant === variant && whole(k.answer) && k.sum === sha256Hex(JSON.stringify(k.answer))) return k.answer;
    const answer = compute();
    const json = answer === null ? '' : JSON.stringify(answer);
    // Kept only when JSON gives back exactly what was computed (no -0, no infinity, no undefined field).
    if (answer !== null && this.writes && isDeepStrictEqual(JSON.parse(json), answer)) {
      await this.write(record, `${JSON.stringify({ build: this.build, sha256, variant, sum: sha256Hex(json), answer })}\n`);
    }
    return answer;
  }

  /** A cache's write: one that fails (a read-only board, a full disk) costs the next call a decode, never the answer. */
  private async write(record: string, text: string): Promise<void> {
    const file = this.files.abs(record);
    try {
      mkdirSync(path.dirname(file), { recursive: true });
      await writeFileAtomic(file, text, { durable: false });
    } catch {
      // decoded again next time
    }
  }

  private async read(record: string): Promise<Record<string, unknown> | null> {
    const bytes = await readIfExists(this.files.abs(record)).catch(() => null);
    if (bytes === null || this.distrusted(record, () => bytes)) return null;
    try {
      const v: unknown = JSON.parse(bytes.toString('utf8'));
      return isObj(v) ? v : null;
    } catch {
      return null; // torn or foreign: decoded afresh and written again
    }
  }
}
