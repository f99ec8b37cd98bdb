/**
 * What a process map shows, before any geometry: lanes named by who acts,
 * a card or shape for each step, the decision points, forks and joins, the
 * ends (with the `rejected` and `failed` ends a decision can reach), and every
 * line with its label. Pure: a process (published or draft) in, a graph out.
 */
import type { Issue } from '../core/issues.js';
import { StepGraph } from '../process/graph.js';
import { JOIN, type Process, type Step } from '../process/model.js';
import { fieldLabel, humanize, inList, processTitle } from '../words/index.js';

export type NodeKind = 'start' | 'agent' | 'task' | 'approve' | 'decision' | 'fork' | 'join' | 'wait' | 'end' | 'missing';
export type EdgeKind = 'next' | 'route' | 'approved' | 'rejected' | 'failed' | 'timeout' | 'branch';

export interface MapNode {
  id: string;
  kind: NodeKind;
  lane: string;
  /** The step this node draws or belongs to (a decision belongs to the step it follows). */
  step?: string;
  /** Bold first line: the step id as words, "Start", or the outcome. */
  title: string;
  /** What a reader needs beyond the title: instructions, what a wait waits for. */
  text: string;
  /** A small line above the title: the kind and id. */
  tag: string;
  /** Outputs, evidence, checks, due. */
  badges: string[];
  /** Validation problems of this step (drafts). */
  problems: string[];
  /** flow-1: the other process whose runs this node starts (a subprocess step, an end with follow-on runs), drawn as a link to its map. */
  link?: string;
}

export interface MapEdge {
  id: string;
  from: string;
  to: string;
  kind: EdgeKind;
  label?: string;
  /** The step whose completion takes this line, and the step it leads to (for drawing a run's path). */
  fromStep?: string;
  toStep?: string;
}

export interface MapLane {
  id: string;
  label: string;
  detail: string;
}

export interface MapGraph {
  name: string;
  /** The process as people call it (its body's heading), for the map's heading. */
  title: string;
  description: string;
  lanes: MapLane[];
  nodes: MapNode[];
  edges: MapEdge[];
  /** Problems that belong to no step (drafts). */
  problems: string[];
}

export interface LaneContext {
  /** Role → group, as published; absent for a draft. */
  roles?: Record<string, string>;
  /** The board's groups and their members (WORK.md `groups`). */
  groups?: Record<string, readonly string[]>;
}

export const AGENT_LANE = 'agent';
export const CLOCK_LANE = 'clock';
export const START = '#start';

const plural = (n: number, one: string) => `${n} ${one}${n === 1 ? '' : 's'}`;

/** The lane a step's performer is drawn in, and how a reader knows that performer. */
function laneFor(person: string | undefined, ctx: LaneContext): MapLane {
  if (person === undefined || person === '') return { id: 'role:?', label: 'A person', detail: 'no person named yet' };
  if (person === 'initiator') return { id: 'initiator', label: 'Initiator', detail: 'the person who started the run' };
  if (person.includes('.')) {
    const field = humanize(person.slice(person.lastIndexOf('.') + 1));
    return { id: `path:${person}`, label: field, detail: `the person the run names as ${lower(field)}` };
  }
  const group = ctx.roles?.[person];
  if (group === undefined) return { id: `role:${person}`, label: humanize(person), detail: ctx.roles ? 'a role no group plays yet' : 'a role; a group is chosen at publish' };
  const members = ctx.groups?.[group];
  // The lane's label is the group; its detail says how many people it holds and the role they play here, in words.
  return { id: `role:${person}`, label: humanize(group), detail: `${members ? `${plural(members.length, 'member')}, ` : ''}as ${lower(humanize(person))}` };
}

/** Lower-cases the first letter, unless the first word is written in capitals ("IT", "QA lead"). */
const lower = (s: string) => (/^[A-Z][A-Z0-9]+\b/.test(s) ? s : s.charAt(0).toLowerCase() + s.slice(1));

/** What a card says under its text, in words: the fields a step records by their labels, the evidence it attaches. */
function badgesOf(s: Step): string[] {
  const out: string[] = [];
  if (s.output && Object.keys(s.output).length > 0) out.push(`Records ${inList(Object.entries(s.output).map(([k, f]) => lower(fieldLabel(k, f))))}`);
  if (s.evidence && s.evidence.length > 0) out.push(`Attaches ${inList(s.evidence.map((e) => (/^[aeiou]/.test(e) ? `an ${e}` : `a ${e}`)))}`);
  if (s.check && s.check.length > 0) out.push(`check: ${plural(s.check.length, 'question')}${s.advisory ? ', advisory' : ''}`);
  if (s.due) out.push(`due in ${s.due}`);
  return out;
}

const KIND_TAG: Record<string, string> = { agent: 'Agent step', task: 'Task', approve: 'Approval' };

/** flow-1: what a subprocess step shows: the runs of the other process it starts, and that it waits for them. */
function subprocessText(s: Step): { title: string; text: string } {
  const other = humanize(s.value);
  const each = s.subprocess?.forEach;
  return { title: `Runs of ${other}`, text: each ? `One run of ${other} per item of ${each}; goes on when they have ended.` : `Starts a run of ${other} and goes on when it ends.` };
}

