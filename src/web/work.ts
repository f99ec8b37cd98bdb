/**
 * The person's side of work: "My work" (get_work), a work item's page
 * (get_run, with the item found among the person's own get_work items), and
 * deciding it (upload, then decide). Every answer is the service's: a person
 * outside the assignment finds no item of theirs and gets the service's
 * refusal when they post.
 */
import { randomUUID } from 'node:crypto';
import { h } from 'preact';
import type { DecideArgs } from '../protocol/tool-args.js';
import type { Process, Step } from '../process/model.js';
import { dataChanges } from './data-diff.js';
import { first, issuesByField, valuesFrom, webFields, type Posted } from './form-values.js';
import type { FieldContext } from './pages/fields.js';
import { InboxPage, type InboxRow, type InboxView } from './pages/inbox.js';
import { ConfirmPage, MessagePage } from './pages/message.js';
import { routeReason, WorkItemPage, type WorkItemProps } from './pages/work-item.js';
import { exactTime, personName, refusalWords, runTitle, stepTitleOf } from '../words/index.js';
import { call, frame, redirect, sendPage, statusFor, type Request } from './respond.js';
import { pinnedVersion, processList, stepOfWorkItem } from './runs.js';
import type { PostedForm } from './request.js';
import { chosenView, pickerFor, viewWords } from './saved-views.js';
import { isWorkItemEntry, type RunView, type WorkEntry, type WorkItem } from './views.js';

/** At most this many of a person's open items are read for one page of "My work". */
const INBOX_MAX = 500;

async function myWork(r: Request, process?: string): Promise<WorkEntry[]> {
  const out: WorkEntry[] = [];
  let cursor: string | undefined;
  do {
    const res = await call(r, 'get_work', { limit: 100, ...(process ? { process } : {}), ...(cursor ? { cursor } : {}) });
    if (!res.ok) break;
    // A person's get_work lists only work items.
    out.push(...res.data.items.filter(isWorkItemEntry));
    cursor = res.data.nextCursor ?? undefined;
  } while (cursor && out.length < INBOX_MAX);
  return out;
}

async function runView(r: Request, runId: string): Promise<RunView | { error: { code: string; message: string } }> {
  const res = await call(r, 'get_run', { runId });
  return res.ok ? res.data : { error: res.error };
}

export async function inbox(r: Request): Promise<void> {
  const process = r.url.searchParams.get('process') || undefined;
  const group = r.url.searchParams.get('group') || undefined;
  const viewId = chosenView(r, ['process', 'group']);
  const mine = await myWork(r, process);
  const view = viewId === null ? null : await r.app.service.savedView(viewId, new Set(mine.map((e) => e.runId)));
  const inView = view?.ok ? new Set(view.data.runs.map((x) => x.id)) : null;
  const all = inView ? mine.filter((e) => inView.has(e.runId)) : mine;
  const counts = new Map<string, number>();
  for (const e of all) {
    const g = e.workItem.assignedTo.group ?? 'assigned to you';
    counts.set(g, (counts.get(g) ?? 0) + 1);
  }
  const shown = all.filter((e) => !group || (e.workItem.assignedTo.group ?? 'assigned to you') === group).slice(0, 100);
  const rows: InboxRow[] = [];
  for (const entry of shown) {
    const v = await runView(r, entry.runId);
    const forWhom = r.app.service.decidedFor(r.actor.email, entry.workItem.assignedTo);
    rows.push({
      entry,
      view: 'error' in v ? null : v,
      process: (await pinnedVersion(r, entry.process, entry.version))?.process ?? null,
      ladder: await r.app.service.ladderSentence(entry.runId, entry.workItem.id),
      ...(forWhom ? { forWhom } : {}),
    });
  }
  sendPage(
    r.res,
    200,
    h(InboxPage, {
      frame: frame(r, 'My work', { current: 'work', live: 'work' }),
      rows,
      processes: await processList(r),
      groups: [...counts].map(([g, count]) => ({ group: g, count })).sort((a, b) => a.group.localeCompare(b.group)),
      filter: { ...(process ? { process } : {}), ...(group ? { group } : {}) },
      total: all.length,
      away: r.app.service.delegations().find((d) => d.from.toLowerCase() === r.actor.email.toLowerCase()) ?? null,
      picker: pickerFor(r, '/work', viewId, 'All my work'),
      ...(view ? { view: await inboxView(r, view, rows) } : {}),
    }),
  );
}

