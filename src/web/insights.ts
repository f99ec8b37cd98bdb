/**
 * The Insights page: the figures of `workboard stats` as charts, each bar a
 * link to the runs behind it, filtered by a plain GET form. Who sees what:
 * the processes list_processes offers the signed-in person, and of those an
 * operator sees every one and anyone else the processes whose published
 * versions give a role to a group they are in. The figures are read from the
 * runs' audit chains (service/run-history.ts), never from a store of their own.
 */
import { h } from 'preact';
import type { ServedBoard as Board } from '../service/web-board.js';
import { runsBehind, parseBar, barParams, type Bar } from '../insights/bars.js';
import type { RunFacts } from '../insights/facts.js';
import { insights, versionKey, type Insights, type InsightsFilter } from '../insights/figures.js';
import { parseFilter } from '../insights/filter.js';
import { unitOfLabel } from '../insights/time.js';
import { durationText, inUnit, labels, timeUnitFor, type Labels } from '../insights/labels.js';
import { processMapSvg } from '../map/index.js';
import { cutAtWord, runTitle } from '../words/index.js';
import { RunHistory, type PinnedProcess } from '../service/run-history.js';
import { InsightsPage, type Charts, type Drawn } from './pages/insights.js';
import { InsightsRunsPage } from './pages/insights-runs.js';
import { MessagePage } from './pages/message.js';
import { call, frame, sendPage, sendSvg, type Request } from './respond.js';
import { pinnedVersion, processList } from './runs.js';
import { chartSvg, type BarDatum, type ChartSpec } from './insight-charts.js';

/**
 * One history a board, kept for the app's life: the facts of unchanged chains are not read again.
 * It starts from the facts a CLI `stats` or an earlier `serve` kept, so a restart need not read every chain.
 */
const histories = new WeakMap<Board, Promise<RunHistory>>();

function historyOf(board: Board): Promise<RunHistory> {
  let hst = histories.get(board);
  if (!hst) {
    const fresh = new RunHistory(board);
    histories.set(board, (hst = fresh.loadKept().then(() => fresh)));
  }
  return hst;
}

interface Seen {
  filter: InsightsFilter;
  issues: string[];
  runs: RunFacts[];
  versions: Map<string, PinnedProcess>;
  labels: Labels;
  /** The processes this person may see figures of, as name and title. */
  processes: { name: string; title: string }[];
  /** Of those, the ones published with no run yet. */
  runless: Set<string>;
  now: string;
  /** What the figures depend on: the facts' generation, the filter as asked, the processes seen and the minute. */
  key: string;
}

/** The filter's words as the form and the links carry them. */
const FILTER_KEYS = ['process', 'version', 'since', 'until', 'tests'] as const;

export function filterQuery(q: URLSearchParams): URLSearchParams {
  const out = new URLSearchParams();
  for (const k of FILTER_KEYS) {
    const v = q.get(k)?.trim();
    if (v) out.set(k, v);
  }
  return out;
}

/** The page's figures are as of the minute, so a page asked for again within it is not figured again. */
const MINUTE = 60_000;

/** When each board's facts were last saved, or are due to be. */
const keptAt = new WeakMap<RunHistory, number>();

/**
 * Saves the facts for the next start a second after a page (packing and writing 10k runs' facts is
 * megabytes, no part of the page's time), and at most once a minute however many pages are asked
 * for. A board this server may only read still gets its figures.
 */
function keepSoon(history: RunHistory): void {
  const due = Math.max(Date.now() + 1000, (keptAt.get(history) ?? -Infinity) + MINUTE);
  if ((keptAt.get(history) ?? -Infinity) > Date.now()) return; // a save is already due
  keptAt.set(history, due);
  setTimeout(() => void history.saveKept().catch(() => undefined), due - Date.now()).unref();
}

