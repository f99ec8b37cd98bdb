/** WORK.md: the board's name, settings, limits, people, agents and where notifications go. Never a secret. */
import type { Issue } from '../core/issues.js';
import { isTimeZone } from '../words/index.js';
import { reminderIssues, remindersFrom, type Reminders } from './ladders.js';
import type { Delegation } from '../engine/delegation.js';
import { viewIssues, viewsFrom, type SavedView } from '../engine/saved-views.js';

export interface Settings {
  leaseSeconds: number;
  lockStaleSeconds: number;
  runDataBytes: number;
  maxUploadBytes: number;
  checkPass: number;
  checkFail: number | null;
  checkConfidence: number;
  checkStateBytes: number;
}

export const DEFAULT_SETTINGS: Settings = {
  leaseSeconds: 600,
  lockStaleSeconds: 30,
  runDataBytes: 256 * 1024,
  maxUploadBytes: 10 * 1024 * 1024,
  checkPass: 0.9,
  checkFail: null,
  checkConfidence: 0.8,
  checkStateBytes: 64 * 1024,
};

/**
 * Who answers check-1 questions: an OpenAI-compatible chat-completions
 * endpoint, or a local command. Configured here, never in a process file;
 * the API key is named by an environment variable, never written down.
 */
export type EvaluatorConfig = ({ kind: 'chat'; url: string; model: string; apiKeyEnv?: string; jsonMode: boolean } | { kind: 'command'; command: string; args: string[]; model?: string }) & {
  timeoutSeconds: number;
};

export const DEFAULT_EVALUATOR_TIMEOUT_SECONDS = 60;

/** How a person is told of new work: each event by email, one digest per interval, or not at all. */
export type NotifyPreference = 'email' | 'digest' | 'none';

export interface Person {
  email: string;
  name?: string;
  notify?: NotifyPreference;
  /** The emails this person had before `person rename`: runs and audit lines that name them are still theirs. */
  formerEmails?: string[];
  /** Their Slack user id, declared (docs/operators.md "Slack"): a click in Slack is this person's only when it names this id. */
  slack?: string;
}

export interface Agent {
  id: string;
  description?: string;
  /** The processes it may start and claim steps of; absent: all. */
  processes?: string[];
}

/** Where notifications go besides the `notify` command (see src/notify/). Secrets are named, never written. */
export interface NotificationsConfig {
  baseUrl: string | null;
  /** The IANA zone messages give times in. */
  timeZone: string;
  digestMinutes: number;
  maxAttempts: number;
  webhook: { url: string; secretEnv?: string; secretFile?: string } | null;
  email: { from: string; smtp: { host: string; port?: number; secure?: boolean; userEnv?: string; passwordEnv?: string } } | null;
  /** A Slack channel with decision buttons (docs/operators.md "Slack"); absent from WORK.md: none, and nothing of Slack is done. */
  slack?: SlackConfig | null;
}

export interface SlackConfig {
  channel: string;
  botTokenEnv?: string;
  botTokenFile?: string;
  signingSecretEnv?: string;
  signingSecretFile?: string;
  apiUrl?: string;
}

export const DEFAULT_DIGEST_MINUTES = 60;
export const DEFAULT_TIME_ZONE = 'UTC';

/**
 * The board format this workboard writes, and the newest it reads
 * (docs/operations.md, Board format versions). WORK.md's `format` records the
 * format that wrote the board; a board without it is format 1 (every board
 * written before formats were recorded, from the first release on, reads as
 * format 1 unchanged). `workboard upgrade` brings an older board to this one.
 */
export const BOARD_FORMAT = 1;

/** The format WORK.md's frontmatter says, 1 when it says none (or nothing this build can read as one). */
export function boardFormat(data: Record<string, unknown>): number {
  const f = data.format;
  return typeof f === 'number' && Number.isInteger(f) && f >= 1 ? f : 1;
}

/** Why this workboard must not touch a board, in one line, when a newer workboard wrote it; else null. */
export function newerFormat(data: Record<string, unknown>): string | null {
  const f = boardFormat(data);
  return f > BOARD_FORMAT ? `this board is format ${f}, written by a newer workboard; this workboard reads formats up to ${BOARD_FORMAT}: install a newer workboard (nothing was changed)` : null;
}

/** What the schema cannot tell: whether `notifications.timeZone` is a zone this Node knows ("Europe/Atlantis" has the shape of one), and whether the format is one this build reads. */
export function manifestIssues(data: Record<string, unknown>): Issue[] {
  const newer = newerFormat(data);
  if (newer) return [{ path: 'format', message: newer }];
  const tz = (data.notifications as { timeZone?: unknown } | undefined)?.timeZone;
  const zone: Issue[] = typeof tz !== 'string' || isTimeZone(tz) ? [] : [{ path: 'notifications.timeZone', message: `"${tz}" is not an IANA time zone (e.g. Europe/Berlin, America/New_York, UTC)` }];
  return [...zone, ...reminderIssues(data), ...slackIdsTwice(data), ...viewIssues(data)];
}
/** A Slack user id declared for two people would make a click nobody's in particular: each is named. */
function slackIdsTwice(data: Record<string, unknown>): Issue[] {
  const people = Array.isArray(data.people) ? (data.people as unknown[]) : [];
  const seen = new Map<string, number>();
  const issues: Issue[] = [];
  people.forEach((p, i) => {
    const id = typeof p === 'object' && p !== null && 'slack' in p && typeof p.slack === 'string' ? p.slack : null;
    if (id === null) return;
    const first = seen.get(id);
    if (first === undefined) seen.set(id, i);
    else issues.push({ path: `people.${i}.slack`, message: `the Slack user ${id} is declared for people ${first + 1} and ${i + 1}: one Slack user is one person` });
  });
  return issues;
}

