/**
 * The tools' results as people read them on stdout, and a refusal on stderr:
 * one line per run, step, work item or fact, coloured only on a terminal.
 */
import { loadVersion } from '../../board/processes.js';
import { FULL_OFFER } from '../../protocol/offer.js';
import { mapModel, toMermaid } from '../../process/map.js';
import { color } from '../output.js';
import type { Cli } from '../cli.js';
import type { Completion, Description, EventResult, Lease, RunsPage, RunView, Upload, WorkItem, WorkPage } from './views.js';

const write = (s: string) => process.stdout.write(s);

export function printRefusal(error: { code: string; message: string; issues?: string[] }): void {
  process.stderr.write(`${color.red(`${error.code}`)}: ${error.message}\n`);
  for (const i of error.issues ?? []) process.stderr.write(`  ${i}\n`);
}

/** A run: its record, every step with what completed it (and earlier attempts), and its open work items. */
export function printRun(v: RunView): void {
  const run = v.run;
  const paint = run.state === 'active' ? color.green : run.state === 'waiting' ? color.yellow : color.dim;
  write(`${color.bold(run.id)}  ${run.process} v${run.version}  ${paint(run.state)}${run.outcome ? ` (${run.outcome})` : ''}${run.mode === 'test' ? color.yellow('  TEST') : ''}\n`);
  write(`  started ${run.startedAt} by ${run.startedBy}, updated ${run.updatedAt}\n`);
  if (run.ended) write(`  ended ${run.ended.at} by ${run.ended.by}${run.ended.note ? `: ${run.ended.note}` : ''}\n`);
  for (const s of v.steps) {
    const d = v.data.steps[s.id];
    const st = s.state === null ? color.dim('·') : s.state;
    const due = s.due ? `  due ${s.due}${s.overdue ? color.red(' OVERDUE') : ''}` : '';
    write(`  ${s.id.padEnd(24)} ${s.kind.padEnd(10)} ${st}${due}\n`);
    if (d) printCompletion(d, '      ');
    for (const [i, h] of (d?.history ?? []).entries()) {
      write(color.dim(`      earlier attempt ${i + 1}:\n`));
      printCompletion(h, '        ');
    }
  }
  for (const w of v.workItems) {
    const to = w.assignedTo;
    write(`  ${color.yellow('work item')} ${w.id} on ${w.stepId} for ${to.group ? `group ${to.group}` : to.person}: ${w.decide.decisions}${needs(w)}\n`);
    if (w.escalation) write(color.dim(`      escalated by ${w.escalation.by}: ${w.escalation.note}\n`));
  }
}

/** `show --map`: the run's process map (Mermaid), each step marked with its state. */
export async function printRunMap(cli: Cli, v: RunView): Promise<void> {
  const p = await loadVersion(await cli.board(), v.run.process, v.run.version, FULL_OFFER);
  const states = Object.fromEntries(v.steps.map((s) => [s.id, s.state]));
  write(toMermaid(mapModel(p.process), states));
}

/** One completion: who and when, the decision or route, outputs, summary, note, evidence with its hash. */
function printCompletion(d: Completion, indent: string): void {
  const line = (s: string) => write(color.dim(`${indent}${s}\n`));
  if (d.by) line(`by ${d.by} at ${d.at}${d.decision ? `: ${d.decision}` : ''}${d.next ? ` → ${d.next}${d.reason ? ` (${d.reason})` : ''}` : ''}`);
  if (d.output && Object.keys(d.output).length > 0) line(`output ${JSON.stringify(d.output)}`);
  if (d.summary) line(d.summary.split('\n')[0]!);
  if (d.note) line(`note: ${d.note}`);
  for (const e of d.evidence ?? []) line(`evidence ${e.kind} ${e.ref}${e.sha256 ? ` sha256:${e.sha256}` : ''}`);
}

/** What a work item needs beyond the decision: output fields, evidence kinds, a route. */
function needs(w: WorkItem): string {
  const parts: string[] = [];
  if (w.output) parts.push(`output ${Object.keys(w.output).join(', ')}`);
  if (w.evidence) parts.push(`evidence ${w.evidence.join(', ')}`);
  if (w.next) parts.push(`next one of ${w.next.map((r) => r.to).join(', ')}`);
  return parts.length ? `; completing needs ${parts.join('; ')}` : '';
}

/** `inbox`: a person's work items with their text and decisions, or an agent's ready steps. */
export function printInbox(d: WorkPage): void {
  if (d.items.length === 0) write('nothing waiting for you\n');
  for (const i of d.items) {
    const test = i.mode === 'test' ? color.yellow(' TEST') : '';
    const w = i.workItem;
    if (w) write(`${i.runId}  ${w.id}  ${w.stepId} (${w.kind})${test}  due ${w.due ?? '-'}\n  ${w.text.split('\n')[0]}\n  decide: ${w.decide.decisions}${needs(w)}\n`);
    else write(`${i.runId}  ${i.stepId}  ready since ${i.readySince}${test}\n`);
  }
}

/** `work`: one line per claimable step, for scripts. */
export function printWork(d: WorkPage): void {
  for (const i of d.items) write(`${i.runId}  ${i.stepId ?? i.workItem?.stepId}  ${i.readySince ?? ''}\n`);
}

export function printRuns(d: RunsPage): void {
  for (const r of d.items) write(`${r.id}  ${r.process.padEnd(24)} ${r.state.padEnd(9)} ${r.outcome ?? ''}  ${r.startedAt}\n`);
  if (d.nextCursor) write(color.dim(`more: --cursor ${d.nextCursor}\n`));
}

export function printDescription(d: Description): void {
  write(`${d.protocol} ${d.version}  profiles: ${d.profiles.join(', ') || 'none'}\n`);
  write(`  lease ${d.leaseSeconds} s, uploads up to ${d.maxUploadBytes} bytes\n`);
  for (const [k, v] of Object.entries(d.limits)) write(`  ${k.padEnd(16)} ${v === null ? 'none' : String(v)}\n`);
  write(`  tools ${d.tools.join(', ')}\n`);
}

/** `claim` and `renew`: the token alone on the first line, so a script can take it. */
export function printLease(d: Lease): void {
  write(`${d.token}\n${color.dim(`expires ${d.expiresAt}`)}\n`);
}

export function printUpload(d: Upload): void {
  write(`${d.id}  sha256:${d.sha256}  ${d.bytes} bytes\n`);
}

export function printEventResult(d: EventResult): void {
  write(d.consumedBy ? `consumed by ${d.consumedBy}\n` : 'held until a wait for it is ready\n');
}