/** flow-1: the follow-on rules an end with this outcome starts, in words, and the first rule's process to link to. */
function followOnOf(p: Process, outcome: string): { text: string; link: string } | null {
  const rules = (p.flow?.followOn ?? []).filter((r) => r.when.includes(outcome));
  const [first] = rules;
  if (first === undefined) return null;
  return { text: `Then starts a run of ${inList(rules.map((r) => humanize(r.start)))}.`, link: first.start };
}

/** What a wait shows: what it waits for, and for how long at most. */
function waitText(s: Step): { title: string; text: string } {
  if (s.kind === 'wait') return { title: `Wait ${s.value}`, text: `The run pauses ${s.value}, then goes on.` };
  if (s.kind === 'wait_until') return { title: 'Wait until a date', text: `Until the time in ${s.value}.` };
  return { title: `Wait for ${s.value}`, text: `Until the event ${s.value} arrives${s.timeout ? `, at most ${s.timeout}` : ''}.` };
}

/** Issues whose path starts `steps[i]`, by step index; the rest are the map's own. */
function problemsByStep(problems: readonly Issue[]): { byIndex: Map<number, string[]>; rest: string[] } {
  const byIndex = new Map<number, string[]>();
  const rest: string[] = [];
  for (const p of problems) {
    const m = /^steps\[(\d+)\]\.?(.*)$/.exec(p.path);
    const text = m ? `${m[2] ? `${m[2]}: ` : ''}${p.message}` : p.path ? `${p.path}: ${p.message}` : p.message;
    if (!m) rest.push(text);
    else byIndex.set(Number(m[1]), [...(byIndex.get(Number(m[1])) ?? []), text]);
  }
  return { byIndex, rest };
}

/** flow-1: the other processes a map links to, each with the step that starts its runs, in the order drawn. */
export function linkedProcesses(g: MapGraph): { process: string; node: MapNode }[] {
  return g.nodes.flatMap((n) => (n.link !== undefined ? [{ process: n.link, node: n }] : []));
}

