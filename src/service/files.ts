/**
 * Stored files (docs/agents.md "Evidence and uploads"): `upload` commits the bytes under `files/<id>/` with their
 * metadata and its replay record as one Commit value, the id addressed by the bytes' hash, name and type; file evidence
 * is verified before the engine runs, by the bytes' hash against both the id
 * and the recorded hash.
 */
import type { Board } from '../board/board.js';
import type { Commit } from '../board/commit.js';
import { BoardError } from '../board/errors.js';
import type { FileCheck } from '../engine/acceptance.js';
import { actorName, type Actor } from '../engine/types.js';
import { ToolError } from '../protocol/errors.js';
import type { UploadArgs } from '../protocol/tool-args.js';
import { canonicalJson, sha256Hex } from '../core/hash.js';
import type { Replay } from './replay.js';

/**
 * An upload's id. Name and type are part of it, so the same bytes uploaded as
 * another name or type are an upload of their own, downloaded as that name and
 * type; the very same upload again is the same file.
 */
export function uploadId(sha256: string, fileName: string, contentType: string): string {
  return `f-${sha256Hex(canonicalJson({ sha256, fileName, contentType })).slice(0, 32)}`;
}

/** Does the id stand for these bytes under the name and type its meta.json records? */
function idMatches(ref: string, sha256: string, meta: { fileName?: unknown; contentType?: unknown }): boolean {
  // Uploads made before names were part of the id are named by the bytes' hash alone.
  if (ref === `f-${sha256.slice(0, 32)}`) return true;
  return typeof meta.fileName === 'string' && typeof meta.contentType === 'string' && ref === uploadId(sha256, meta.fileName, meta.contentType);
}

export class StoredFiles {
  constructor(
    private readonly board: Board,
    private readonly replay: Replay,
    private readonly now: () => Date,
  ) {}

  /** Verify every `file` evidence ref before the engine runs: it exists and its bytes still match (docs/agents.md "Evidence and uploads"). */
  async checks(evidence: readonly { kind: string; ref: string }[] | undefined): Promise<FileCheck> {
    const results = new Map<string, ReturnType<FileCheck>>();
    for (const item of evidence ?? []) {
      if (item.kind !== 'file' || results.has(item.ref)) continue;
      results.set(item.ref, await this.check(item.ref));
    }
    return (ref) => results.get(ref) ?? { ok: false, problem: 'not found' };
  }

  /**
   * A stored file still verifies when its bytes hash to what its id and its
   * meta.json both say: the id is derived from the bytes' hash, so changing
   * the bytes and meta.json together is still caught (and so is renaming it).
   */
  private async check(ref: string): Promise<ReturnType<FileCheck>> {
    if (!/^f-[0-9a-f]{32}$/.test(ref)) return { ok: false, problem: 'not found' };
    let meta: Buffer | null;
    let bytes: Buffer | null;
    try {
      meta = await this.board.store.readBytes(`files/${ref}/meta.json`);
      bytes = await this.board.store.readBytes(`files/${ref}/content`);
    } catch (e) {
      if (e instanceof BoardError) return { ok: false, problem: `${e.message}; an operator must restore it` };
      throw e;
    }
    if (!meta || !bytes) return { ok: false, problem: 'not found' };
    let recorded: { sha256?: unknown; fileName?: unknown; contentType?: unknown };
    try {
      recorded = (JSON.parse(meta.toString('utf8')) ?? {}) as typeof recorded;
    } catch {
      return { ok: false, problem: 'its meta.json is damaged (not JSON); an operator must restore it' };
    }
    const actual = sha256Hex(bytes);
    if (actual !== recorded.sha256) return { ok: false, problem: 'stored bytes no longer match the hash recorded at upload' };
    if (!idMatches(ref, actual, recorded)) return { ok: false, problem: 'its bytes, name or type no longer match its id (changed after upload); an operator must restore it' };
    return { ok: true, sha256: actual };
  }

  async upload(a: UploadArgs, actor: Actor) {
    const b64 = a.contentBase64;
    if (!/^[A-Za-z0-9+/]*={0,2}$/.test(b64) || b64.length % 4 !== 0) throw new ToolError('invalid', 'contentBase64 is not base64', ['contentBase64: not base64']);
    const bytes = Buffer.from(b64, 'base64');
    const max = this.board.manifest.settings.maxUploadBytes;
    if (bytes.length > max) throw new ToolError('invalid', `the file is ${bytes.length} bytes; the limit is ${max}`, [`contentBase64: ${bytes.length} bytes, over maxUploadBytes ${max}`]);
    const sha256 = sha256Hex(bytes);
    const id = uploadId(sha256, a.fileName, a.contentType);
    const { value } = await this.board.store.apply({ kind: 'board' }, async (reads) => {
      const prior = await this.replay.lookup(reads, 'upload', a, actor);
      if (prior !== undefined) return { value: prior, commit: null };
      const data = { id, sha256, bytes: bytes.length };
      // The same upload again: its files stand, only this request's record is new.
      const fresh = (await this.board.store.readBytes(`files/${id}/meta.json`)) === null;
      const meta = { id, sha256, bytes: bytes.length, fileName: a.fileName, contentType: a.contentType, uploadedBy: actorName(actor), uploadedAt: this.now().toISOString() };
      const commit: Commit = {
        files: [],
        creates: fresh
          ? [
              { rel: `files/${id}/content`, bytes },
              { rel: `files/${id}/meta.json`, bytes: `${JSON.stringify(meta, null, 2)}\n` },
            ]
          : [],
        state: [this.replay.recordOf('upload', a, actor, data)],
        events: fresh ? [{ actor: actorName(actor), action: 'file.uploaded', entity: id, changes: { fileName: a.fileName, bytes: bytes.length, sha256 } }] : [],
      };
      return { value: data, commit };
    });
    return value;
  }
}
