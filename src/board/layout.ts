/**
 * Where everything lives on a board, and which paths are safe. Every id that
 * becomes part of a path is checked here first, so no input can address a
 * file outside the board (no `..`, no separators, no NUL, no absolute paths).
 */
import path from 'node:path';
import { NAME_PATTERN, STEP_ID_PATTERN } from '../process/model.js';
import type { FileKind } from './schemas.js';

export const RUN_ID_PATTERN = /^r-[0-9a-z]{26}$/;

export type Scope = { kind: 'run'; id: string } | { kind: 'board' };

export const WORK_FILE = 'WORK.md';
export const STATE_DIR = '.work';
export const BOARD_CHAIN = 'audit/board.jsonl';
export const RUNS_DIR = 'runs';
/** A run folder's head file, its audit chain, and the lines a merge set aside (docs/git.md "The merge rule"). */
export const RUN_FILE_NAME = 'RUN.md';
export const RUN_CHAIN_FILE = 'audit.jsonl';
export const SUPERSEDED_FILE = 'superseded.jsonl';

/*
 * Everything under `.work/` is named here and nowhere else
 * (docs/architecture.md "The board on disk"); test/architecture/layout-paths.test.ts
 * fails on a `.work/` path spelled in any other file of src/.
 */
/** The private key this board's coordinators sign audit lines with; never committed (see signing.ts). */
export const SIGNING_KEY_FILE = `${STATE_DIR}/audit-key.pem`;
/** Lock files: a scope's, a named one (`lockFile`), a start's request lock. */
export const LOCKS_DIR = `${STATE_DIR}/locks`;
/** Journals: a scope's commit in flight (scopeFiles), and sync's intent (SYNC_INTENT). */
export const JOURNAL_DIR = `${STATE_DIR}/journal`;
/** The commit logs, one per process (commit-log.ts). */
export const LOG_DIR = `${STATE_DIR}/log`;
/** Lock files and journals parked for reuse (spares.ts). */
export const SPARE_DIR = `${STATE_DIR}/spare`;
/** Replay records of calls with a requestId (service/replay.ts). */
export const REQUESTS_DIR = `${STATE_DIR}/requests`;
/** A run's last valid state, served while a hand edit leaves it invalid (service/run-reader.ts). */
export const LAST_VALID_DIR = `${STATE_DIR}/last-valid`;
/** Slack messages sent for work items, to update them as the items move (notify/channels/slack.ts). */
export const SLACK_DIR = `${STATE_DIR}/slack`;
/** The claim tokens' secret (service/tokens.ts). */
export const SECRET_FILE = `${STATE_DIR}/secret`;
/** Bearer tokens, hashed (service/credentials.ts). */
export const TOKENS_FILE = `${STATE_DIR}/tokens.json`;
/** Web sessions, hashed (web/sessions.ts). */
export const SESSIONS_FILE = `${STATE_DIR}/web/sessions.json`;
/** Internal faults with their incident ids (service/incidents.ts). */
export const INCIDENTS_FILE = `${STATE_DIR}/incidents.jsonl`;
/** The run index's cache: open runs and ended runs, each an append-only file (service/run-index-file.ts). */
export const INDEX_DIR = `${STATE_DIR}/index`;
/** The run index's cache before INDEX_DIR, one file rewritten whole: removed once INDEX_DIR is written. */
export const LEGACY_INDEX_FILE = `${STATE_DIR}/index.json`;
/** Decodes of WORK.md kept across processes, by content and build (kept-decodes.ts). */
export const DECODED_DIR = `${STATE_DIR}/decoded`;
/** Each chain's Insights facts (service/run-history.ts). */
export const INSIGHTS_FILE = `${STATE_DIR}/insights.json`;
/** Open runs' states kept between CLI processes (service/open-run-cache.ts). */
export const OPEN_RUNS_FILE = `${STATE_DIR}/open-runs.json`;
/** serve --git-sync's last tries (service/sync-state.ts). */
export const SYNC_STATE_FILE = `${STATE_DIR}/git-sync.json`;
/** The fetch or push a sync has under way, so that the next sync stops one its dead holder left (git/network-git.ts). */
export const NETWORK_GIT_FILE = `${STATE_DIR}/git-network.json`;
/** When each person last had a digest (notify/digests.ts). */
export const DIGESTS_FILE = `${STATE_DIR}/notifications-digests.json`;
/** Runs whose files serve's daemon refused, with why (daemon/daemon.ts, doctor). */
export const REFUSED_FILE = `${STATE_DIR}/refused.json`;