/** My work in a saved view: its title, and for a board layout each column's work items in My work's order. */
async function inboxView(r: Request, view: Awaited<ReturnType<Request['app']['service']['savedView']>>, rows: readonly InboxRow[]): Promise<InboxView> {
  if (!view.ok) return { title: 'No such view', refusal: view.error.message, columns: null };
  const { columns } = await viewWords(r, view.data);
  const items = (ids: readonly string[]) => rows.filter((x) => ids.includes(x.entry.runId)).map((x) => x.entry.workItem.id);
  return { title: view.data.view.title, columns: columns ? columns.map((c) => ({ title: c.title, items: items(c.runs) })) : null };
}

/** The published step definition, to know whether a rejection ends the run. */
async function pinnedStep(r: Request, view: RunView, stepId: string): Promise<Step | null> {
  const v = await pinnedVersion(r, view.run.process, view.run.version);
  return v?.process.steps.find((s) => s.id === stepId) ?? null;
}

function fieldContext(r: Request, posted: Posted, issues: readonly string[], addRow?: string): FieldContext {
  const m = r.app.service.board.manifest;
  return { prefix: 'output', posted, issues: issuesByField(issues), people: m.people, timeZone: m.notifications.timeZone, ...(addRow ? { addRow } : {}) };
}

interface Shown {
  posted?: Posted;
  issues?: readonly string[];
  addRow?: string;
  problem?: WorkItemProps['problem'];
  changes?: WorkItemProps['changes'];
  kept?: WorkItemProps['kept'];
  status?: number;
}

async function showItem(r: Request, view: RunView, item: WorkItem, s: Shown = {}): Promise<void> {
  r.app.seen.set(item.snapshot, view.data);
  const process = (await pinnedVersion(r, view.run.process, view.run.version))?.process ?? null;
  const forWhom = r.app.service.decidedFor(r.actor.email, item.assignedTo);
  sendPage(
    r.res,
    s.status ?? 200,
    h(WorkItemPage, {
      frame: frame(r, stepTitleOf(process, item.stepId), { current: 'work', live: `run:${view.run.id}` }),
      view,
      item,
      process,
      runName: process ? runTitle(process, view.data.inputs, r.app.service.board.manifest.people) : `run ${view.run.id}`,
      requestId: randomUUID(),
      ctx: fieldContext(r, s.posted ?? new Map<string, string[]>(), s.issues ?? [], s.addRow),
      ...(s.problem ? { problem: s.problem } : {}),
      ...(s.changes !== undefined ? { changes: s.changes } : {}),
      kept: s.kept ?? [],
      map: `/runs/${view.run.id}/map.svg`,
      ladder: await r.app.service.ladderSentence(view.run.id, item.id),
      ...(forWhom ? { forWhom } : {}),
    }),
  );
}

/** Say why there is no item to show: the run is unknown, the item is not this person's, or it is no longer open. */
async function noItem(r: Request, view: RunView | { error: { code: string; message: string } }, workItemId: string, stepId?: string): Promise<void> {
  const f = frame(r, 'Work item', { current: 'work' });
  if ('error' in view) return sendPage(r.res, statusFor(view.error.code), h(MessagePage, { frame: f, title: 'No such run' }, h('p', null, view.error.message)));
  if (view.workItems.some((w) => w.id === workItemId)) {
    return sendPage(r.res, 403, h(MessagePage, { frame: f, title: 'Not your work item' }, h('p', null, `This work item is not assigned to you (${r.actor.email}) or a group of yours.`)));
  }
  const step = stepId ?? (await stepOfWorkItem(r, view.run.id, workItemId));
  const done = step ? view.data.steps[step] : undefined;
  const people = r.app.service.board.manifest.people;
  const who = done?.by
    ? `${personName(people, done.by)} ${done.decision ? done.decision : 'did it'}${done.at ? `, ${exactTime(done.at, r.app.service.board.manifest.notifications.timeZone)}` : ''}.`
    : 'It was decided, or the run moved on.';
  return sendPage(
    r.res,
    409,
    h(
      MessagePage,
      { frame: f, title: 'Already decided', kind: 'warn' },
      h('p', null, `This work item is no longer open. ${who}`),
      h('p', null, h('a', { href: `/runs/${view.run.id}` }, 'See the run')),
    ),
  );
}

