/**
 * Reading runs: the list (list_runs, filtered and paged), a run's page
 * (get_run, the audit timeline verified as read, the map) and its file
 * evidence, downloaded only when the run the person may read names it,
 * always as an attachment.
 */
import { h } from 'preact';
import type { AuditEvent, PublishedVersion } from '../service/published.js';
import { processMapLayout, runMapSvg } from '../map/index.js';
import { MapPage } from './pages/map.js';
import { exactTime, humanize, processTitle, runTitle, stepTitleOf } from '../words/index.js';
import { MessagePage } from './pages/message.js';
import { RunPage } from './pages/run.js';
import { firstPage, RunsPage, type RunsFilter } from './pages/runs.js';
import { inputFilter } from './form-values.js';
import type { ListRunsArgs } from '../protocol/tool-args.js';
import type { RunRow } from '../protocol/views.js';
import { call, frame, sendPage, sendSvg, statusFor, type Request } from './respond.js';
import type { Completion, ProcessSummary, RunView, StepData } from './views.js';
import type { ComponentChildren } from 'preact';
import { peopleNames, processWords, say, type Words } from '../git/audit-words.js';
import type { Process } from '../process/model.js';
import type { TimelineEvent } from './pages/run.js';
import { chosenView, pickerFor, runsView } from './saved-views.js';

/** Runs on one page of the list. */
const RUNS_PAGE = 25;

export async function processList(r: Request): Promise<ProcessSummary[]> {
  const res = await call(r, 'list_processes', {});
  return res.ok ? res.data.items : [];
}

export async function runsList(r: Request): Promise<void> {
  const view = chosenView(r, ['process', 'state', 'inputs', 'cursor']);
  if (view !== null) return runsView(r, view);
  const q = r.url.searchParams;
  const filter: RunsFilter = {};
  for (const k of ['process', 'state', 'inputs'] as const) {
    const v = q.get(k)?.trim();
    if (v) filter[k] = v;
  }
  const cursor = q.get('cursor') || undefined;
  const { inputs, issues } = inputFilter(filter.inputs ?? '');
  let rows: RunRow[] = [];
  let next: string | null = null;
  let refusal: string | undefined;
  if (issues.length === 0) {
    // A state typed into the address is passed as it is: list_runs's schema refuses any other, and the page says why.
    const args = {
      limit: RUNS_PAGE,
      ...(filter.process ? { process: filter.process } : {}),
      ...(filter.state ? { state: filter.state as ListRunsArgs['state'] } : {}),
      ...(Object.keys(inputs).length ? { inputs } : {}),
      ...(cursor ? { cursor } : {}),
    };
    const res = await call(r, 'list_runs', args);
    if (res.ok) {
      const page = res.data;
      rows = page.items;
      next = page.nextCursor ? firstPage(filter, page.nextCursor) : null;
    } else refusal = [res.error.message, ...(res.error.issues ?? [])].join(': ');
  }
  const people = r.app.service.board.manifest.people;
  const named = [];
  for (const run of rows) {
    const v = await pinnedVersion(r, run.process, run.version);
    named.push({ run, name: v ? runTitle(v.process, run.inputs, people) : humanize(run.process) });
  }
  sendPage(
    r.res,
    issues.length || refusal ? 422 : 200,
    h(RunsPage, {
      frame: frame(r, 'Runs', { current: 'runs' }),
      rows: named,
      processes: await processList(r),
      filter,
      next,
      paged: cursor !== undefined,
      issues,
      ...(refusal ? { refusal } : {}),
      picker: pickerFor(r, '/runs', null, 'All runs'),
    }),
  );
}

export async function readRun(r: Request, runId: string): Promise<RunView | null> {
  const res = await call(r, 'get_run', { runId });
  if (res.ok) return res.data;
  sendPage(r.res, statusFor(res.error.code), h(MessagePage, { frame: frame(r, 'Run', { current: 'runs' }), title: 'No such run' }, h('p', null, res.error.message)));
  return null;
}

/** Versions read for one request: a page of My work names many runs of a few versions. */
const readFor = new WeakMap<Request, Map<string, Promise<PublishedVersion | null>>>();

