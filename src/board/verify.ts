/**
 * `workboard audit verify`: check every chain on the board (links, and the
 * signature of every line against the committed keys, or only the keys an
 * auditor pinned), and that every file a chain records still has the bytes it recorded. The second check is
 * what catches a chain cut short at its end, which links alone cannot. A scope
 * whose writer stopped past its commit point is read through its journal, as
 * a lock-free reader reads it: verified as the commit leaves it, and said to be pending.
 */
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { sha256Hex } from '../core/hash.js';
import { contentHash, recordedFiles, verifyChain, type AuditEvent } from './audit.js';
import { wholeVersion } from './adopt.js';
import { decodeDoc } from './document.js';
import { parseSuperseded, supersededBreaks, supersededPathFor, vouchedLines } from './superseded.js';
import type { Board } from './board.js';
import { chainWithPending } from './chain-file.js';
import { findLogs, readLog } from './log-files.js';
import { BoardError } from './errors.js';
import { KEY_DIR, keyRing, signatureBreaks, trustedKeys, type KeyRing } from './signing.js';
import { isCode, TEMP_MARK } from './fsutil.js';
import { BROKEN_JOURNAL, type PendingCommit } from './journal.js';
import { BOARD_CHAIN, isRunId, paths, WORK_FILE, type Scope } from './layout.js';
import { listProcessNames, listVersions } from './processes.js';

export interface ChainResult {
  file: string;
  events: number;
  /** Valid board files changed outside the board's writers (a hand edit, a merge), adopted at the next write. */
  arrived?: string[];
  /** Branches a merge set aside beside this chain (superseded.jsonl), each verified. */
  superseded?: number;
  breaks: { file: string; line: number | null; reason: string }[];
  /** Set when the chain's scope has a commit in flight or left by a writer that stopped: what was verified. */
  pending?: string;
}

export interface VerifyReport {
  ok: boolean;
  chains: ChainResult[];
  /** The signing keys on record, and whether the auditor's pins reach each. */
  keys: { fingerprint: string; host: string; createdAt: string; rotates?: string; trusted: boolean }[];
  /** Lines written before their chain was first signed (boards older than signing). */
  unsigned: number;
  /**
   * Commit logs of an earlier boot of this host that still hold commits (a power loss came before
   * their checkpoint): what they hold may be missing from the files verified here until recovery
   * replays them (`workboard doctor`, `serve`, or any command's first write).
   */
  unreplayed: string[];
}

export interface VerifyOptions {
  /** Fingerprints the auditor trusts from outside the board; then every line must be signed by one (or a key rotated from one). */
  pins?: readonly string[];
  onProgress?: (done: number, total: number) => void;
  /**
   * Check only these chains (as listChains names them: `audit/board.jsonl`, `runs/<id>/audit.jsonl`), in this
   * order, instead of every chain on the board; the key records are checked either way. A chain named that
   * does not exist is reported missing, as a run without a chain is.
   */
  chains?: readonly string[];
}

/** The committed key records under audit/keys/, each checked as it is read. */
async function readKeyRing(board: Board, breaks: ChainResult['breaks']): Promise<KeyRing> {
  const records: { file: string; value: unknown }[] = [];
  const names = (board.listing.names(KEY_DIR) ?? []).filter((n) => n.endsWith('.json'));
  for (const n of names) {
    const file = `${KEY_DIR}/${n}`;
    const r = await readForVerify(board, file);
    if ('problem' in r) {
      breaks.push({ file, line: null, reason: r.problem });
      continue;
    }
    try {
      records.push({ file, value: JSON.parse(r.bytes?.toString('utf8') ?? 'null') });
    } catch {
      breaks.push({ file, line: null, reason: 'not JSON' });
    }
  }
  const ring = keyRing(records);
  for (const p of ring.problems) breaks.push({ file: p.file, line: null, reason: p.reason });
  return ring;
}

export async function listChains(board: Board): Promise<string[]> {
  const chains = [BOARD_CHAIN];
  for (const r of board.listing.names('runs') ?? []) if (isRunId(r)) chains.push(paths.runChain(r));
  return chains;
}

/** The committed files a chain must account for: a run's folder, or the board's manifest and published versions. */
async function trackedFiles(board: Board, chain: string): Promise<string[]> {
  const list = async (dir: string) => {
    try {
      // Dirents, not listing.stat: a link is not one of the board's files (stat would follow it).
      return (await fs.readdir(path.join(board.root, dir), { withFileTypes: true })).filter((e) => e.isFile()).map((e) => `${dir}/${e.name}`);
    } catch (e) {
      if (isCode(e, 'ENOENT', 'ENOTDIR')) return [];
      throw e;
    }
  };
  if (chain !== BOARD_CHAIN) {
    const dir = chain.slice(0, chain.lastIndexOf('/'));
    return (await list(dir)).filter((f) => f.endsWith('.md') && !f.includes(TEMP_MARK));
  }
  const out = [WORK_FILE];
  for (const name of await listProcessNames(board)) {
    for (const v of await listVersions(board, name)) out.push(...(await list(paths.versionDir(name, v))).filter((f) => !f.includes(TEMP_MARK)));
  }
  return out;
}

