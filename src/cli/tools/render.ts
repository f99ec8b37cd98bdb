/**
 * The tools' results as people read them, and a refusal on stderr: one line
 * per run, step, work item or fact, values as `name: value` fields rather
 * than JSON, coloured only on a terminal. A command whose result is a value
 * (a run id, a token, an upload id) prints only that value on stdout and the
 * rest on stderr, so `$(…)` captures exactly the value.
 */
import { loadVersion } from '../../board/processes.js';
import { FULL_OFFER } from '../../protocol/offer.js';
import { runMapSvg, runMermaid } from '../../map/index.js';
import { color } from '../output.js';
import type { Cli } from '../cli.js';
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

/** `name: value` pairs joined on one line. */
export function fields(o: Record<string, unknown>): string {
  return Object.entries(o).map(([k, v]) => `${k}: ${plain(v)}`).join('  ·  ');
}

/** The process's title: the first markdown heading of its body, else its name. */
export function processTitle(v: RunView): string {
  const heading = /^#\s+(.+)$/m.exec(v.body ?? '');
  return heading ? heading[1]!.trim() : v.run.process;
}

/** Text indented under a heading, every line of it (instructions are never cut). */
function block(text: string, indent: string): string {
  return text.trim().split('\n').map((l) => `${indent}${l}`).join('\n') + '\n';
}

/** The exact command that decides a work item, snapshot included. */
export function decideCommand(runId: string, w: WorkItem): string {
  return `workboard decide ${runId} ${w.id} ${w.decide.decisions.join('|')} --snapshot ${w.snapshot}`;
}

/** A run: its record and inputs, every step with what completed it (and earlier attempts), and its open work items. */
export function printRun(v: RunView): void {
  writeRun(v, toStdout);
}

function writeRun(v: RunView, write: Write): void {
  const run = v.run;
  const paint = run.state === 'active' ? color.green : run.state === 'waiting' ? color.yellow : color.dim;
  write(`${color.bold(run.id)}  ${run.process} v${run.version}  ${paint(run.state)}${run.outcome ? ` (${run.outcome})` : ''}${run.mode === 'test' ? color.yellow('  TEST') : ''}\n`);
  write(`  started ${run.startedAt} by ${run.startedBy}, updated ${run.updatedAt}\n`);
  if (run.ended) write(`  ended ${run.ended.at} by ${run.ended.by}${run.ended.note ? `: ${run.ended.note}` : ''}\n`);
  if (Object.keys(v.data.inputs).length > 0) write(`  inputs   ${fields(v.data.inputs)}\n`);
  for (const s of v.steps) {
    const d = v.data.steps[s.id];
    const st = s.state === null ? color.dim('·') : s.state;
    const due = s.due ? `  due ${s.due}${s.overdue ? color.red(' OVERDUE') : ''}` : '';
    write(`  ${s.id.padEnd(24)} ${s.kind.padEnd(10)} ${st}${due}\n`);
    if (d) printCompletion(d, '      ', write);
    for (const [i, h] of (d?.history ?? []).entries()) {
      write(color.dim(`      earlier attempt ${i + 1}:\n`));
      printCompletion(h, '        ', write);
    }
  }
  for (const w of v.workItems) {
    const to = w.assignedTo;
    write(`  ${color.yellow('work item')} ${w.id} on ${w.stepId} for ${to.group ? `group ${to.group}` : to.person}: ${w.decide.decisions.join(', ')}${needs(w)}\n`);
    printNotes(w, '      ', write);
    write(color.dim(`      ${decideCommand(run.id, w)}\n`));
  }
}

/** `start`: the new run's id alone on stdout, the run itself on stderr. */
export function printStarted(v: RunView): void {
  toStdout(`${v.run.id}\n`);
  writeRun(v, toStderr);
}

/** `show --map`: the run on its process map, as Mermaid (each step's state a class) or as an SVG with the path taken. */
export async function printRunMap(cli: Cli, v: RunView, format = 'mermaid'): Promise<void> {
  const board = await cli.board();
  const p = await loadVersion(board, v.run.process, v.run.version, FULL_OFFER);
  if (format === 'svg') return void toStdout(await runMapSvg(p, v, { lanes: { groups: board.manifest.groups } }));
  toStdout(runMermaid(p, v, { lanes: { groups: board.manifest.groups } }));
}