/** A published version, or null when the board cannot read it (the page then falls back to ids). */
export function pinnedVersion(r: Request, name: string, version: number): Promise<PublishedVersion | null> {
  const memo = readFor.get(r) ?? new Map<string, Promise<PublishedVersion | null>>();
  readFor.set(r, memo);
  const key = `${name}@${version}`;
  if (!memo.has(key)) memo.set(key, r.app.service.processVersion(name, version));
  return memo.get(key)!;
}

const pinnedOf = (r: Request, view: RunView) => pinnedVersion(r, view.run.process, view.run.version);

export async function runMap(r: Request, view: RunView): Promise<string | null> {
  const v = await pinnedOf(r, view);
  return v ? runMapSvg(v, view, { lanes: { groups: r.app.service.board.manifest.groups }, linkTo: processHref }).catch(() => null) : null;
}

/** The step a run is at now (the first open one), as the map places it. */
const OPEN = new Set(['ready', 'claimed', 'waiting']);

/** The drawing's size as its <svg> tag gives it. */
function svgSize(svg: string): { width: number; height: number } | null {
  const m = /^<svg\b[^>]*?\swidth="([\d.]+)"\s+height="([\d.]+)"/.exec(svg);
  return m ? { width: Number(m[1]), height: Number(m[2]) } : null;
}

/** The run's map at full size, the current step ringed and scrolled to. */
export async function runMapPage(r: Request, runId: string): Promise<void> {
  const view = await readRun(r, runId);
  if (!view) return;
  const v = await pinnedOf(r, view);
  const opts = { lanes: { groups: r.app.service.board.manifest.groups } };
  const [layout, svg] = v ? await Promise.all([processMapLayout(v, opts).catch(() => null), runMap(r, view)]) : [null, null];
  const size = svg ? svgSize(svg) : null;
  if (!v || !layout || !size) return void sendPage(r.res, 404, h(MessagePage, { frame: frame(r, 'Map', { current: 'runs' }), title: 'No map for this run' }));
  const open = view.steps.find((s) => s.state !== null && OPEN.has(s.state));
  const node = open ? (layout.nodes.find((n) => n.node.id === open.id) ?? layout.nodes.find((n) => n.node.step === open.id)) : undefined;
  // A run's drawing adds a line under its heading (where the run is now): the boxes sit that much lower.
  const below = size.height - layout.height;
  const name = processTitle(v.process);
  sendPage(
    r.res,
    200,
    h(MapPage, {
      frame: frame(r, `Map of ${name}`, { current: 'runs', live: `run:${runId}` }),
      title: `Map of this run of ${name}`,
      back: { href: `/runs/${runId}`, text: runTitle(v.process, view.data.inputs, r.app.service.board.manifest.people) },
      image: `/runs/${runId}/map.svg`,
      width: size.width,
      height: size.height,
      alt: `Map of ${name}: the run's steps, with where it is now`,
      ...(node && open ? { here: { x: node.x, y: node.y + below, width: node.width, height: node.height, title: stepTitleOf(v.process, open.id) } } : {}),
    }),
  );
}

/** The step a work item belonged to, from the audit line that opened it (for an item no longer open). */
export async function stepOfWorkItem(r: Request, runId: string, workItemId: string): Promise<string | undefined> {
  const e = (await r.app.service.runTimeline(runId))?.events.find((x) => x.input.changes?.workItem === workItemId);
  return e?.entity.split('/').pop();
}

/** flow-1: where a map's link to another process goes: that process's page, whose map shows its latest version. */
export const processHref = (name: string): string => `/processes/${encodeURIComponent(name)}`;

/** The run's audit lines in the words `workboard log` says them, with the run's pinned process for titles. */
async function timeline(r: Request, view: RunView, process: Process | null, linked: readonly { id: string; title: string }[]) {
  const t = await r.app.service.runTimeline(view.run.id);
  if (t === null) return null;
  const facts = { process: view.run.process, version: view.run.version, inputs: view.data.inputs, ...(process ? processWords(process) : { kinds: new Map() }) };
  // flow-1: the blockers, parent and children a line names, by the titles the Lineage and blocked sections show.
  const titles = new Map(linked.map((l) => [l.id, l.title]));
  const { people, notifications } = r.app.service.board.manifest;
  const words: Words = { names: peopleNames(people), runs: new Map([[view.run.id, facts]]), titles, time: (iso) => exactTime(iso, notifications.timeZone) };
  const brief = (e: AuditEvent): TimelineEvent => ({ ts: e.ts, ...say(e, words) });
  return {
    events: t.events.map(brief),
    breaks: t.breaks.map((b) => ({ line: b.line ?? null, reason: b.reason })),
    superseded: t.superseded.map((b) => ({ after: b.after, events: b.events.map(brief) })),
  };
}