/** The item as this person's get_work lists it (the service's answer to whether it is theirs), with the run view. */
async function mine(r: Request, runId: string, workItemId: string): Promise<{ view: RunView; item: WorkItem } | { view: RunView | { error: { code: string; message: string } }; item: null }> {
  const view = await runView(r, runId);
  if ('error' in view) return { view, item: null };
  const entry = (await myWork(r, view.run.process)).find((e) => e.runId === runId && e.workItem.id === workItemId);
  // The view's own copy of the item: the same object, read with the same snapshot as the data shown.
  const item = entry ? (view.workItems.find((w) => w.id === workItemId) ?? null) : null;
  return item ? { view, item } : { view, item: null };
}

/**
 * The item as the run shows it open, with the run view: one `get_run`. A decision needs no more,
 * as `decide` checks for itself whether the item is this person's and still open, and says so.
 */
async function openItem(r: Request, runId: string, workItemId: string): Promise<{ view: RunView; item: WorkItem | null } | { view: { error: { code: string; message: string } }; item: null }> {
  const view = await runView(r, runId);
  if ('error' in view) return { view, item: null };
  return { view, item: view.workItems.find((w) => w.id === workItemId) ?? null };
}

export async function workItemPage(r: Request, runId: string, workItemId: string): Promise<void> {
  const got = await mine(r, runId, workItemId);
  if (!got.item) return noItem(r, got.view, workItemId);
  return showItem(r, got.view, got.item);
}

/** Files of this form to attach: uploaded now through `upload`, or kept from an earlier try. */
async function evidenceOf(r: Request, form: PostedForm): Promise<{ evidence: { kind: 'file' | 'link'; ref: string }[]; kept: WorkItemProps['kept']; issues: string[] }> {
  const kept: WorkItemProps['kept'] = [];
  const issues: string[] = [];
  for (const v of form.fields.get('evidence.fileRef') ?? []) {
    const bar = v.indexOf('|');
    kept.push({ ref: bar < 0 ? v : v.slice(0, bar), name: bar < 0 ? v : v.slice(bar + 1) });
  }
  for (const f of form.files.filter((x) => x.field === 'evidence.file')) {
    const res = await call(r, 'upload', { fileName: f.fileName.slice(0, 255), contentType: f.contentType.slice(0, 160), contentBase64: f.bytes.toString('base64'), requestId: randomUUID() });
    if (res.ok) kept.push({ ref: res.data.id, name: f.fileName });
    else issues.push(...(res.error.issues?.length ? res.error.issues.map((i) => `evidence: ${f.fileName}: ${i}`) : [`evidence: ${f.fileName}: ${res.error.message}`]));
  }
  const links = (form.fields.get('evidence.link') ?? []).map((l) => l.trim()).filter(Boolean);
  return { evidence: [...kept.map((k) => ({ kind: 'file' as const, ref: k.ref })), ...links.map((ref) => ({ kind: 'link' as const, ref }))], kept, issues };
}

