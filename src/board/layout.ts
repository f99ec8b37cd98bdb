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
/** The private key this board's coordinators sign audit lines with; never committed (see signing.ts). */
export const SIGNING_KEY_FILE = `${STATE_DIR}/audit-key.pem`;

export function isRunId(id: string): boolean {
  return RUN_ID_PATTERN.test(id);
}

function assertId(id: string, pattern: RegExp, what: string): void {
  if (!pattern.test(id)) throw new Error(`not a valid ${what}: ${JSON.stringify(id)}`);
}

export const paths = {
  runDir(runId: string): string {
    assertId(runId, RUN_ID_PATTERN, 'run id');
    return `runs/${runId}`;
  },
  runFile(runId: string): string {
    return `${paths.runDir(runId)}/RUN.md`;
  },
  stepFile(runId: string, stepId: string): string {
    assertId(stepId, STEP_ID_PATTERN, 'step id');
    return `${paths.runDir(runId)}/${stepId}.md`;
  },
  runChain(runId: string): string {
    return `${paths.runDir(runId)}/audit.jsonl`;
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
  leaseDir(runId: string): string {
    assertId(runId, RUN_ID_PATTERN, 'run id');
    return `${STATE_DIR}/leases/${runId}`;
  },
};

/**
 * `.work/changes`: one line per commit naming its scope (`run r-…` or `board`),
 * appended without fsync. A hint that lets indexes re-read only what changed;
 * never a record (the audit chains are).
 */
export const CHANGES_FILE = `${STATE_DIR}/changes`;

/** The lock, journal, audit chain and directories that belong to one scope. */
export function scopeFiles(scope: Scope): { name: string; lock: string; journal: string; chain: string; head: string | null; dirs: string[] } {
  if (scope.kind === 'board') {
    return { name: 'board', lock: `${STATE_DIR}/locks/board.lock`, journal: `${STATE_DIR}/journal/board.json`, chain: BOARD_CHAIN, head: null, dirs: ['.', 'audit'] };
  }
  const dir = paths.runDir(scope.id);
  return {
    name: `run ${scope.id}`,
    lock: `${STATE_DIR}/locks/run-${scope.id}.lock`,
    journal: `${STATE_DIR}/journal/run-${scope.id}.json`,
    chain: paths.runChain(scope.id),
    head: paths.runFile(scope.id),
    dirs: [dir, paths.leaseDir(scope.id)],
  };
}

/** Which schema a committed markdown file is checked against, by where it lives. */
export function fileKind(rel: string): FileKind | null {
  if (rel === WORK_FILE) return 'work';
  if (/^processes\/[^/]+\/v\d+\/VERSION\.md$/.test(rel)) return 'version';
  if (/^runs\/[^/]+\/RUN\.md$/.test(rel)) return 'run';
  if (/^runs\/[^/]+\/[^/]+\.md$/.test(rel)) return 'step';
  return null;
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
      rel.startsWith(`${STATE_DIR}/requests/`) ||
      rel.startsWith(`${OUTBOX_DIR}/${scope.id}-`) ||
      rel === `${REMINDERS_DIR}/${scope.id}.json` ||
      rel.startsWith(`${STARTS_DIR}/${scope.id}-`)
    );
  }
  return !rel.startsWith('runs/') && !rel.startsWith(`${STATE_DIR}/leases/`) && !rel.startsWith(`${STATE_DIR}/locks/`) && !rel.startsWith(`${STATE_DIR}/journal/`);
}