/**
 * A board file's bytes for verification, never through a symbolic link; a
 * file that cannot be read as one (a link, a folder) is a break, not a crash.
 */
async function readForVerify(board: Board, rel: string): Promise<{ bytes: Buffer | null } | { problem: string }> {
  try {
    return { bytes: await board.store.readBytes(rel, { fresh: true }) };
  } catch (e) {
    if (e instanceof BoardError) return { problem: e.issues[0]?.message ? `${e.issues[0].path}: ${e.issues[0].message} (not followed)` : e.message };
    throw e;
  }
}

function scopeOfChain(chain: string): Scope {
  return chain === BOARD_CHAIN ? { kind: 'board' } : { kind: 'run', id: chain.split('/')[1]! };
}

const PENDING = {
  whole: 'a commit past its commit point is pending (its writer stopped or is still at it): verified as it completes; the next write or workboard doctor finishes it',
  unstarted: 'a commit that never reached its commit point left its journal: verified as it stands; the next write or workboard doctor discards it',
} as const;

/** A chain's text and a reader of the files it records, through the scope's pending commit when there is one. */
async function readThrough(board: Board, file: string, pending: PendingCommit | null): Promise<{ text: string | null; read: (rel: string) => ReturnType<typeof readForVerify> } | { problem: string }> {
  const read = (rel: string) => readForVerify(board, pending?.sources.get(rel) ?? rel);
  const chain = await readForVerify(board, file);
  if ('problem' in chain) return chain;
  const text = chain.bytes?.toString('utf8') ?? null;
  if (pending?.state !== 'whole') return { text, read };
  try {
    return { text: chainWithPending(file, text ?? '', pending.lines, pending.firstSeq), read };
  } catch (e) {
    if (e instanceof BoardError) return { problem: `${e.message} (${pending.journal})` };
    throw e;
  }
}

export async function verifyBoard(board: Board, opts: VerifyOptions = {}): Promise<VerifyReport> {
  const { onProgress } = opts;
  const pins = opts.pins ?? [];
  const chains: ChainResult[] = [];
  const keyBreaks: ChainResult['breaks'] = [];
  const ring = await readKeyRing(board, keyBreaks);
  const trusted = trustedKeys(ring, pins);
  for (const p of pins) if (!ring.keys.has(p)) keyBreaks.push({ file: KEY_DIR, line: null, reason: `the pinned key ${p} is not on record on this board` });
  if (keyBreaks.length > 0) chains.push({ file: KEY_DIR, events: 0, breaks: keyBreaks });
  let unsigned = 0;
  const all = opts.chains ? [...opts.chains] : await listChains(board);
  for (const [i, file] of all.entries()) {
    onProgress?.(i, all.length);
    const pending = await board.store.pendingCommit(scopeOfChain(file));
    if (pending?.state === 'broken') {
      chains.push({ file, events: 0, breaks: [{ file: pending.journal, line: null, reason: BROKEN_JOURNAL }] });
      continue;
    }
    const note = pending ? { pending: PENDING[pending.state] } : {};
    const through = await readThrough(board, file, pending);
    if ('problem' in through) {
      chains.push({ file, events: 0, breaks: [{ file, line: null, reason: through.problem }], ...note });
      continue;
    }
    const { text, read } = through;
    if (text === null) {
      // A start that never reached its commit point has no chain yet, and no run either.
      if (pending) chains.push({ file, events: 0, breaks: [], ...note });
      else if (file !== BOARD_CHAIN) chains.push({ file, events: 0, breaks: [{ file, line: null, reason: 'missing: the run has no audit chain' }] });
      continue;
    }
    const report = verifyChain(text);
    const breaks: ChainResult['breaks'] = report.breaks.map((b) => ({ file, line: b.line, reason: b.reason }));
    if (report.breaks.length === 0) {
      const aside = await board.store.readBytes(supersededPathFor(file), { fresh: true }).catch(() => null);
      const vouched = vouchedLines(report.events, aside === null ? [] : parseSuperseded(aside.toString('utf8')).branches);
      const lines = report.events.map((e, i) => ({ content: contentHash(e), ts: e.ts, signer: e.signer, sig: e.sig, vouched: vouched.has(i) }));
      for (const b of signatureBreaks(lines, ring, trusted, pins.length > 0)) breaks.push({ file, line: b.line, reason: b.reason });
      const firstSigned = report.events.findIndex((e) => e.sig !== undefined);
      unsigned += firstSigned < 0 ? report.events.length : firstSigned;
    }
    const recorded = recordedFiles(report.events);
    const arrived: string[] = [];
    // WORK.md and published versions change through git too (a pull request, a merge): a valid one is waiting to be adopted, not broken.
    const unrecorded = async (rel: string, reason: string) => {
      if (file === BOARD_CHAIN && (await arrivedValid(board, rel, recorded))) arrived.push(rel);
      else breaks.push({ file: rel, line: null, reason });
    };
    for (const rel of await trackedFiles(board, file)) {
      if (!recorded.has(rel)) await unrecorded(rel, `not recorded by any event of ${file} (added outside workboard, or audit lines removed)`);
    }
    for (const [rel, rec] of recorded) {
      const r = await read(rel);
      if ('problem' in r) {
        breaks.push({ file: rel, line: null, reason: r.problem });
        continue;
      }
      const cur = r.bytes;
      if (cur === null) breaks.push({ file: rel, line: null, reason: `missing, but ${file} records rev ${rec.rev}` });
      else if (sha256Hex(cur) !== rec.sha256) await unrecorded(rel, `differs from its last audited state in ${file} (an external edit not yet adopted, or audit lines removed)`);
    }
    const setAside = await verifySetAside(board, file, report.events, ring, trusted, pins.length > 0);
    breaks.push(...setAside.breaks);
    chains.push({ file, events: report.events.length, breaks, ...note, ...(arrived.length > 0 ? { arrived } : {}), ...(setAside.branches > 0 ? { superseded: setAside.branches } : {}) });
  }
  const keys = [...ring.keys.values()].map((k) => ({
    fingerprint: k.fingerprint,
    host: k.host,
    createdAt: k.createdAt,
    ...(k.rotates ? { rotates: k.rotates } : {}),
    trusted: trusted.has(k.fingerprint),
  }));
  const unreplayed = findLogs(board.root, null)
    .filter((l) => l.kind === 'earlier-boot' && holdsCommits(path.join(board.root, l.rel)))
    .map((l) => l.rel);
  return { ok: chains.every((c) => c.breaks.length === 0), chains, keys, unsigned, unreplayed };
}