/** One completion: who and when, the decision or route, outputs, summary, note, evidence with its hash. */
function printCompletion(d: Completion, indent: string, write: Write): void {
  const line = (s: string) => write(color.dim(`${indent}${s}\n`));
  if (d.by) line(`by ${d.by} at ${d.at}${d.decision ? `: ${d.decision}` : ''}${d.next ? ` → ${d.next}${d.reason ? ` (${d.reason})` : ''}` : ''}`);
  if (d.output && Object.keys(d.output).length > 0) line(`output ${JSON.stringify(d.output)}`);
  if (d.summary) line(d.summary.split('\n')[0]!);
  if (d.note) line(`note: ${d.note}`);
  for (const e of d.evidence ?? []) line(`evidence ${e.kind} ${e.ref}${e.sha256 ? ` sha256:${e.sha256}` : ''}`);
}

/** What the earlier attempt handed over and why the step was escalated, as readable lines. */
function printNotes(w: WorkItem, indent: string, write: Write): void {
  const h: Handoff | null = w.handoff;
  if (h?.returned) write(`${indent}returned by ${h.returned.by}: ${h.returned.note}\n`);
  if (h?.progress) write(`${indent}progress so far: ${h.progress}\n`);
  for (const i of h?.issues ?? []) write(`${indent}issue: ${i}\n`);
  if (w.escalation) write(`${indent}escalated by ${w.escalation.by}${w.escalation.at ? ` at ${w.escalation.at}` : ''}: ${w.escalation.note}\n`);
}

/** What a work item needs beyond the decision: output fields, evidence kinds, a route. */
function needs(w: WorkItem): string {
  const parts: string[] = [];
  if (w.output) parts.push(`output ${Object.keys(w.output).join(', ')}`);
  if (w.evidence) parts.push(`evidence ${w.evidence.join(', ')}`);
  if (w.next) parts.push(`next one of ${w.next.map((r) => r.to).join(', ')}`);
  return parts.length ? `; completing needs ${parts.join('; ')}` : '';
}

/**
 * `inbox`: for a person, each work item with its process, the run's inputs,
 * due date, the step's whole text, handoff and escalation notes and the
 * command that decides it; for an agent, its ready steps.
 */
export function printInbox(d: WorkPage, runs: ReadonlyMap<string, RunView>): void {
  if (d.items.length === 0) toStdout('nothing waiting for you\n');
  for (const i of d.items) {
    const test = i.mode === 'test' ? color.yellow('  TEST RUN') : '';
    const w = i.workItem;
    if (!w) {
      toStdout(`${i.runId}  ${i.stepId}  ready since ${i.readySince}${test}\n`);
      continue;
    }
    const run = runs.get(i.runId);
    const step = run?.steps.find((s) => s.id === w.stepId);
    toStdout(`${color.bold(`${i.runId}  ${w.id}`)}${test}\n`);
    toStdout(`  process  ${run ? processTitle(run) : i.process} ${color.dim(`(${i.process ?? run?.run.process} v${i.version ?? run?.run.version})`)}\n`);
    toStdout(`  step     ${w.stepId} (${w.kind})  due ${w.due ?? '-'}${step?.overdue ? color.red(' OVERDUE') : ''}\n`);
    if (run && Object.keys(run.data.inputs).length > 0) toStdout(`  inputs   ${fields(run.data.inputs)}\n`);
    toStdout(block(w.text, '    '));
    printNotes(w, '  ', toStdout);
    toStdout(`  decide   ${w.decide.decisions.join(', ')}${needs(w)}\n  ${color.dim(decideCommand(i.runId, w))}\n`);
  }
}

/** `inbox --decide-args`: each work item as the arguments `decide` takes before the decision. */
export function printDecideArgs(d: WorkPage): void {
  for (const i of d.items) if (i.workItem) toStdout(`${i.runId} ${i.workItem.id} --snapshot ${i.workItem.snapshot}\n`);
}

/** `work`: one line per claimable step, for scripts. */
export function printWork(d: WorkPage): void {
  for (const i of d.items) toStdout(`${i.runId}  ${i.stepId ?? i.workItem?.stepId}  ${i.readySince ?? ''}\n`);
}

export function printRuns(d: RunsPage): void {
  for (const r of d.items) toStdout(`${r.id}  ${r.process.padEnd(24)} ${r.state.padEnd(9)} ${r.outcome ?? ''}  ${r.startedAt}\n`);
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
