/**
 * The tools' results as people read them, and a refusal on stderr: one line
 * per run, step, work item or fact, values as `name: value` fields rather
 * than JSON, coloured only on a terminal. A command whose result is a value
 * (a run id, a token, an upload id) prints only that value on stdout and the
 * rest on stderr, so `$(…)` captures exactly the value.
 */
import { loadVersion } from '../../board/processes.js';
import { NORMAL_PRIORITY, type Fields } from '../../process/model.js';
import { levelName } from '../../engine/priority.js';
import type { RunFlow, RunLineage } from '../../protocol/views.js';
import { FULL_OFFER } from '../../protocol/offer.js';
import { fieldLabel, findings, humanize, processTitle, relativeTime, runTitle, stepStateWord, type Finding } from '../../words/index.js';
import { color } from '../output.js';
import type { Cli } from '../cli.js';
import { labelled, stepName, when, who, wordsFor, type RunWords } from './words.js';
import type { Completion, Description, EventResult, Handoff, Lease, RunsPage, RunView, Upload, WorkItem, WorkPage } from './views.js';

type Write = (s: string) => void;
const toStdout: Write = (s) => process.stdout.write(s);
const toStderr: Write = (s) => process.stderr.write(s);

export function printRefusal(error: { code: string; message: string; issues?: string[] }): void {
  process.stderr.write(`${color.red(`${error.code}`)}: ${error.message}\n`);
  for (const i of error.issues ?? []) process.stderr.write(`  ${i}\n`);
}

/** A value as a person reads it: strings bare, everything else as compact JSON. */
export function plain(v: unknown): string {
  return typeof v === 'string' ? v : JSON.stringify(v);
}

/** Text indented under a heading, every line of it (instructions are never cut). */
function block(text: string, indent: string): string {
  return (
    text
      .trim()
      .split('\n')
      .map((l) => `${indent}${l}`)
      .join('\n') + '\n'
  );
}

/** The exact command that decides a work item, snapshot included. */
export function decideCommand(runId: string, w: WorkItem): string {
  return `workboard decide ${runId} ${w.id} ${w.decide.decisions.join('|')} --snapshot ${w.snapshot}`;
}

/** A run: its title, who started it and when, its inputs, every step with what completed it (and earlier attempts), and its open work items. */
/** A run in full; `flow` (flow-1) adds its priority and what it waits or waited for. */
export async function printRun(cli: Cli, v: RunView, flow: RunFlow | null = null, lineage: RunLineage | null = null): Promise<void> {
  writeRun(v, await (await wordsFor(cli))(v.run), toStdout, flow, lineage);
}