/** A named lock file (`sync`, `replay`, `notify-<name>`, `web-sessions`, …) under LOCKS_DIR. */
export function lockFile(name: string): string {
  if (!/^[a-z0-9][a-z0-9.-]*$/.test(name)) throw new Error(`not a lock name: ${JSON.stringify(name)}`);
  return `${LOCKS_DIR}/${name}.lock`;
}
/** One `workboard sync` (or serve's sync) at a time. */
export const SYNC_LOCK = lockFile('sync');
/** Held while the logs of an earlier boot are replayed (recovery.ts). */
export const REPLAY_LOCK = lockFile('replay');
/** A sync's intent, written before its apply and removed after (docs/architecture.md "Recovery"). */
export const SYNC_INTENT = `${JOURNAL_DIR}/sync.json`;
/** A start's request lock and replay record, by the requestId's SHA-256 (service/replay.ts). */
export function requestLockFile(hash: string): string {
  return `${LOCKS_DIR}/request-${hash}.lock`;
}
export function requestRecordFile(hash: string): string {
  return `${REQUESTS_DIR}/${hash}.json`;
}

export function isRunId(id: string): boolean {
  return RUN_ID_PATTERN.test(id);
}

function assertId(id: string, pattern: RegExp, what: string): void {
  if (!pattern.test(id)) throw new Error(`not a valid ${what}: ${JSON.stringify(id)}`);
}

export const paths = {
  runDir(runId: string): string {
    assertId(runId, RUN_ID_PATTERN, 'run id');
    return `${RUNS_DIR}/${runId}`;
  },
  runFile(runId: string): string {
    return `${paths.runDir(runId)}/${RUN_FILE_NAME}`;
  },
  stepFile(runId: string, stepId: string): string {
    assertId(stepId, STEP_ID_PATTERN, 'step id');
    return `${paths.runDir(runId)}/${stepId}.md`;
  },
  runChain(runId: string): string {
    return `${paths.runDir(runId)}/${RUN_CHAIN_FILE}`;
  },
  processDir(name: string): string {
    assertId(name, NAME_PATTERN, 'process name');
    return `processes/${name}`;
  },
  draft(name: string): string {
    return `${paths.processDir(name)}/PROCESS.md`;
  },
  versionDir(name: string, version: number): string {
    if (!Number.isSafeInteger(version) || version < 1) throw new Error(`not a valid version: ${version}`);
    return `${paths.processDir(name)}/v${version}`;
  },
  /** A file of a run's folder by its name (`audit.jsonl`, `superseded.jsonl`, `<step>.md`). */
  runFileNamed(runId: string, name: string): string {
    return `${paths.runDir(runId)}/${name}`;
  },
  leaseDir(runId: string): string {
    assertId(runId, RUN_ID_PATTERN, 'run id');
    return `${STATE_DIR}/leases/${runId}`;
  },
  lastValid(runId: string): string {
    assertId(runId, RUN_ID_PATTERN, 'run id');
    return `${LAST_VALID_DIR}/${runId}.json`;
  },
};

const RUN_PATH = new RegExp(`^${RUNS_DIR}/([^/]+)/([^/]+)$`);

/**
 * A path inside a run's folder, `runs/<id>/<name>`, as its run id and file
 * name; null for any other path. The one reading of run paths that git's
 * files (merge, history, sync) share. The id is not checked: a tree from git
 * may hold anything, and the caller says what it makes of a bad one.
 */
export function runPathOf(rel: string): { runId: string; name: string } | null {
  const [, runId, name] = RUN_PATH.exec(rel) ?? [];
  return runId !== undefined && name !== undefined ? { runId, name } : null;
}

/** The board's branches a merge set aside, beside its chain. */
export const BOARD_SUPERSEDED = `audit/${SUPERSEDED_FILE}`;

/** The files `audit verify` calls chains: the board's under audit/ (not the branches set aside), and each run folder's. */
export function isChainPath(rel: string): boolean {
  const run = runPathOf(rel);
  if (run !== null) return run.name === RUN_CHAIN_FILE && isRunId(run.runId);
  return /^audit\/[^/]+\.jsonl$/.test(rel) && rel !== BOARD_SUPERSEDED;
}

/** The chain a path is, or holds the set-aside branches of (`…/superseded.jsonl`); null for any other path. */
export function chainOfPath(rel: string): string | null {
  if (isChainPath(rel)) return rel;
  if (rel === BOARD_SUPERSEDED) return BOARD_CHAIN;
  const run = runPathOf(rel);
  return run !== null && run.name === SUPERSEDED_FILE && isRunId(run.runId) ? paths.runChain(run.runId) : null;
}