async function seen(r: Request): Promise<Seen> {
  const now = new Date(Math.floor(Date.now() / MINUTE) * MINUTE);
  const q = r.url.searchParams;
  const parsed = parseFilter(Object.fromEntries(FILTER_KEYS.map((k) => [k, q.get(k) ?? undefined])), now);
  const history = await historyOf(r.app.service.board);
  const all = history.runs();
  keepSoon(history);
  const versions = await history.versionsOf(all);
  const groups = r.app.service.board.manifest.groups;
  const email = r.actor.email.toLowerCase();
  const member = (v: PinnedProcess) => Object.values(v.roles).some((g) => (groups[g] ?? []).some((m) => m.toLowerCase() === email));
  const list = await processList(r);
  const offered = new Set(list.map((p) => p.name));
  // A published process with no runs yet is still one to see figures of: its published version says who may.
  const pinned = new Set([...versions.keys()].map((key) => key.slice(0, key.lastIndexOf('@'))));
  for (const [key, v] of await history.versionsOf(list.filter((p) => !pinned.has(p.name)).map((p) => ({ process: p.name, version: p.version })))) versions.set(key, v);
  const mayRead = new Set<string>();
  for (const [key, v] of versions) {
    const name = key.slice(0, key.lastIndexOf('@'));
    if (offered.has(name) && (r.actor.operator || member(v))) mayRead.add(name);
  }
  const l = labels(versions, r.app.service.board.manifest.people);
  const issues = parsed.ok ? [] : [...parsed.issues];
  const filter: InsightsFilter = parsed.ok ? parsed.filter : { modes: ['live'] };
  if (filter.process !== undefined && !mayRead.has(filter.process)) {
    issues.push(`process: you see figures of no process named ${filter.process}`);
    delete filter.process;
  }
  return {
    filter,
    issues,
    runs: all.filter((x) => mayRead.has(x.process)),
    versions,
    labels: l,
    runless: new Set([...mayRead].filter((name) => !pinned.has(name))),
    processes: [...mayRead].map((name) => ({ name, title: l.process(name) })).sort((a, b) => a.title.localeCompare(b.title)),
    now: now.toISOString(),
    key: JSON.stringify([history.generation, filterQuery(q).toString(), issues, [...mayRead].sort(), now.getTime()]),
  };
}

/** The address of the runs behind a bar, under the page's filter. */
function barHref(filterQ: URLSearchParams, b: Bar): string {
  const q = new URLSearchParams(filterQ);
  for (const [k, v] of barParams(b)) q.set(k, v);
  return `/insights/runs?${q.toString()}`;
}

async function charts(s: Insights, l: Labels, fq: URLSearchParams): Promise<Charts> {
  // Axis labels are wrapped beside the bars (the tables beside the charts say each name whole); the process is named when several are shown.
  const several = new Set(s.steps.map((x) => x.process)).size > 1;
  const short = new Map<string, string>();
  const used = new Set<string>();
  for (const x of [...s.steps, ...s.rework]) {
    const key = `${x.process}/${x.step}`;
    if (short.has(key)) continue;
    const cut = cutAtWord(several ? `${l.process(x.process)}: ${l.step(x.process, x.step)}` : l.step(x.process, x.step), 100);
    let name = cut;
    for (let i = 2; used.has(name); i++) name = `${cut} (${i})`;
    used.add(name);
    short.set(key, name);
  }
  const stepName = (process: string, step: string) => short.get(`${process}/${step}`)!;
  const outcomes = [...new Set(s.periods.flatMap((w) => Object.keys(w.ended)))].sort();
  const endedName = (o: string) => `ended: ${o}`;
  const throughput: BarDatum[] = s.periods.flatMap((w) => [
    { group: w.period, series: 'started', value: w.started, href: barHref(fq, { bar: 'started', period: w.period }), description: `${w.period}: ${w.started} started` },
    ...outcomes.map((o) => ({
      group: w.period,
      series: endedName(o),
      value: w.ended[o] ?? 0,
      href: barHref(fq, { bar: 'ended', period: w.period, outcome: o }),
      description: `${w.period}: ${w.ended[o] ?? 0} ended ${o}`,
    })),
  ]);
  const done = s.steps.filter((x) => x.wall.count > 0);
  // Each chart of durations in the unit its longest bar fits: minutes on a minutes axis, days on a days axis.
  const cycleUnit = timeUnitFor(Math.max(0, ...done.map((x) => x.wall.p90Ms ?? 0)));
  const cycle: BarDatum[] = done.flatMap((x) => {
    const name = stepName(x.process, x.step);
    const href = barHref(fq, { bar: 'step', process: x.process, step: x.step });
    return [
      { group: name, series: 'median', value: inUnit(x.wall.p50Ms ?? 0, cycleUnit), href, description: `${name}: median ${durationText(x.wall.p50Ms)}` },
      { group: name, series: '90th percentile', value: inUnit(x.wall.p90Ms ?? 0, cycleUnit), href, description: `${name}: 90th percentile ${durationText(x.wall.p90Ms)}` },
    ];
  });
  const FOR = [
    ['agent', 'for agents', 'waitingForAgentsMs'],
    ['person', 'for people', 'waitingForPeopleMs'],
    ['timer', 'for timers and events', 'waitingForTimersMs'],
  ] as const;
  const waitSeries = FOR.filter(([, , k]) => s.steps.some((x) => x[k] > 0));
  const waitUnit = timeUnitFor(Math.max(0, ...s.steps.map((x) => waitSeries.reduce((sum, [, , k]) => sum + x[k], 0))));
  const waiting: BarDatum[] = s.steps.flatMap((x) => {
    const name = stepName(x.process, x.step);
    return waitSeries.map(([f, series, k]) => ({
      group: name,
      series,
      value: inUnit(x[k], waitUnit),
      href: barHref(fq, { bar: 'waiting', process: x.process, step: x.step, for: f }),
      description: `${name}: waited ${durationText(x[k])} ${series}`,
    }));
  });
  const rework: BarDatum[] = s.rework.map((x) => {
    const name = stepName(x.process, x.step);
    return { group: name, series: 'rejections', value: x.rejections, href: barHref(fq, { bar: 'rework', process: x.process, step: x.step }), description: `${name}: ${x.rejections} rejections` };
  });
  const draw = async (data: BarDatum[], spec: Omit<ChartSpec, 'data' | 'groups'>): Promise<Drawn | null> => {
    if (data.length === 0) return null;
    const c = { ...spec, data, groups: [...new Set(data.map((d) => d.group))] };
    const [wide, narrow] = await Promise.all([chartSvg(c, 'wide'), chartSvg(c, 'narrow')]);
    return { wide, narrow };
  };
  const [a, b, c, d] = await Promise.all([
    draw(throughput, { title: `Runs started and ended per ${s.per}`, measure: 'runs', whole: true, series: ['started', ...outcomes.map(endedName)], orient: 'columns', layout: 'beside' }),
    draw(cycle, { title: 'Time from reaching a step to finishing it', measure: cycleUnit.name, series: ['median', '90th percentile'], orient: 'rows', layout: 'beside' }),
    draw(waiting, { title: 'Where runs wait', measure: `${waitUnit.name} waited`, series: waitSeries.map(([, n]) => n), orient: 'rows', layout: 'stacked' }),
    draw(rework, { title: 'Rejections per approval step', measure: 'rejections', whole: true, series: ['rejections'], orient: 'rows', layout: 'beside' }),
  ]);
  return { throughput: a, cycle: b, waiting: c, rework: d };
}