function writeRun(v: RunView, w: RunWords, write: Write, flow: RunFlow | null, lineage: RunLineage | null): void {
  const run = v.run;
  const blocked = flow?.blocked === true && (run.state === 'active' || run.state === 'waiting');
  const paint = run.state === 'active' ? color.green : run.state === 'waiting' ? color.yellow : color.dim;
  write(
    `${color.bold(runTitle(w.process, v.data.inputs, w.people))}  ${blocked ? color.yellow('blocked') : paint(run.state)}${run.outcome ? ` (${run.outcome})` : ''}${run.mode === 'test' ? color.yellow('  TEST') : ''}\n`,
  );
  write(color.dim(`  ${run.id}, version ${run.version}\n`));
  write(`  started ${when(w, run.startedAt)} by ${who(w, run.startedBy)}, updated ${relativeTime(run.updatedAt, w.now)}\n`);
  if (flow) writeFlow(flow, blocked, write);
  if (lineage) writeLineage(lineage, w, write);
  if (run.ended) write(`  ended ${when(w, run.ended.at)} by ${who(w, run.ended.by)}${run.ended.note ? `: ${run.ended.note}` : ''}\n`);
  const linked = [...(flow?.blockedBy ?? []), ...(lineage?.parent ? [lineage.parent] : []), ...(lineage?.children ?? [])];
  const runs = new Map(linked.map((r) => [r.id, r.title]));
  if (Object.keys(v.data.inputs).length > 0) write(`  inputs   ${labelled(w, v.data.inputs, w.process.inputs, runs)}\n`);
  for (const s of v.steps) {
    const d = v.data.steps[s.id];
    const st = s.state === null ? color.dim('·') : stepStateWord(s.state, d?.decision);
    const due = s.due ? `  due ${relativeTime(s.due, w.now)}${s.overdue ? color.red(' OVERDUE') : ''}` : '';
    write(`  ${String(st).padEnd(9)} ${stepName(w, s.id)}${due}\n`);
    const declared = w.process.steps.find((x) => x.id === s.id)?.output;
    if (d) printCompletion(d, w, declared, '      ', write, runs);
    for (const [i, h] of (d?.history ?? []).entries()) {
      write(color.dim(`      earlier attempt ${i + 1}:\n`));
      printCompletion(h, w, declared, '        ', write, runs);
    }
  }
  for (const item of v.workItems) {
    write(`  ${color.yellow('waiting for')} ${assignee(w, item)}: ${stepName(w, item.stepId)}\n`);
    write(`      ${item.decide.decisions.join(', ')}${needs(w, item)}\n`);
    printNotes(item, w, '      ', write);
    write(color.dim(`      ${decideCommand(run.id, item)}\n`));
  }
}

/** flow-1: the run's priority, and each blocker by its title with where it stands. */
function writeFlow(flow: RunFlow, blocked: boolean, write: Write): void {
  write(`  priority ${flow.priority > NORMAL_PRIORITY ? color.bold(levelName(flow.priority)) : levelName(flow.priority)}\n`);
  if (flow.blockedBy.length === 0) return;
  write(`  ${blocked ? color.yellow('blocked, waiting for') : 'was blocked by'}:\n`);
  for (const b of flow.blockedBy) {
    const where = b.state === null ? 'not on this board' : b.state === 'ended' ? `ended ${b.outcome}` : b.state;
    write(`      ${b.title}  ${where}\n`);
    write(color.dim(`      ${b.id}\n`));
  }
}

/** flow-1: the run that started this one, the runs it started, each by its title with where it stands, and their rollup (docs/profile-flow-1.md "7. Lineage and rollup"). */
function writeLineage(l: RunLineage, w: RunWords, write: Write): void {
  const where = (r: RunLineage['children'][number]) => (r.state === null ? 'not on this board' : r.state === 'ended' ? `ended ${r.outcome}` : r.state);
  if (l.parent) {
    write(`  parent:  ${l.parent.title}  ${where(l.parent)}\n`);
    write(color.dim(`      ${l.parent.id}\n`));
  }
  if (l.children.length === 0) return;
  const ended = l.children.filter((c) => c.state === 'ended' || c.state === 'cancelled').length;
  write(`  rollup:  ${l.rollup ?? ''} (${ended} of ${l.children.length} ended)\n`);
  write('  children:\n');
  for (const c of l.children) {
    write(`      ${c.title}  ${where(c)}${c.via ? color.dim(`  from ${stepName(w, c.via)}`) : color.dim('  follow-on')}\n`);
    write(color.dim(`      ${c.id}\n`));
  }
}

/** Who a work item waits for: a person by name, or a group. */
function assignee(w: RunWords, item: WorkItem): string {
  const to = item.assignedTo;
  return to.person ? who(w, to.person) : `the ${humanize(to.group ?? 'operators')} group`;
}

/** `start`: the new run's id alone on stdout, the run itself on stderr. */
export async function printStarted(cli: Cli, v: RunView): Promise<void> {
  toStdout(`${v.run.id}\n`);
  writeRun(v, await (await wordsFor(cli))(v.run), toStderr, null, null);
}

