/**
 * Audit lines in words, for people: `workboard log`, the textconv that
 * `git log -p` shows (`workboard audit-text`) and the commit messages of
 * `serve --git-commit` all say a line the same way, and so does the run
 * page's timeline. People are named as WORK.md names them, processes and
 * steps by their titles (“Review the claim”; by id when the pinned version
 * cannot be read), notes whole, and what a line records is said
 * briefly; hashes and signatures never appear (the files keep them). Pure.
 */
import type { AuditEvent } from '../board/audit.js';
import { actHolds, type BranchOutcome } from '../board/superseded.js';
import type { Process, StepKind } from '../process/model.js';
import { humanize, inList, processTitle, stepTitle } from '../words/index.js';

/** What a run is, as far as words need it. */
export interface RunFacts {
  process: string;
  version: number;
  inputs: Record<string, unknown>;
  /** Each step's kind in the pinned process version; empty when it cannot be read. */
  kinds: ReadonlyMap<string, StepKind>;
  /** What people call the process and its steps, when the pinned version can be read; else ids are said. */
  titles?: { process: string; steps: ReadonlyMap<string, string> };
}

/** What the board says about the identities and runs a text names. */
export interface Words {
  /** WORK.md's names of people, by lowercased email. */
  names: ReadonlyMap<string, string>;
  runs: ReadonlyMap<string, RunFacts>;
  /** flow-1: other runs a line names (blockers, children, follow-on runs) by their titles in words; a run not here is said by id. */
  titles?: ReadonlyMap<string, string>;
  /** A moment as a person reads it (the web page: the board's zone, in words); without it, the UTC form `log` and git print. */
  time?: (iso: string) => string;
}

/** What a readable process version tells the words: its steps' kinds and everybody's titles. */
export function processWords(process: Pick<Process, 'name' | 'body' | 'steps'>): Pick<RunFacts, 'kinds' | 'titles'> {
  return {
    kinds: new Map(process.steps.map((s) => [s.id, s.kind])),
    titles: { process: processTitle(process), steps: new Map(process.steps.map((s) => [s.id, stepTitle(s)])) },
  };
}

/** WORK.md's names of people, by lowercased email, for `Words.names`. */
export function peopleNames(people: readonly { email: string; name?: string | undefined }[]): Map<string, string> {
  return new Map(people.flatMap((p) => (p.name ? [[p.email.toLowerCase(), p.name] as const] : [])));
}

export const NO_WORDS: Words = { names: new Map(), runs: new Map() };

/** The board's own doings (said in the passive): nobody chose them. */
const BOARD_ITSELF = new Set(['server', 'coordinator', 'external']);
export const byBoardItself = (actor: string): boolean => BOARD_ITSELF.has(actor);

/** One line in words: what happened, and the detail shown beside it when there is room. */
export interface Said {
  what: string;
  detail?: string;
}

export const isPerson = (identity: string): boolean => identity.includes('@');

/** A person by WORK.md name where it declares one; agents and others by their id. */
export function nameOf(identity: string, words: Words): string {
  return words.names.get(identity.toLowerCase()) ?? identity;
}

/** A text on one line with no control character: a file can hold anything, and terminals obey them. */
// eslint-disable-next-line no-control-regex -- control characters are what it removes
export const oneLine = (text: string): string => text.replace(/[\u0000-\u001f\u007f\s]+/g, ' ');

