/**
 * The operators' side: the escalations queue (get_work as the operator,
 * the items assigned to the operators), doctor's findings, and on a run's
 * page cancel (with a reason, after a confirmation) and send an event. Who
 * is an operator is WORK.md's answer, re-read for every request: anyone else
 * gets 403 for the pages, and the service's own refusal for the posts.
 */
import { randomUUID } from 'node:crypto';
import { h } from 'preact';
import { OPERATORS } from '../engine/view.js';
import { doctorFindings, syncStatus } from '../service/doctor.js';
import { first, type Posted } from './form-values.js';
import { humanize, inList, personName, runTitle } from '../words/index.js';
import { MessagePage } from './pages/message.js';
import { CancelConfirmPage, DoctorPage, QueuePage, RunActions } from './pages/operators.js';
import type { PostedForm } from './request.js';
import { call, frame, redirect, sendPage, statusFor, type Request } from './respond.js';
import { pinnedVersion, readRun, runPage } from './runs.js';
import { isWorkItemEntry, type RunView, type WorkEntry } from './views.js';

/** At most this many escalations are read for the queue. */
const QUEUE_MAX = 500;

/** True for an operator; anyone else has been answered 403. */
function operatorOnly(r: Request): boolean {
  if (r.actor.operator) return true;
  const m = r.app.service.board.manifest;
  const operators = m.operators.map((email) => personName(m.people, email));
  const ask = operators.length > 0 ? ` If you need it, ask one of them: ${inList(operators)}.` : '';
  sendPage(
    r.res,
    403,
    h(
      MessagePage,
      { frame: frame(r, 'Operators only'), title: 'Operators only' },
      h('p', null, `Only the board's operators see this page, and ${personName(m.people, r.actor.email)} is not one of them.${ask}`),
    ),
  );
  return false;
}

export async function queuePage(r: Request): Promise<void> {
  if (!operatorOnly(r)) return;
  const items: WorkEntry[] = [];
  let cursor: string | undefined;
  do {
    const res = await call(r, 'get_work', { limit: 100, ...(cursor ? { cursor } : {}) });
    if (!res.ok) break;
    items.push(...res.data.items.filter(isWorkItemEntry).filter((e) => e.workItem.assignedTo.group === OPERATORS));
    cursor = res.data.nextCursor ?? undefined;
  } while (cursor && items.length < QUEUE_MAX);
  const rows = [];
  const people = r.app.service.board.manifest.people;
  for (const entry of items) {
    const process = (await pinnedVersion(r, entry.process, entry.version))?.process ?? null;
    // The run by its title, as My work and the Runs page name it, not by its process and id.
    const view = await call(r, 'get_run', { runId: entry.runId });
    rows.push({ entry, process, runName: process && view.ok ? runTitle(process, view.data.data.inputs, people) : null });
  }
  sendPage(r.res, 200, h(QueuePage, { frame: frame(r, 'Escalations', { current: 'operators', live: 'work' }), items: rows }));
}

export async function doctorPage(r: Request): Promise<void> {
  if (!operatorOnly(r)) return;
  const findings = await doctorFindings(r.app.service.board, r.app.service);
  const status = await syncStatus(r.app.service.board);
  const sync = status ? { ...status.words, failing: status.state.failingInARow > 0 } : null;
  // The sync's state has a section of its own, so its failing is not said twice.
  sendPage(r.res, 200, h(DoctorPage, { frame: frame(r, 'Doctor', { current: 'operators' }), findings: sync ? findings.filter((f) => f.kind !== 'git-sync') : findings, sync }));
}

/** The run's page, with the operators' forms for an operator while the run is open. */
export async function runPageFor(r: Request, runId: string, shown: { posted?: Posted; issues?: Map<string, string[]>; status?: number } = {}): Promise<void> {
  const open = (v: RunView) => v.run.state === 'active' || v.run.state === 'waiting';
  const posted = shown.posted ?? new Map([['requestId', [randomUUID()]]]);
  return runPage(r, runId, {
    ...(shown.status ? { status: shown.status } : {}),
    ...(r.actor.operator
      ? { actions: async (v: RunView) => (open(v) ? h(RunActions, { runId, csrf: r.me.csrf, posted, issues: shown.issues ?? new Map(), awaited: await awaitedEvents(r, v) }) : null) }
      : {}),
  });
}