/** `show --map`: the run on its process map, as Mermaid (each step's state a class) or as an SVG with the path taken. */
export async function printRunMap(cli: Cli, v: RunView, format = 'mermaid'): Promise<void> {
  const board = await cli.board();
  const p = await loadVersion(board, v.run.process, v.run.version, FULL_OFFER);
  // Loaded here, not at the top: the map's font is half a megabyte that every other command would parse at start.
  const { runMapSvg, runMermaid } = await import('../../map/index.js');
  if (format === 'svg') return void toStdout(await runMapSvg(p, v, { lanes: { groups: board.manifest.groups } }));
  toStdout(runMermaid(p, v, { lanes: { groups: board.manifest.groups } }));
}

/** One completion: who and when, the decision or route, outputs in words, summary, note, evidence with its hash. */
function printCompletion(d: Completion, w: RunWords, declared: Fields | undefined, indent: string, write: Write, runs: ReadonlyMap<string, string>): void {
  const line = (s: string) => write(color.dim(`${indent}${s}\n`));
  if (d.by) line(`${who(w, d.by)}${d.at ? `, ${relativeTime(d.at, w.now)}` : ''}${d.decision ? `: ${d.decision}` : ''}`);
  if (d.next) line(`next: ${stepName(w, d.next)}`);
  if (d.next && d.reason) line(`why: ${d.reason.replace(/\s+/g, ' ').trim()}`);
  if (d.output && Object.keys(d.output).length > 0) line(labelled(w, d.output, declared, runs));
  if (d.summary) line(d.summary.split('\n')[0]!);
  if (d.note) line(`note: ${d.note}`);
  for (const e of d.evidence ?? []) line(`evidence: ${e.kind} ${e.ref}${e.sha256 ? ` sha256:${e.sha256}` : ''}`);
}

/** What the earlier attempt handed over and why the step was escalated, as readable lines. */
function printNotes(item: WorkItem, w: RunWords, indent: string, write: Write): void {
  const h: Handoff | null = item.handoff;
  if (h?.returned) write(`${indent}returned by ${who(w, h.returned.by)}: ${h.returned.note}\n`);
  if (h?.progress) write(`${indent}progress so far: ${h.progress}\n`);
  for (const i of h?.issues ?? []) write(`${indent}issue: ${i}\n`);
  if (item.escalation) write(`${indent}escalated by ${who(w, item.escalation.by)}${item.escalation.at ? ` ${relativeTime(item.escalation.at, w.now)}` : ''}: ${item.escalation.note}\n`);
}

/** What a work item needs beyond the decision: output fields, evidence kinds, a route, in words. */
function needs(w: RunWords, item: WorkItem): string {
  const parts: string[] = [];
  const declared = w.process.steps.find((s) => s.id === item.stepId)?.output;
  if (item.output)
    parts.push(
      Object.keys(item.output)
        .map((k) => fieldLabel(k, declared?.[k]))
        .join(', '),
    );
  if (item.evidence) parts.push(`evidence (${item.evidence.join(' or ')})`);
  if (item.next) parts.push(`where next: ${item.next.map((r) => r.when ?? stepName(w, r.to)).join(' / ')}`);
  return parts.length ? `; completing needs ${parts.join('; ')}` : '';
}

/** A finding as a line reads it: the label and value, a warning marked. */
const findingText = (f: Finding): string => `${f.warning ? color.red('⚠ ') : ''}${f.label}: ${f.text}`;

/**
 * `inbox`: for a person, each work item under its run's title, with its step,
 * when it is due, the run's inputs and what the earlier steps found (warnings
 * marked), the step's whole text, handoff and escalation notes and the command
 * that decides it; for an agent, its ready steps.
 */