/** A free text (a note, a name) from a line, on one line and short. */
export function clip(text: string, max = 60): string {
  const flat = oneLine(text).trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

/** `2026-12-01T21:34:45.123Z` as `2026-12-01 21:34:45Z`. */
export function when(iso: unknown): string {
  return typeof iso === 'string' ? iso.replace('T', ' ').replace(/\.\d+Z$/, 'Z') : String(iso);
}

/** The run a line belongs to: `run:<id>` or `<id>/<step>`. */
export function runOf(entity: string): string | null {
  const m = /^(?:run:)?(r-[0-9a-z]{26})(?:\/|$)/.exec(entity);
  return m ? m[1]! : null;
}

const text = (v: unknown): string => (typeof v === 'string' ? v : (JSON.stringify(v) ?? ''));
/** A person's free text (a note, a reason), whole: an auditor reads every word of it, on one line. */
const quoted = (v: unknown): string | undefined => (typeof v === 'string' && v.trim() !== '' ? `"${oneLine(v).trim()}"` : undefined);

interface Line {
  by: string;
  passive: boolean;
  person: boolean;
  step: string;
  /** A step named in the line's changes (`next`, `to`), in the same words as `step`. */
  stepNamed: (id: unknown) => string;
  c: Record<string, unknown>;
  kind: StepKind | undefined;
  /** The process's title, when the run's pinned version can be read. */
  process: string | undefined;
  name: (identity: unknown) => string;
  /** Runs a line names (flow-1), by title where the words know it: "“Contract approval · Acme”", else by id. */
  runs: (ids: unknown) => string;
  /** A moment the line names (`until` a lease, a wait, a delegation), in the words' time. */
  when: (iso: unknown) => string;
}

/** " for Mira Okafor" when a delegate decided for someone out of office (docs/people.md "Out of office"), else "". */
const forWhom = (l: Line): string => (typeof l.c.for === 'string' ? ` for ${l.name(l.c.for)}` : '');
/** flow-1: runs another run started: the one by its title, more counted ("50 runs of Equipment order"), their titles being on the run page. */
const runsOf = (l: Line, runs: unknown, process: string): string => (Array.isArray(runs) && runs.length === 1 ? l.runs(runs) : `${Array.isArray(runs) ? runs.length : 'its'} runs of ${process}`);

function completed(l: Line): Said {
  const verb = l.passive ? null : !l.person ? 'submitted' : l.kind === 'approve' ? 'approved' : 'completed';
  const next = typeof l.c.next === 'string' ? ` → ${l.stepNamed(l.c.next)}` : '';
  return { what: verb ? `${l.by} ${verb}${forWhom(l)} ${l.step}${next}` : `${l.step} is done${next}`, detail: quoted(l.c.note) };
}

/** A delegation set or ended, from its WORK.md change: "delegation <from> to <to> until <time>" or "… ended". */
function delegation(l: Line): Said {
  const m = /^delegation (\S+) to (\S+) (?:until (\S+)|ended)$/.exec(text(l.c.change));
  if (!m) return { what: `${l.by} edited WORK.md: ${clip(text(l.c.change))}` };
  const [, from, to, until] = m;
  if (until === undefined) return { what: `${l.by} ended ${l.name(from)}'s out of office (their work had gone to ${l.name(to)})` };
  const whose = l.name(from) === l.by ? 'their' : `${l.name(from)}'s`;
  return { what: `${l.by} handed ${whose} work to ${l.name(to)} until ${l.when(until)}` };
}

/** The people a reminder rung went to, by name. */
const toldWords = (l: Line): string | undefined => (Array.isArray(l.c.to) && l.c.to.length > 0 ? `to ${l.c.to.map((x) => l.name(x)).join(', ')}` : undefined);

const SAY: Record<string, (l: Line) => Said> = {
  'run.started': (l) => ({ what: `${l.by} started ${l.process ?? text(l.c.process)} v${text(l.c.version)}${l.c.mode === 'test' ? ' as a test run' : ''}` }),
  'run.ended': (l) => ({ what: `${l.passive ? 'the run ended' : `${l.by} ended the run`}: ${text(l.c.outcome)}`, detail: quoted(l.c.note) }),
  'run.cancelled': (l) => ({ what: l.passive ? 'the run was cancelled' : `${l.by} cancelled the run`, detail: quoted(l.c.note) }),
  'run.blocked': (l) => ({ what: `the run waits for ${Array.isArray(l.c.waitingFor) ? l.runs(l.c.waitingFor) : 'other runs'} to end` }),
  'run.unblocked': () => ({ what: 'every run it waited for ended well: its work starts' }),
  'run.priority-changed': (l) => ({ what: `${l.by} set the priority to ${text(l.c.to)}`, detail: `was ${text(l.c.from)}` }),
  'run.followed-on': (l) => ({ what: `its end started ${runsOf(l, l.c.runs, Array.isArray(l.c.processes) ? l.c.processes.map((p) => humanize(text(p))).join(', ') : 'another process')}` }),
  'subprocess.started': (l) => ({ what: `${l.step} started ${runsOf(l, l.c.runs, humanize(text(l.c.process)))} and waits for ${Array.isArray(l.c.runs) && l.c.runs.length === 1 ? 'it' : 'them'}` }),
  'subprocess.ended': (l) => ({ what: `the runs ${l.step} started ended: ${text(l.c.outcome)}` }),
  'step.ready': (l) => ({ what: `${l.step} is ready` }),
  'step.claimed': (l) => ({ what: `${l.by} claimed ${l.step}`, detail: `until ${l.when(l.c.expiresAt)}` }),
  'step.renewed': (l) => ({ what: `${l.by} renewed the claim on ${l.step}`, detail: quoted(l.c.progress) }),
  'step.completed': completed,
  'step.rejected': (l) => ({ what: `${l.by} rejected${forWhom(l)} ${l.step}${typeof l.c.to === 'string' ? ` → back to ${l.stepNamed(l.c.to)}` : ''}`, detail: quoted(l.c.note) }),
  'step.failed': (l) => ({ what: l.passive ? `${l.step} failed` : `${l.by} marked${forWhom(l)} ${l.step} failed`, detail: quoted(l.c.note) }),
  'step.returned': (l) => ({ what: `${l.by} sent${forWhom(l)} ${l.step} back`, detail: quoted(l.c.note) }),
  'step.escalated': (l) => ({ what: `${l.by} escalated ${l.step} to the operators`, detail: quoted(l.c.note) }),
  'step.check-failed': (l) => ({ what: `${l.by}'s submission of ${l.step} failed its checks`, detail: Array.isArray(l.c.issues) ? clip(l.c.issues.map(text).join('; ')) : undefined }),
  'step.rewound': (l) => ({ what: `${l.step} is sent back for rework` }),
  'step.overdue': (l) => ({ what: `${l.step} is overdue`, detail: `due ${l.when(l.c.due)}` }),
  'step.waiting': (l) => ({ what: `${l.step} waits${typeof l.c.event === 'string' ? ` for the event ${l.c.event}` : ''}`, detail: l.c.until ? `until ${l.when(l.c.until)}` : undefined }),
  'work-item.opened': (l) => ({ what: `${l.step} waits for ${l.kind === 'approve' ? 'an approval' : 'a person'}` }),
  // Reminder ladders (docs/operators.md "Reminders and escalation ladders"): who was told; nothing was decided.
  'work-item.reminded': (l) => ({ what: `${l.step} still waits: its people were reminded`, detail: toldWords(l) }),
  'work-item.escalated': (l) => ({
    what: `${l.step} still waits: ${typeof l.c.audience === 'string' && !l.c.audience.includes('@') ? `the ${l.c.audience === 'operators' ? 'operators' : humanize(l.c.audience).toLowerCase()} were told` : l.c.audience ? `${l.name(l.c.audience)} was told` : 'told further'}`,
    detail: toldWords(l),
  }),
  'wait.timed-out': (l) => ({ what: `${l.step} timed out` }),
  'event.received': (l) => ({ what: `${l.by} sent the event ${text(l.c.name)} to ${l.step}` }),
  'event.held': (l) => ({ what: `${l.by} sent the event ${text(l.c.name)}, held until a step waits for it` }),
  'event.consumed': (l) => ({ what: `${l.step} took the event ${text(l.c.name)}` }),
  'parallel.forked': (l) => ({ what: `${l.step} forked into ${Array.isArray(l.c.branches) ? l.c.branches.map(text).join(', ') : 'branches'}` }),
  'branch.joined': (l) => ({ what: `the branch ${text(l.c.entry)} of ${l.step} joined` }),
  'parallel.joined': (l) => ({ what: `every branch of ${l.step} joined` }),
  'lease.expired': (l) => ({ what: `${l.name(l.c.agent)}'s claim on ${l.step} expired` }),
  'claim.ended': (l) => ({ what: `${l.by} ended ${l.name(l.c.agent)}'s claim on ${l.step}`, detail: quoted(l.c.reason) }),
  'lock.broken': () => ({ what: 'a stale lock was broken (its holder was gone)' }),
  'board.created': (l) => ({ what: `${l.by} created the board ${text(l.c.name)}` }),
  'board.upgraded': (l) => ({ what: `${l.by} upgraded the board from format ${text(l.c.from)} to format ${text(l.c.to)}` }),
  'process.published': (l) => ({ what: `${l.by} published ${l.step.replace('@', ' ')}` }),
  'process.adopted': (l) => ({ what: `${l.by} adopted ${l.step.replace('@', ' ')}, published on another clone` }),
  'run.resolved': (l) => ({ what: `${l.by} took the side a merge had set aside (branch ${text(l.c.took)})`, detail: quoted(l.c.reason) }),
  'file.uploaded': (l) => ({ what: `${l.by} uploaded ${clip(text(l.c.fileName))}`, detail: `${text(l.c.bytes)} bytes` }),
  'delegation.set': delegation,
  'delegation.ended': delegation,
  'token.created': (l) => ({ what: `${l.by} created a token for ${l.name(l.c.identity)}`, detail: quoted(l.c.name) }),
  'token.revoked': (l) => ({ what: `${l.by} revoked a token of ${l.name(l.c.identity)}`, detail: quoted(l.c.name) }),
  'token.rotated': (l) => ({ what: `${l.by} rotated a token of ${l.name(l.c.identity)}`, detail: quoted(l.c.name) }),
};

/** Changes worth a glance: short values, never a hash. */
function glance(c: Record<string, unknown>): string | undefined {
  const shown = Object.entries(c)
    .filter(([k, v]) => !/hash|sha256|sig/i.test(k) && v !== null && typeof v !== 'object')
    .map(([k, v]) => `${k} ${clip(text(v), 40)}`);
  return shown.length > 0 ? shown.join(', ') : undefined;
}

/** An act that came through Slack says so: "Fin Nordqvist approved “Approve the payout” in Slack". */
const through = (s: Said, via: unknown): Said => (via === 'slack' ? { ...s, what: `${s.what} in Slack` } : s);

/** What one audit line records, in words. */
export function say(ev: Pick<AuditEvent, 'actor' | 'action' | 'entity' | 'input'>, words: Words): Said {
  const run = runOf(ev.entity);
  const step = run ? ev.entity.slice(ev.entity.indexOf('/') + 1) : ev.entity;
  const c = ev.input?.changes ?? {};
  const facts = run ? words.runs.get(run) : undefined;
  const stepNamed = (id: unknown): string => {
    const title = facts?.titles?.steps.get(text(id));
    return title !== undefined ? `“${title}”` : text(id);
  };
  const line: Line = {
    by: ev.actor === 'coordinator' ? 'the coordinator' : nameOf(ev.actor, words),
    passive: BOARD_ITSELF.has(ev.actor),
    person: isPerson(ev.actor),
    step: ev.entity.startsWith('run:') ? 'the run' : stepNamed(step),
    stepNamed,
    c,
    kind: facts?.kinds.get(step),
    process: facts?.titles?.process,
    name: (identity) => nameOf(text(identity), words),
    runs: (ids) => inList((Array.isArray(ids) ? ids : [ids]).map((id) => runNamedIn(text(id), words))),
    when: (iso) => (words.time && typeof iso === 'string' ? words.time(iso) : when(iso)),
  };
  if (Object.hasOwn(SAY, ev.action)) return through(SAY[ev.action]!(line), c.via);
  if (ev.action.endsWith('.external-edit')) return { what: `${ev.entity} was edited outside workboard and adopted`, detail: `rev ${text(ev.input.toRev)}` };
  if (ev.entity === 'WORK.md' && typeof c.change === 'string') {
    return { what: ev.action.endsWith('.added') ? `${line.by} added ${clip(c.change)}` : `${line.by} edited WORK.md: ${clip(c.change)}` };
  }
  return { what: `${line.by} ${ev.action} ${line.step}`, detail: glance(c) };
}

/** A run in words: its title quoted when the words know it, else its id. */
export function runNamedIn(id: string, words: Words): string {
  const title = words.titles?.get(id);
  return title !== undefined ? `“${title}”` : id;
}

export const saidText = (s: Said): string => (s.detail ? `${s.what} (${s.detail})` : s.what);

/** One line as `#3 2026-12-01 21:34:45Z helper submitted draft → approve ("Ready for review.")`. */
export function lineText(ev: Pick<AuditEvent, 'seq' | 'ts' | 'actor' | 'action' | 'entity' | 'input'>, words: Words): string {
  // A line a merge wrote when it applied another clone's act again (docs/git.md "The merge rule").
  const replayed = typeof ev.input.replayOf === 'string' ? ' (replayed on merge)' : '';
  return oneLine(`#${ev.seq} ${when(ev.ts)} ${saidText(say(ev, words))}${replayed}`);
}

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const isLine = (v: unknown): v is AuditEvent => isObj(v) && typeof v.seq === 'number' && typeof v.actor === 'string' && typeof v.action === 'string' && typeof v.entity === 'string' && isObj(v.input);

/** Each line of a JSON-lines text parsed, or null where it is not JSON. */
export function jsonLines(content: string): { raw: string; value: unknown }[] {
  const lines = content.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  return lines.map((raw) => {
    try {
      return { raw, value: JSON.parse(raw) as unknown };
    } catch {
      return { raw, value: null };
    }
  });
}

/** The audit lines a chain or superseded file holds, for finding the runs it names. */
export function auditLinesIn(content: string): AuditEvent[] {
  return jsonLines(content).flatMap(({ value }) => (isLine(value) ? [value] : isObj(value) && Array.isArray(value.lines) ? value.lines.filter(isLine) : []));
}

/**
 * A run's `audit.jsonl` or `superseded.jsonl` (or the board's chain) in words,
 * one line each; a superseded branch as "superseded on merge:" and its lines.
 * A line that is no audit line is shown as it is, marked, so nothing is hidden.
 */
export function fileText(content: string, words: Words): string {
  const out: string[] = [];
  for (const { raw, value } of jsonLines(content)) {
    if (isLine(value)) out.push(lineText(value, words));
    else if (isObj(value) && isObj(value.fork) && typeof value.fork.seq === 'number' && Array.isArray(value.lines) && value.lines.every(isLine)) {
      out.push(...branchText({ fork: { seq: value.fork.seq }, lines: value.lines, ...(Array.isArray(value.outcomes) ? { outcomes: value.outcomes as BranchOutcome[] } : {}) }, words));
    } else out.push(`!! ${value === null ? 'not valid JSON' : 'not an audit line'}: ${oneLine(raw)}`);
  }
  return out.length > 0 ? `${out.join('\n')}\n` : '';
}

/**
 * A branch a merge set aside, in words: a heading, then each of its lines; when the
 * merge replayed it (docs/git.md "The replay"), each line says whether it was
 * applied again on the kept side, was already done there, or why not.
 */
export function branchText(b: { fork: { seq: number }; lines: readonly AuditEvent[]; outcomes?: readonly BranchOutcome[] }, words: Words, n?: number): string[] {
  const after = b.fork.seq < 0 ? 'from the start' : `after #${b.fork.seq}`;
  const count = `${b.lines.length} transition${b.lines.length === 1 ? '' : 's'} ${after}, made on another clone's side of the merge`;
  if (!b.outcomes) return [`superseded on merge${n !== undefined ? `, branch ${n}` : ''} (${count}):`, ...b.lines.map((l) => `  ${lineText(l, words)}`)];
  const of = new Map(b.outcomes.map((o) => [o.line, o]));
  const said = (l: AuditEvent): string => {
    const o = of.get(l.hash);
    return o === undefined ? '' : 'replayed' in o ? ' (applied again on merge)' : 'held' in o ? ' (already done on the kept side)' : ` (superseded: ${o.reason})`;
  };
  // Named by what happened to it: a branch none of whose acts holds on the kept side is simply superseded.
  const heading = b.outcomes.some(actHolds) ? 'replayed on merge' : 'superseded on merge';
  return [`${heading}${n !== undefined ? `, branch ${n}` : ''} (${count}):`, ...b.lines.map((l) => `  ${lineText(l, words)}${said(l)}`)];
}