/** The process the map is drawn for: the one filtered on, at the version asked for or the newest its runs pinned. */
function mapVersion(s: Seen): { process: string; version: number } | null {
  const name = s.filter.process;
  if (name === undefined) return null;
  if (s.filter.version !== undefined) return s.versions.has(versionKey(name, s.filter.version)) ? { process: name, version: s.filter.version } : null;
  const nums = [...s.versions.keys()].filter((k) => k.startsWith(`${name}@`)).map((k) => Number(k.slice(name.length + 1)));
  return nums.length > 0 ? { process: name, version: Math.max(...nums) } : null;
}

/** The figures and charts last drawn for a board, reused while what they depend on is the same. */
const drawn = new WeakMap<Board, { key: string; stats: Insights; charts: Charts }>();

export async function insightsPage(r: Request): Promise<void> {
  const s = await seen(r);
  const fq = filterQuery(r.url.searchParams);
  let d = drawn.get(r.app.service.board);
  if (!d || d.key !== s.key) {
    const stats = insights(s.runs, s.versions, s.filter, s.now);
    d = { key: s.key, stats, charts: await charts(stats, s.labels, fq) };
    drawn.set(r.app.service.board, d);
  }
  const { stats } = d;
  const map = mapVersion(s);
  sendPage(
    r.res,
    s.issues.length ? 422 : 200,
    h(InsightsPage, {
      frame: frame(r, 'Insights', { current: 'insights' }),
      stats,
      labels: s.labels,
      processes: s.processes,
      runless: s.filter.process !== undefined && s.runless.has(s.filter.process) ? s.labels.process(s.filter.process) : null,
      form: Object.fromEntries(FILTER_KEYS.map((k) => [k, r.url.searchParams.get(k) ?? ''])),
      issues: s.issues,
      charts: d.charts,
      map: map ? `/insights/map.svg?${fq.toString()}` : null,
      runsHref: (b: Bar) => barHref(fq, b),
    }),
  );
}