export async function printInbox(cli: Cli, d: WorkPage, runs: ReadonlyMap<string, RunView>, forWhom: (assigned: WorkItem['assignedTo']) => string | null = () => null): Promise<void> {
  if (d.items.length === 0) toStdout('nothing waiting for you\n');
  const wordsOf = await wordsFor(cli);
  for (const i of d.items) {
    const test = i.mode === 'test' ? color.yellow('  TEST RUN') : '';
    if (!('workItem' in i)) {
      toStdout(`${i.runId}  ${i.stepId}  ready since ${i.readySince}${test}\n`);
      continue;
    }
    const item = i.workItem;
    const run = runs.get(i.runId);
    const w = await wordsOf(run?.run ?? { process: i.process ?? '', version: i.version ?? 0 });
    const step = run?.steps.find((s) => s.id === item.stepId);
    const due = item.due ? `due ${when(w, item.due)}${step?.overdue ? color.red(' OVERDUE') : ''}` : 'no due date';
    const delegator = forWhom(item.assignedTo);
    toStdout(`${color.bold(run ? runTitle(w.process, run.data.inputs, w.people) : processTitle(w.process))}${test}\n`);
    toStdout(`  ${stepName(w, item.stepId)}\n${delegator ? `  for ${who(w, delegator)} (out of office)\n` : ''}  ${due}\n`);
    if (run && Object.keys(run.data.inputs).length > 0) toStdout(`  inputs   ${labelled(w, run.data.inputs, w.process.inputs)}\n`);
    const found = run ? findings(w.process, run, w) : [];
    if (found.length > 0) toStdout(`  found    ${found.map(findingText).join('  ·  ')}\n`);
    toStdout(block(item.text, '    '));
    printNotes(item, w, '  ', toStdout);
    toStdout(`  decide   ${item.decide.decisions.join(', ')}${needs(w, item)}\n  ${color.dim(decideCommand(i.runId, item))}\n\n`);
  }
}

/** `inbox --decide-args`: each work item as the arguments `decide` takes before the decision. */
export function printDecideArgs(d: WorkPage): void {
  for (const i of d.items) if ('workItem' in i) toStdout(`${i.runId} ${i.workItem.id} --snapshot ${i.workItem.snapshot}\n`);
}

/** `work`: one line per claimable step, for scripts. */
export function printWork(d: WorkPage): void {
  for (const i of d.items) toStdout(`${i.runId}  ${'workItem' in i ? i.workItem.stepId : i.stepId}  ${'workItem' in i ? '' : i.readySince}\n`);
}

/** `runs`: one line per run, its id first (for show and the rest), then its name in words, state and when it started. */
export async function printRuns(cli: Cli, d: RunsPage): Promise<void> {
  const wordsOf = await wordsFor(cli);
  for (const r of d.items) {
    const w = await wordsOf(r);
    toStdout(`${r.id}  ${runTitle(w.process, r.inputs, w.people)}  ${r.state}${r.outcome ? ` (${r.outcome})` : ''}  started ${relativeTime(r.startedAt, w.now)}\n`);
  }
  if (d.nextCursor) toStdout(color.dim(`more: --cursor ${d.nextCursor}\n`));
}

export function printDescription(d: Description): void {
  toStdout(`${d.protocol} ${d.version}  profiles: ${d.profiles.join(', ') || 'none'}\n`);
  toStdout(`  lease ${d.leaseSeconds} s, uploads up to ${d.maxUploadBytes} bytes\n`);
  for (const [k, v] of Object.entries(d.limits)) toStdout(`  ${k.padEnd(16)} ${v === null ? 'none' : String(v)}\n`);
  toStdout(`  tools ${d.tools.join(', ')}\n`);
}

/** `claim` and `renew`: the token alone on stdout, when it expires on stderr. */
export function printLease(d: Lease): void {
  toStdout(`${d.token}\n`);
  toStderr(color.dim(`expires ${d.expiresAt}\n`));
}

/** `upload`: the upload id alone on stdout, its hash and size on stderr. */
export function printUpload(d: Upload): void {
  toStdout(`${d.id}\n`);
  toStderr(color.dim(`sha256:${d.sha256}  ${d.bytes} bytes\n`));
}

export function printEventResult(d: EventResult): void {
  toStdout(d.consumedBy ? `consumed by ${d.consumedBy}\n` : 'held until a wait for it is ready\n');
}