/** The decide call a posted form stands for; date-times typed are read in the board's `timeZone`. */
function decideArgs(runId: string, workItemId: string, p: Posted, item: WorkItem | null, process: Process | null, evidence: DecideArgs['evidence'] & {}, timeZone: string): DecideArgs {
  // The decision is passed as posted: decide's schema refuses any other, and the form shows why.
  const decision = (first(p, 'decision') ?? '') as DecideArgs['decision'];
  const args: DecideArgs = { runId, workItemId, snapshot: first(p, 'snapshot') ?? '', decision, requestId: first(p, 'requestId') || randomUUID() };
  const text = (k: string) => (first(p, k) ?? '').trim();
  if (decision === 'completed') {
    const output = valuesFrom(webFields(item?.output), p, 'output', timeZone);
    if (Object.keys(output).length > 0) args.output = output;
    if (evidence.length > 0) args.evidence = evidence;
    const route = item?.next?.find((x) => x.to === text('next'));
    if (text('next')) args.next = text('next');
    // The spec requires a reason with a route; left empty, the chosen route's own words are that reason.
    if (text('reason')) args.reason = text('reason');
    else if (route) args.reason = routeReason(route, process);
    if (text('summary')) args.summary = text('summary');
  } else if (text('note')) args.note = text('note');
  return args;
}

export async function decidePost(r: Request, runId: string, workItemId: string, form: PostedForm): Promise<void> {
  const p = form.fields;
  const stepId = first(p, 'stepId');
  const got = await openItem(r, runId, workItemId);
  const item = got.item;
  const addRow = first(p, '_add');
  // "Add a row" without the script: the same form again, one row longer; nothing is decided.
  if (addRow !== undefined && item) return showItem(r, got.view, item, { posted: p, addRow });
  const decision = first(p, 'decision') ?? '';
  if (item && first(p, 'confirm') !== 'yes') {
    const step = decision === 'failed' || decision === 'rejected' ? await pinnedStep(r, got.view, item.stepId) : null;
    const ends =
      decision === 'failed'
        ? 'Failing ends the run at once; no later step runs.'
        : decision === 'rejected' && step && !step.onReject
          ? 'This approval returns nowhere when rejected: rejecting ends the run as rejected.'
          : null;
    if (ends) return sendPage(r.res, 200, h(ConfirmPage, { frame: frame(r, 'Confirm', { current: 'work' }), action: `/work/${runId}/${workItemId}`, posted: p, decision, ends }));
  }
  const ev = decision === 'completed' ? await evidenceOf(r, form) : { evidence: [], kept: [], issues: [] };
  if (ev.issues.length > 0 && item)
    return showItem(r, got.view, item, { posted: p, issues: ev.issues, kept: ev.kept, status: 422, problem: { kind: 'error', title: 'A file could not be stored', text: 'Nothing was decided.' } });
  const process = got.item ? ((await pinnedVersion(r, got.view.run.process, got.view.run.version))?.process ?? null) : null;
  const res = await call(r, 'decide', decideArgs(runId, workItemId, p, item, process, ev.evidence, r.app.service.board.manifest.notifications.timeZone));
  if (res.ok) return redirect(r.res, `/runs/${runId}?${decision === 'approved' || decision === 'rejected' ? 'decided' : 'done'}=${encodeURIComponent(workItemId)}`);
  const { code, message, issues = [] } = res.error;
  const fresh = await openItem(r, runId, workItemId);
  if (code === 'stale' && fresh.item) {
    const before = r.app.seen.get(first(p, 'snapshot') ?? '');
    const changes = before === undefined ? null : dataChanges(before, fresh.view.data);
    return showItem(r, fresh.view, fresh.item, { posted: p, kept: ev.kept, changes, status: 409 });
  }
  if (issues.includes('already_decided') || (!fresh.item && code !== 'forbidden')) return noItem(r, fresh.view, workItemId, stepId);
  if (fresh.item && (code === 'not_accepted' || code === 'invalid')) {
    return showItem(r, fresh.view, fresh.item, {
      posted: p,
      issues: issues.length ? issues : [message],
      kept: ev.kept,
      status: 422,
      problem: { kind: 'error', title: 'Not decided: please fix what is marked', text: message },
    });
  }
  const words = refusalWords(issues);
  return sendPage(
    r.res,
    statusFor(code),
    h(
      MessagePage,
      { frame: frame(r, 'Not decided', { current: 'work' }), title: 'Not decided' },
      h('p', null, words ?? message),
      words ? h('p', null, 'Nothing was changed.') : null,
      issues.length && !words
        ? h(
            'ul',
            null,
            issues.map((i) => h('li', null, i)),
          )
        : null,
    ),
  );
}