export const DEFAULT_MAX_ATTEMPTS = 8;

export interface Manifest {
  name: string;
  title: string;
  description: string;
  settings: Settings;
  people: Person[];
  groups: Record<string, string[]>;
  operators: string[];
  agents: Agent[];
  notify: { command: string; args: string[] } | null;
  notifications: NotificationsConfig;
  /** Four eyes: processes whose approvals their initiator or an earlier step's completer may not decide. */
  fourEyes: boolean | string[];
  evaluator: EvaluatorConfig | null;
  /** Reminder and escalation ladders (docs/operators.md "Reminders and escalation ladders"); absent: none. */
  reminders?: Reminders;
  /** Out of office: who has handed their work to whom, until when (docs/people.md "Out of office"); manifestFrom always fills it. */
  delegations?: Delegation[];
  /** Saved views (docs/operators.md "Saved views"); the first is the default. Empty when WORK.md declares none. */
  views: SavedView[];
}

/** The manifest from WORK.md's parsed frontmatter (a BoardDoc fits; only its data is read, which keeps this file below document.ts). */
export function manifestFrom(doc: { data: Record<string, unknown> }): Manifest {
  const d = doc.data as {
    name: string;
    title: string;
    description: string;
    coordination?: Partial<Pick<Settings, 'leaseSeconds' | 'lockStaleSeconds'>>;
    limits?: Partial<Pick<Settings, 'runDataBytes' | 'maxUploadBytes' | 'checkPass' | 'checkFail' | 'checkConfidence' | 'checkStateBytes'>>;
    people?: Person[];
    groups?: Record<string, string[]>;
    operators?: string[];
    agents?: Agent[];
    notify?: { command: string; args?: string[] };
    notifications?: Partial<Omit<NotificationsConfig, 'webhook' | 'email' | 'slack'>> & Pick<Partial<NotificationsConfig>, 'webhook' | 'email' | 'slack'>;
    fourEyes?: boolean | string[];
    evaluator?: { chat?: { url: string; model: string; apiKeyEnv?: string; jsonMode?: boolean }; command?: string; args?: string[]; model?: string; timeoutSeconds?: number };
    reminders?: unknown;
    delegations?: Delegation[];
  };
  return {
    name: d.name,
    title: d.title,
    description: d.description,
    settings: { ...DEFAULT_SETTINGS, ...(d.coordination ?? {}), ...(d.limits ?? {}) },
    people: d.people ?? [],
    groups: d.groups ?? {},
    operators: d.operators ?? [],
    agents: d.agents ?? [],
    notify: d.notify ? { command: d.notify.command, args: d.notify.args ?? [] } : null,
    notifications: {
      baseUrl: d.notifications?.baseUrl ?? null,
      timeZone: d.notifications?.timeZone ?? DEFAULT_TIME_ZONE,
      digestMinutes: d.notifications?.digestMinutes ?? DEFAULT_DIGEST_MINUTES,
      maxAttempts: d.notifications?.maxAttempts ?? DEFAULT_MAX_ATTEMPTS,
      webhook: d.notifications?.webhook ?? null,
      email: d.notifications?.email ?? null,
      ...(d.notifications?.slack ? { slack: d.notifications.slack } : {}),
    },
    fourEyes: d.fourEyes ?? false,
    evaluator: evaluatorFrom(d.evaluator),
    reminders: remindersFrom(d.reminders),
    delegations: d.delegations ?? [],
    views: viewsFrom(doc.data),
  };
}

function evaluatorFrom(
  e: { chat?: { url: string; model: string; apiKeyEnv?: string; jsonMode?: boolean }; command?: string; args?: string[]; model?: string; timeoutSeconds?: number } | undefined,
): EvaluatorConfig | null {
  if (!e) return null;
  const timeoutSeconds = e.timeoutSeconds ?? DEFAULT_EVALUATOR_TIMEOUT_SECONDS;
  if (e.chat) return { kind: 'chat', url: e.chat.url, model: e.chat.model, ...(e.chat.apiKeyEnv ? { apiKeyEnv: e.chat.apiKeyEnv } : {}), jsonMode: e.chat.jsonMode ?? true, timeoutSeconds };
  if (e.command) return { kind: 'command', command: e.command, args: e.args ?? [], ...(e.model ? { model: e.model } : {}), timeoutSeconds };
  return null;
}

/** The frontmatter of a new board's WORK.md. */
export function newManifestData(name: string, title: string, description: string): Record<string, unknown> {
  return {
    schema: 'workboard/v1',
    name,
    title,
    description,
    coordination: { leaseSeconds: DEFAULT_SETTINGS.leaseSeconds, lockStaleSeconds: DEFAULT_SETTINGS.lockStaleSeconds },
    limits: { runDataBytes: DEFAULT_SETTINGS.runDataBytes, maxUploadBytes: DEFAULT_SETTINGS.maxUploadBytes },
    people: [],
    groups: {},
    operators: [],
    agents: [],
  };
}