/** Does a log hold any whole record? One removed meanwhile (a recovery in another process replayed it) holds none. */
function holdsCommits(file: string): boolean {
  try {
    return readLog(file).records.length > 0;
  } catch (e) {
    if (isCode(e, 'ENOENT')) return false;
    throw e;
  }
}

/**
 * Is a board file that the board's chain does not account for a valid
 * arrival rather than a chain cut short? WORK.md edited in place (a hand
 * edit, a merge as data) reads and checks at a rev no higher than the chain
 * records; a rev above it means the chain lost the line that wrote it. A
 * published version is whole and was recorded by a line a merge set aside
 * (audit/superseded.jsonl): published on the other clone.
 */
async function arrivedValid(board: Board, rel: string, recorded: ReadonlyMap<string, { rev: number; sha256: string }>): Promise<boolean> {
  const bytes = await board.store.readBytes(rel, { fresh: true }).catch(() => null);
  if (bytes === null) return false;
  if (rel === WORK_FILE) {
    const known = recorded.get(rel);
    const doc = decodeDoc(rel, bytes);
    return known !== undefined && doc.ok && doc.doc.rev <= known.rev;
  }
  const m = /^(processes\/[^/]+\/v\d+)\/(VERSION|PROCESS)\.md$/.exec(rel);
  if (m === null || typeof (await wholeVersion(board, m[1]!).catch(() => 'damaged')) !== 'object') return false;
  const aside = await board.store.readBytes(supersededPathFor(BOARD_CHAIN), { fresh: true }).catch(() => null);
  if (aside === null) return false;
  const sha = sha256Hex(bytes);
  const setAside = recordedFiles(parseSuperseded(aside.toString('utf8')).branches.flatMap((b) => b.lines));
  return setAside.get(rel)?.sha256 === sha;
}

/** The branches a merge set aside beside a chain: whole, forking from it, linked, hashed and signed. */
async function verifySetAside(
  board: Board,
  chain: string,
  main: AuditEvent[],
  ring: KeyRing,
  trusted: ReadonlySet<string>,
  strict: boolean,
): Promise<{ branches: number; breaks: ChainResult['breaks'] }> {
  const rel = supersededPathFor(chain);
  const bytes = await board.store.readBytes(rel, { fresh: true }).catch(() => null);
  if (bytes === null) return { branches: 0, breaks: [] };
  const { branches, problems } = parseSuperseded(bytes.toString('utf8'));
  const breaks: ChainResult['breaks'] = problems.map((p) => ({ file: rel, line: p.line, reason: p.reason }));
  for (const b of supersededBreaks(branches, main)) breaks.push({ file: rel, line: b.branch, reason: b.line === null ? b.reason : `line ${b.line} of the branch: ${b.reason}` });
  branches.forEach((br, i) => {
    const vouched = vouchedLines([...main, ...br.lines], branches);
    const lines = br.lines.map((e, j) => ({ content: contentHash(e), ts: e.ts, signer: e.signer, sig: e.sig, vouched: vouched.has(main.length + j) }));
    for (const b of signatureBreaks(lines, ring, trusted, strict)) breaks.push({ file: rel, line: i + 1, reason: `line ${b.line} of the branch: ${b.reason}` });
  });
  return { branches: branches.length, breaks };
}
