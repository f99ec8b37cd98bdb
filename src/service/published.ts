/**
 * Reads for the people's views that go beside the tools: a published
 * version as runs pin it, a process's versions, a run's audit timeline
 * verified as read, and a stored file. Never part of a tool's answer, so the
 * protocol's results stay exactly as the spec says; the web app and the CLI
 * read the board only through these and the tools.
 */
import type { Board } from '../board/board.js';
import { verifyChain, type AuditEvent, type ChainBreak } from '../board/audit.js';
import { isRunId, paths } from '../board/layout.js';
import { listVersions, loadVersion, type PublishedVersion } from '../board/processes.js';
import { FULL_OFFER } from '../protocol/offer.js';
import { supersededOf } from './superseded.js';

export type { AuditEvent, PublishedVersion };

/** A run's audit lines as verified when read, with the branches a merge set aside (`after`: the seq they forked at). */
export interface RunTimeline {
  events: AuditEvent[];
  breaks: ChainBreak[];
  superseded: { after: number; events: AuditEvent[] }[];
}

/** A file stored by `upload`: its bytes, with the name and type it was uploaded under when its meta still reads. */
export interface StoredFile {
  bytes: Buffer;
  fileName: unknown;
  contentType: unknown;
}

/**
 * A published version, or null when the board has no such version or cannot
 * read it. Loaded with the full offer, as `get_run` loads it: publication is
 * where the offer is enforced, so a version stays readable when WORK.md later
 * drops a profile (say, the evaluator that check-1 needs).
 */
export function processVersion(board: Board, name: string, version: number): Promise<PublishedVersion | null> {
  return loadVersion(board, name, version, FULL_OFFER).catch(() => null);
}

/** The versions of a process published on this board, oldest first (none for an unknown name). */
export function processVersions(board: Board, name: string): Promise<number[]> {
  return listVersions(board, name);
}

/** A run's audit timeline, or null when the run has no audit file. */
export async function runTimeline(board: Board, runId: string): Promise<RunTimeline | null> {
  if (!isRunId(runId)) return null;
  const bytes = await board.store.readBytes(paths.runChain(runId)).catch(() => null);
  if (bytes === null) return null;
  const report = verifyChain(bytes.toString('utf8'));
  const setAside = await supersededOf(board, runId).catch(() => []);
  return { events: report.events, breaks: report.breaks, superseded: setAside.map((b) => ({ after: b.fork.seq, events: b.lines })) };
}

/** A stored file by its ref (f-…), or null when there is none. A damaged meta.json leaves the name and type unknown. */
export async function storedFile(board: Board, ref: string): Promise<StoredFile | null> {
  if (!/^f-[0-9a-f]{32}$/.test(ref)) return null;
  const [meta, bytes] = await Promise.all([board.store.readBytes(`files/${ref}/meta.json`), board.store.readBytes(`files/${ref}/content`)]);
  if (!meta || !bytes) return null;
  let m: { fileName?: unknown; contentType?: unknown } = {};
  try {
    m = JSON.parse(meta.toString('utf8')) as typeof m;
  } catch {
    // a damaged meta.json: still downloadable, under a neutral name and type
  }
  return { bytes, fileName: m.fileName, contentType: m.contentType };
}