/**
 * `.work/changes`: one line per commit naming its scope (`run r-…` or `board`),
 * appended without fsync. A hint that lets indexes re-read only what changed;
 * never a record (the audit chains are).
 */
export const CHANGES_FILE = `${STATE_DIR}/changes`;

/** The lock, journal, audit chain and directories that belong to one scope. */
export function scopeFiles(scope: Scope): { name: string; lock: string; journal: string; chain: string; head: string | null; dirs: string[] } {
  if (scope.kind === 'board') {
    return { name: 'board', lock: `${LOCKS_DIR}/board.lock`, journal: `${JOURNAL_DIR}/board.json`, chain: BOARD_CHAIN, head: null, dirs: ['.', 'audit'] };
  }
  const dir = paths.runDir(scope.id);
  return {
    name: `run ${scope.id}`,
    lock: `${LOCKS_DIR}/run-${scope.id}.lock`,
    journal: `${JOURNAL_DIR}/run-${scope.id}.json`,
    chain: paths.runChain(scope.id),
    head: paths.runFile(scope.id),
    dirs: [dir, paths.leaseDir(scope.id)],
  };
}

/** The scope a journal or lock file's name stands for (`board.json`, `run-r-….lock`: scopeFiles' names), or null. */
export function scopeOfStateName(name: string, ext: '.json' | '.lock'): Scope | null {
  if (name === `board${ext}`) return { kind: 'board' };
  const id = name.startsWith('run-') && name.endsWith(ext) ? name.slice(4, name.length - ext.length) : '';
  return isRunId(id) ? { kind: 'run', id } : null;
}

/** Which schema a committed markdown file is checked against, by where it lives. */
export function fileKind(rel: string): FileKind | null {
  if (rel === WORK_FILE) return 'work';
  if (/^processes\/[^/]+\/v\d+\/VERSION\.md$/.test(rel)) return 'version';
  const run = runPathOf(rel);
  if (run === null || !run.name.endsWith('.md')) return null;
  return run.name === RUN_FILE_NAME ? 'run' : 'step';
}

/**
 * The normal form of a path relative to the board root, or null when it is
 * not a path to a file inside the board (absolute, `..`, NUL, backslashes, empty).
 */
export function normalizeRel(rel: string): string | null {
  if (typeof rel !== 'string' || rel === '' || rel.includes('\0') || rel.includes('\\') || path.isAbsolute(rel)) return null;
  const norm = path.posix.normalize(rel);
  if (norm === '.' || norm === '..' || norm.startsWith('../') || norm.endsWith('/')) return null;
  return norm;
}

/** Uncommitted coordinator state: never audited, never part of board truth. */
export function isStatePath(rel: string): boolean {
  const norm = normalizeRel(rel);
  return norm !== null && norm.startsWith(`${STATE_DIR}/`);
}

/** Where a running `serve --http` listens, for links made by other processes (see served-at.ts). */
export const SERVED_AT = `${STATE_DIR}/serve.json`;

/** flow-1: the runs a run's commit starts, `<runId>-<childId>.json`, until each exists (docs/profile-flow-1.md "8. All or nothing"). */
export const STARTS_DIR = `${STATE_DIR}/starts`;

/** The notification outbox; a run's notifications are named `<runId>-<id>.json` and commit with the run. */
export const OUTBOX_DIR = `${STATE_DIR}/notifications`;

/** The rungs of its reminder ladders a run's work items were sent (notify/ladder.ts), written in the run's commits. */
export const REMINDERS_DIR = `${STATE_DIR}/reminders`;

/**
 * May a transaction on this scope write this (normalised) path? A run's
 * transaction writes only that run's folder, its leases and its
 * notifications; the board's
 * writes everything else that is committed. Audit chains are appended by
 * the store alone, never written.
 */
export function scopeOwns(scope: Scope, rel: string): boolean {
  if (rel.endsWith('.jsonl')) return false;
  if (scope.kind === 'run') {
    return (
      rel.startsWith(`${paths.runDir(scope.id)}/`) ||
      rel.startsWith(`${paths.leaseDir(scope.id)}/`) ||
      rel.startsWith(`${REQUESTS_DIR}/`) ||
      rel.startsWith(`${OUTBOX_DIR}/${scope.id}-`) ||
      rel === `${REMINDERS_DIR}/${scope.id}.json` ||
      rel.startsWith(`${STARTS_DIR}/${scope.id}-`)
    );
  }
  return !rel.startsWith(`${RUNS_DIR}/`) && !rel.startsWith(`${STATE_DIR}/leases/`) && !rel.startsWith(`${LOCKS_DIR}/`) && !rel.startsWith(`${JOURNAL_DIR}/`);
}