/** The run's map, with where the run is now. */
export async function mapImage(r: Request, runId: string): Promise<void> {
  const view = await readRun(r, runId);
  if (!view) return;
  const svg = await runMap(r, view);
  if (svg === null) return void sendPage(r.res, 404, h(MessagePage, { frame: frame(r, 'Map', { current: 'runs' }), title: 'No map for this run' }));
  sendSvg(r.res, svg);
}

/** What the address says just happened, after a redirect here. */
function doneNotice(q: URLSearchParams): { title: string; text?: string } | null {
  if (q.has('decided')) return { title: 'Your decision was recorded' };
  if (q.has('done')) return { title: 'Your work was recorded', text: 'Done: the run goes on from here.' };
  if (q.has('started')) return { title: 'The run started' };
  if (q.has('cancelled')) return { title: 'The run was cancelled' };
  const ev = q.get('event');
  if (ev !== null)
    return { title: 'The event was sent', text: q.get('step') ? `The waiting step "${humanize(q.get('step')!)}" received it.` : 'No step was waiting for it: the run holds it until one is.' };
  return null;
}

export async function runPage(r: Request, runId: string, opts: { actions?: (view: RunView) => Promise<ComponentChildren>; status?: number } = {}): Promise<void> {
  const view = await readRun(r, runId);
  if (!view) return;
  const done = doneNotice(r.url.searchParams);
  const process = (await pinnedOf(r, view))?.process ?? null;
  const name = process ? runTitle(process, view.data.inputs, r.app.service.board.manifest.people) : humanize(view.run.process);
  const flow = await r.app.service.runFlow(runId);
  const lineage = await r.app.service.runLineage(runId);
  const linked = [...(flow?.blockedBy ?? []), ...(lineage?.parent ? [lineage.parent] : []), ...(lineage?.children ?? [])];
  sendPage(
    r.res,
    opts.status ?? 200,
    h(RunPage, {
      frame: frame(r, name, { current: 'runs', live: `run:${runId}` }),
      view,
      process,
      name,
      timeline: await timeline(r, view, process, linked),
      flow,
      lineage,
      map: `/runs/${runId}/map.svg`,
      ...(done ? { done } : {}),
      ...(opts.actions ? { actions: await opts.actions(view) } : {}),
    }),
  );
}

function evidenceRefs(view: RunView): Set<string> {
  const refs = new Set<string>();
  const add = (c: Completion) => c.evidence?.forEach((e) => e.kind === 'file' && refs.add(e.ref));
  for (const d of Object.values(view.data.steps) as (StepData | undefined)[]) {
    if (!d) continue;
    add(d);
    d.history?.forEach(add);
  }
  for (const w of view.workItems) if (w.escalation?.candidate) add(w.escalation.candidate);
  return refs;
}

/** A content type safe to send as-is, else a neutral one. */
function safeType(t: unknown): string {
  return typeof t === 'string' && /^[a-z0-9!#$&^_.+-]+\/[a-z0-9!#$&^_.+-]+$/i.test(t) ? t : 'application/octet-stream';
}

export async function fileDownload(r: Request, runId: string, ref: string): Promise<void> {
  const view = await readRun(r, runId);
  if (!view) return;
  const notHere = () => sendPage(r.res, 404, h(MessagePage, { frame: frame(r, 'File', { current: 'runs' }), title: 'No such file on this run' }));
  if (!evidenceRefs(view).has(ref)) return notHere();
  const file = await r.app.service.storedFile(ref);
  if (!file) return notHere();
  const { bytes } = file;
  const name = typeof file.fileName === 'string' && file.fileName ? file.fileName : ref;
  const ascii = name.replace(/[^\x20-\x7e]|["\\]/g, '_');
  r.res.writeHead(200, {
    'content-type': safeType(file.contentType),
    'content-length': bytes.length,
    'content-disposition': `attachment; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(name)}`,
    'x-content-type-options': 'nosniff',
    'content-security-policy': "default-src 'none'; sandbox",
    'cache-control': 'private, no-store',
  });
  r.res.end(bytes);
}