export function mapGraph(p: Process, ctx: LaneContext = {}, problems: readonly Issue[] = []): MapGraph {
  const lanes = new Map<string, MapLane>();
  const nodes: MapNode[] = [];
  const edges: MapEdge[] = [];
  const ids = new Set(p.steps.map((s) => s.id));
  const branchOf = new StepGraph(p.steps).branches().place;
  const { byIndex, rest } = problemsByStep(problems);
  const useLane = (l: MapLane) => {
    if (!lanes.has(l.id)) lanes.set(l.id, l);
    return l.id;
  };
  const node = (n: Omit<MapNode, 'badges' | 'problems' | 'tag' | 'text'> & Partial<MapNode>) => nodes.push({ badges: [], problems: [], tag: '', text: '', ...n });
  const edge = (from: string, to: string, kind: EdgeKind, fromStep: string | undefined, toStep: string | undefined, label?: string) =>
    edges.push({ id: `e${edges.length}`, from, to, kind, ...(label !== undefined ? { label } : {}), ...(fromStep ? { fromStep } : {}), ...(toStep ? { toStep } : {}) });
  // A reference to a step the draft does not have is drawn as a marked placeholder.
  const missing = new Set<string>();
  const target = (s: Step, to: string): string => {
    const fork = to === JOIN ? branchOf.get(s.id)?.parallel : undefined;
    if (fork !== undefined) return `${fork}#join`;
    if (!ids.has(to)) missing.add(to);
    return ids.has(to) ? to : `#missing:${to}`;
  };
  const stepOf = (to: string) => (to.startsWith('#') || to === JOIN ? undefined : to);

  const agentLane: MapLane = { id: AGENT_LANE, label: 'Agent', detail: 'any agent of the board' };
  // Forks sit in the lane of the step before them (finishes too, until they are placed by what leads to them).
  let previousLane = agentLane;
  const drawn = new Set<string>();
  for (const [i, s] of p.steps.entries()) {
    const own = byIndex.get(i) ?? [];
    // A draft may name one id twice: the first is drawn, the second's problems are listed above the map.
    if (drawn.has(s.id)) {
      rest.push(...own.map((x) => `steps[${i}] (${s.id}) ${x}`));
      continue;
    }
    drawn.add(s.id);
    let l = previousLane;
    if (s.kind === 'agent') l = agentLane;
    else if (s.kind === 'task' || s.kind === 'approve') l = laneFor(s.person, ctx);
    else if (s.kind === 'wait' || s.kind === 'wait_until' || s.kind === 'wait_for' || s.kind === 'subprocess') l = { id: CLOCK_LANE, label: 'Waiting', detail: 'timers and events; no one acts' };
    const lane = useLane(l);
    previousLane = lanes.get(lane)!;

    if (s.kind === 'agent' || s.kind === 'task' || s.kind === 'approve') {
      node({ id: s.id, kind: s.kind, lane, step: s.id, title: humanize(s.id), text: s.value, tag: KIND_TAG[s.kind] ?? '', badges: badgesOf(s), problems: own });
    } else if (s.kind === 'finish') {
      const then = followOnOf(p, s.value || s.id);
      node({
        id: s.id,
        kind: 'end',
        lane,
        step: s.id,
        title: s.value || s.id,
        text: `The run ends ${s.value || s.id}.${then ? ` ${then.text}` : ''}`,
        tag: 'End',
        problems: own,
        ...(then ? { link: then.link } : {}),
      });
    } else if (s.kind === 'parallel') {
      node({ id: s.id, kind: 'fork', lane, step: s.id, title: humanize(s.id), text: 'The branches start together.', tag: 'Parallel', problems: own });
      node({ id: `${s.id}#join`, kind: 'join', lane, step: s.id, title: 'Join', text: 'Goes on when every branch is done.', tag: 'Join' });
    } else if (s.kind === 'subprocess') {
      const w = subprocessText(s);
      node({ id: s.id, kind: 'wait', lane, step: s.id, title: w.title, text: w.text, tag: 'Subprocess', problems: own, link: s.value });
    } else {
      const w = waitText(s);
      node({ id: s.id, kind: 'wait', lane, step: s.id, title: w.title, text: w.text, tag: 'Wait', problems: own });
    }

    // The lines this step starts.
    if (s.kind === 'parallel') {
      for (const b of s.branches ?? []) edge(s.id, target(s, b), 'branch', s.id, stepOf(b));
      if (typeof s.next === 'string') edge(`${s.id}#join`, target(s, s.next), 'next', s.id, stepOf(s.next));
    } else if (Array.isArray(s.next)) {
      const d = `${s.id}#decision`;
      node({ id: d, kind: 'decision', lane, step: s.id, title: 'Decision', text: `Where the run goes after ${humanize(s.id)}.`, tag: 'Decision' });
      edge(s.id, d, 'next', s.id, undefined);
      for (const r of s.next) edge(d, target(s, r.to), 'route', s.id, stepOf(r.to), r.when ?? `To ${humanize(r.to)}`);
    } else if (typeof s.next === 'string') {
      const label = s.kind === 'approve' ? 'Approved' : s.kind === 'wait_for' ? (s.timeout && !s.onTimeout ? `${s.value}, or after ${s.timeout}` : `${s.value} arrives`) : undefined;
      edge(s.id, target(s, s.next), s.kind === 'approve' ? 'approved' : 'next', s.id, stepOf(s.next), label);
    }
    if (s.onTimeout) edge(s.id, target(s, s.onTimeout), 'timeout', s.id, stepOf(s.onTimeout), `No ${s.value} after ${s.timeout ?? '?'}`);
    if (s.kind === 'approve') {
      if (s.onReject) edge(s.id, target(s, s.onReject), 'rejected', s.id, stepOf(s.onReject), 'Rejected');
      else {
        node({ id: `${s.id}#rejected`, kind: 'end', lane, step: s.id, title: 'rejected', text: 'A rejection ends the run rejected.', tag: 'End' });
        edge(s.id, `${s.id}#rejected`, 'rejected', s.id, undefined, 'Rejected');
      }
    }
    if (s.kind === 'task' || s.kind === 'approve') {
      // One failed end per lane, shared by the decisions in it: a calmer map than one per step.
      const failed = `#failed:${lane}`;
      if (!nodes.some((n) => n.id === failed)) node({ id: failed, kind: 'end', lane, title: 'failed', text: 'Deciding failed here ends the run failed.', tag: 'End' });
      // Unlabelled: the dotted line ends at "End: failed", which says it.
      edge(s.id, failed, 'failed', s.id, undefined);
    }
  }
  for (const m of missing) {
    const from = edges.find((e) => e.to === `#missing:${m}`)!;
    node({
      id: `#missing:${m}`,
      kind: 'missing',
      lane: nodes.find((n) => n.id === from.from)!.lane,
      title: m,
      text: `No step "${m}" in this file.`,
      tag: 'Missing step',
      problems: [`no step "${m}"`],
    });
  }
  // A finish sits beside the last step that leads to it, not wherever the file lists it.
  for (const n of nodes) {
    if (n.kind !== 'end' || n.id.includes('#')) continue;
    const last = [...nodes].reverse().find((x) => x.id !== n.id && edges.some((e) => e.from === x.id && e.to === n.id));
    if (last) n.lane = last.lane;
  }
  if (p.steps.length > 0) {
    const first = nodes[0]!;
    nodes.unshift({ id: START, kind: 'start', lane: first.lane, title: 'Start', text: 'A run starts here.', tag: '', badges: [], problems: [] });
    edges.unshift({ id: 'e-start', from: START, to: first.id, kind: 'next', toStep: first.id });
  }
  // Lanes in the order a reader meets them, the clock last.
  const order = [...lanes.values()].sort((a, b) => Number(a.id === CLOCK_LANE) - Number(b.id === CLOCK_LANE));
  return { name: p.name, title: processTitle(p), description: p.description, lanes: order, nodes, edges, problems: rest };
}