/** The events the run's waiting `wait_for` steps wait for, from its pinned version. */
async function awaitedEvents(r: Request, v: RunView): Promise<string[]> {
  const waiting = new Set(v.steps.filter((s) => s.kind === 'wait_for' && s.state === 'waiting').map((s) => s.id));
  if (waiting.size === 0) return [];
  const pinned = await pinnedVersion(r, v.run.process, v.run.version);
  // A subprocess step shows as wait_for too (docs/profile-flow-1.md "10. Run view"), but waits for runs, not an event.
  return pinned?.process.steps.filter((s) => waiting.has(s.id) && s.kind === 'wait_for').map((s) => s.value) ?? [];
}

/** A refusal's issues under the form they belong to: `reason: …` at `cancel.reason`, the rest at the form. */
function issuesFor(form: 'cancel' | 'event', fields: string[], message: string, issues: readonly string[]): Map<string, string[]> {
  const out = new Map<string, string[]>();
  const add = (k: string, v: string) => out.set(k, [...(out.get(k) ?? []), v]);
  for (const i of issues.length ? issues : [message]) {
    const f = fields.find((x) => i.startsWith(`${x}:`) || i.startsWith(`${x} `));
    add(f ? `${form}.${f}` : form, i);
  }
  return out;
}

async function refused(r: Request, runId: string, form: 'cancel' | 'event', fields: string[], p: Posted, error: { code: string; message: string; issues?: string[] }): Promise<void> {
  if (error.code === 'invalid' || error.code === 'not_accepted') {
    return runPageFor(r, runId, { posted: p, issues: issuesFor(form, fields, error.message, error.issues ?? []), status: 422 });
  }
  const title = form === 'cancel' ? 'Not cancelled' : 'Event not sent';
  sendPage(
    r.res,
    statusFor(error.code),
    h(MessagePage, { frame: frame(r, title, { current: 'runs' }), title }, h('p', null, error.message), h('p', null, h('a', { href: `/runs/${runId}` }, 'Back to the run'))),
  );
}

export async function cancelPost(r: Request, runId: string, form: PostedForm): Promise<void> {
  const p = form.fields;
  const reason = (first(p, 'reason') ?? '').trim();
  const requestId = first(p, 'requestId') || randomUUID();
  // A reason given: confirm first. None: the service's refusal names what is missing.
  if (reason !== '' && first(p, 'confirm') !== 'yes') {
    const view = await readRun(r, runId);
    if (!view) return;
    const pinned = await pinnedVersion(r, view.run.process, view.run.version);
    const name = pinned ? runTitle(pinned.process, view.data.inputs, r.app.service.board.manifest.people) : humanize(view.run.process);
    return sendPage(r.res, 200, h(CancelConfirmPage, { frame: frame(r, `Cancel ${name}?`, { current: 'runs' }), runId, name, reason, csrf: r.me.csrf, requestId }));
  }
  const res = await call(r, 'cancel', { runId, reason, requestId });
  if (res.ok) return redirect(r.res, `/runs/${runId}?cancelled=1`);
  return refused(r, runId, 'cancel', ['reason'], p, res.error);
}

/** The event's data as typed: nothing, or a JSON object; anything else is named as the problem. */
function eventData(text: string): { data?: Record<string, unknown>; problem?: string } {
  if (text.trim() === '') return {};
  try {
    const v = JSON.parse(text) as unknown;
    return typeof v === 'object' && v !== null && !Array.isArray(v) ? { data: v as Record<string, unknown> } : { problem: 'data: must be a JSON object, like {"approved": true}' };
  } catch (e) {
    return { problem: `data: not JSON (${(e as Error).message})` };
  }
}

export async function eventPost(r: Request, runId: string, form: PostedForm): Promise<void> {
  const p = form.fields;
  const { data, problem } = eventData(first(p, 'data') ?? '');
  if (problem) return runPageFor(r, runId, { posted: p, issues: new Map([['event.data', [problem]]]), status: 422 });
  const res = await call(r, 'send_event', { runId, name: (first(p, 'name') ?? '').trim(), ...(data ? { data } : {}), requestId: first(p, 'requestId') || randomUUID() });
  if (res.ok) {
    const step = res.data.consumedBy;
    return redirect(r.res, `/runs/${runId}?event=1${step ? `&step=${encodeURIComponent(step)}` : ''}`);
  }
  return refused(r, runId, 'event', ['name', 'data'], p, res.error);
}