/** The runs behind one bar, each linked to its page. */
export async function insightsRuns(r: Request): Promise<void> {
  const s = await seen(r);
  const b = parseBar((k) => r.url.searchParams.get(k));
  const issues = [...s.issues, ...(b.ok ? [] : b.issues)];
  const ids = b.ok && issues.length === 0 ? runsBehind(s.runs, s.versions, s.filter, s.now, b.bar) : [];
  const facts = new Map(s.runs.map((x) => [x.id, x]));
  const runs = [];
  for (const id of ids) {
    const x = facts.get(id);
    if (x) runs.push({ id, title: await runName(r, x, s.labels), startedAt: new Date(x.startedAt).toISOString(), outcome: x.endedAt ? (x.outcome ?? 'ended') : null, mode: x.mode });
  }
  sendPage(
    r.res,
    issues.length ? 422 : 200,
    h(InsightsRunsPage, {
      frame: frame(r, 'Runs behind a figure', { current: 'insights' }),
      what: b.ok ? barWords(b.bar, s.labels) : 'a figure',
      back: `/insights?${filterQuery(r.url.searchParams).toString()}`,
      issues,
      runs,
    }),
  );
}

/** A run by its title, as the Runs page names it ("Expense approval · Jon Reyes · 120"); by its process when its inputs cannot be read. */
async function runName(r: Request, x: RunFacts, l: Labels): Promise<string> {
  const [view, pinned] = await Promise.all([call(r, 'get_run', { runId: x.id }), pinnedVersion(r, x.process, x.version)]);
  return view.ok && pinned ? runTitle(pinned.process, view.data.data.inputs, r.app.service.board.manifest.people) : l.process(x.process);
}

/** `week 2026-W49`; a month, a quarter, a year or years by their label alone. */
const periodWords = (period: string) => (unitOfLabel(period)?.per === 'week' ? `week ${period}` : period);

function barWords(b: Bar, l: Labels): string {
  switch (b.bar) {
    case 'started':
      return `runs started in ${periodWords(b.period)}`;
    case 'ended':
      return `runs that ended ${b.outcome} in ${periodWords(b.period)}`;
    case 'overdue':
      return `runs with a step that fell overdue in ${periodWords(b.period)}`;
    case 'step':
      return `runs that finished ${l.step(b.process, b.step)} (${l.process(b.process)})`;
    case 'waiting':
      return `runs that waited ${b.for === 'agent' ? 'for an agent' : b.for === 'person' ? 'for a person' : 'for a timer or an event'} at ${l.step(b.process, b.step)} (${l.process(b.process)})`;
    case 'rework':
      return `runs rejected at ${l.step(b.process, b.step)} (${l.process(b.process)})`;
    case 'agent':
      return `runs where ${l.who(b.agent)} escalated, had work returned or let a claim expire`;
  }
}

/**
 * Shades from light to darker for the time a step takes (median wall time), in five even bands of the slowest
 * step's time; the darkest still keeps the card's dark text above 4.5:1.
 */
const SHADES = ['#eef4fe', '#d6e6fd', '#b9d3fa', '#9cc0f7', '#7fadf4'];

/** The process map with each step's card filled by how long the step takes: a rule per step added to the map's own style. */
export async function insightsMap(r: Request): Promise<void> {
  const s = await seen(r);
  const mv = mapVersion(s);
  const v = mv ? s.versions.get(versionKey(mv.process, mv.version)) : undefined;
  if (!mv || !v || s.issues.length > 0)
    return void sendPage(r.res, 404, h(MessagePage, { frame: frame(r, 'Map', { current: 'insights' }), title: 'No map for these figures' }, h('p', null, 'Choose one process you may see.')));
  const stats = insights(s.runs, s.versions, s.filter, s.now);
  const rows = stats.steps.filter((x) => x.process === mv.process && x.wall.p50Ms !== null);
  const top = Math.max(1, ...rows.map((x) => x.wall.p50Ms!));
  const rules = rows.map((x) => {
    const shade = SHADES[Math.min(SHADES.length - 1, Math.floor((x.wall.p50Ms! / top) * SHADES.length))]!;
    return `g[data-step="${x.step.replace(/["\\]/g, '')}"] rect.card { fill: ${shade}; }`;
  });
  const svg = await processMapSvg(
    { process: v, roles: v.roles, version: mv.version },
    { lanes: { groups: r.app.service.board.manifest.groups }, subtitle: `version ${mv.version}, coloured by median time per step` },
  );
  const style = `<style>${rules.join(' ')}</style>`;
  sendSvg(r.res, svg.includes('</style>') ? svg.replace('</style>', `${rules.join(' ')}</style>`) : svg.replace(/(<svg[^>]*>)/, `$1${style}`));
}

export { SHADES };
