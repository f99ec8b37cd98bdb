/**
 * The steps list and each step's own keys (docs/processes.md "Steps"): ids, the one kind key,
 * which keys each kind allows, next and its routes, branch entries,
 * durations and evidence, and what the server's offer permits.
 */
import type { IssueList, PathSegment } from '../../core/issues.js';
import { DURATION_PATTERN, NAME_PATTERN, STEP_ID_PATTERN, STEP_KINDS, type Route, type Step, type StepKind } from '../model.js';
import { EVIDENCE_KINDS, type EvidenceKind } from '../../protocol/completions.js';
import type { Offer } from '../../protocol/offer.js';
import { checkQuestions } from './check.js';
import { checkFields } from './fields.js';
import { subprocessKeys } from './subprocess.js';
import { blank, isObj, list, own, standInId, unknownKeys, type Obj, type StepDraft } from './raw.js';

/** The optional keys each kind allows, beside `id` and the kind key. */
const KIND_KEYS: Record<StepKind, readonly string[]> = {
  agent: ['output', 'evidence', 'next', 'due', 'check', 'advisory'],
  task: ['person', 'output', 'evidence', 'next', 'due', 'check', 'advisory'],
  approve: ['person', 'next', 'on_reject', 'due'],
  wait: ['next'],
  wait_until: ['next'],
  wait_for: ['next', 'timeout', 'on_timeout'],
  finish: [],
  parallel: ['next'],
  subprocess: ['inputs', 'for_each', 'on_failure', 'next', 'due'],
};
/** The core's kinds, as a refusal names them (flow-1's subprocess is its profile's to tell of). */
const CORE_KINDS = STEP_KINDS.filter((k) => k !== 'subprocess');
const STEP_KEYS = new Set<string>(['id', ...STEP_KINDS, ...Object.values(KIND_KEYS).flat()]);

/**
 * Each step checked on its own (docs/processes.md "Steps"). Every entry gets a draft, so the
 * references and reachability can still be checked: an entry that is no
 * step (not a map, no kind key, two kind keys) gets a `shadow` draft holding
 * only the edges it names, and an entry without a usable id is checked
 * under a stand-in id (`#<index>`, which no step id can equal). `complete`
 * says whether every entry drafted as a step in its own right.
 */
export function draftSteps(issues: IssueList, offer: Offer, value: unknown, present: boolean): { drafts: StepDraft[]; complete: boolean } | undefined {
  if (!present) {
    issues.add(['steps'], 'required');
    return undefined;
  }
  if (!Array.isArray(value)) {
    issues.add(['steps'], 'expected a list of steps');
    return undefined;
  }
  if (value.length === 0) {
    issues.add(['steps'], 'needs at least one step');
    return undefined;
  }
  const drafts: StepDraft[] = [];
  let complete = true;
  const firstIndex = new Map<string, number>();
  value.forEach((raw, index) => {
    const path: PathSegment[] = ['steps', index];
    if (!isObj(raw)) {
      issues.add(path, 'expected a step: a map with id and one kind key');
      complete = false;
      drafts.push(shadowDraft({}, index, standInId(index), 'task'));
      return;
    }
    for (const k of Object.keys(raw)) if (!STEP_KEYS.has(k)) issues.add([...path, k], 'unknown key');
    let id = '';
    if (!own(raw, 'id')) issues.add([...path, 'id'], 'required');
    else if (typeof raw.id !== 'string' || !STEP_ID_PATTERN.test(raw.id)) issues.add([...path, 'id'], 'must match ^[a-z][a-z0-9_-]{0,63}$: a lowercase letter, then letters, digits, _ or -');
    else {
      id = raw.id;
      const prev = firstIndex.get(id);
      if (prev !== undefined) issues.add([...path, 'id'], `duplicate step id "${id}" (also steps[${prev}])`);
      else firstIndex.set(id, index);
    }
    if (id === '') complete = false;
    const kinds = STEP_KINDS.filter((k) => own(raw, k));
    if (kinds.length === 0) {
      issues.add(path, `needs one kind key: ${list(CORE_KINDS)}`);
      complete = false;
      drafts.push(shadowDraft(raw, index, id || standInId(index), 'task'));
      return;
    }
    if (kinds.length > 1) {
      issues.add(path, `has ${kinds.length} kind keys (${list(kinds)}); a step has exactly one`);
      complete = false;
      drafts.push(shadowDraft(raw, index, id || standInId(index), kinds[0] as StepKind));
      return;
    }
    const kind = kinds[0] as StepKind;
    const allowed = KIND_KEYS[kind];
    for (const k of Object.keys(raw)) {
      if (k === 'id' || k === kind || !STEP_KEYS.has(k) || allowed.includes(k)) continue;
      issues.add([...path, k], `not allowed on ${kind === 'approve' || kind === 'agent' ? 'an' : 'a'} ${kind} step`);
    }
    drafts.push({ step: draftStep(issues, offer, raw, kind, id || standInId(index), path), index, explicitNext: own(raw, 'next'), raw, shadow: false });
  });
  return { drafts, complete };
}

/** An entry that is no step: only the edges it names, read without judging them (its own issues are reported already). */
function shadowDraft(raw: Obj, index: number, id: string, kind: StepKind): StepDraft {
  const text = (v: unknown) => (typeof v === 'string' ? v : undefined);
  const step: Step = { id, kind, value: '', next: null };
  if (typeof raw.next === 'string') step.next = raw.next;
  else if (Array.isArray(raw.next)) step.next = raw.next.map((r: unknown) => ({ to: text(r) ?? (isObj(r) ? (text(r.to) ?? '') : '') }));
  const back = text(raw.on_reject);
  const timeout = text(raw.on_timeout);
  if (back) step.onReject = back;
  if (timeout) step.onTimeout = timeout;
  if (Array.isArray(raw.parallel)) step.branches = raw.parallel.filter((x): x is string => typeof x === 'string');
  return { step, index, explicitNext: step.next !== null, raw, shadow: true };
}

function draftStep(issues: IssueList, offer: Offer, raw: Obj, kind: StepKind, id: string, path: PathSegment[]): Step {
  const step: Step = { id, kind, value: '', next: null };
  const kp = [...path, kind];
  const v = raw[kind];
  switch (kind) {
    case 'agent':
    case 'task':
    case 'approve':
      if (typeof v !== 'string') issues.add(kp, 'expected text: the instructions');
      else if (v.trim() === '') issues.add(kp, 'instructions must not be empty');
      else step.value = v;
      break;
    case 'wait':
      step.value = checkDuration(issues, v, kp) ?? '';
      break;
    case 'wait_until':
      if (typeof v !== 'string' || v === '') issues.add(kp, 'expected a path such as inputs.startDate');
      else step.value = v;
      break;
    case 'wait_for':
      if (typeof v !== 'string' || !STEP_ID_PATTERN.test(v)) issues.add(kp, 'event name must match ^[a-z][a-z0-9_-]{0,63}$');
      else step.value = v;
      break;
    case 'finish':
      if (typeof v !== 'string' || !STEP_ID_PATTERN.test(v)) issues.add(kp, 'outcome must be a short word matching ^[a-z][a-z0-9_-]{0,63}$, e.g. onboarded');
      else step.value = v;
      break;
    case 'parallel':
      step.branches = checkBranchList(issues, v, kp);
      break;
    case 'subprocess':
      if (!offer.profiles.has('flow-1')) issues.add(kp, 'needs profile flow-1, not enabled');
      if (typeof v !== 'string' || v.length > 64 || !NAME_PATTERN.test(v)) issues.add(kp, 'expected the name of a published process, e.g. equipment-order');
      else step.value = v;
      step.subprocess = subprocessKeys(issues, raw, path);
      break;
  }
  if ((kind === 'task' || kind === 'approve') && !own(raw, 'person')) issues.add([...path, 'person'], `required on ${kind === 'approve' ? 'an approve' : 'a task'} step`);
  if (own(raw, 'person') && KIND_KEYS[kind].includes('person')) {
    if (typeof raw.person !== 'string' || raw.person === '') issues.add([...path, 'person'], 'expected a role name, initiator, or a path');
    else step.person = raw.person;
  }
  if (own(raw, 'output') && KIND_KEYS[kind].includes('output')) step.output = checkFields(issues, raw.output, [...path, 'output']);
  if (own(raw, 'evidence') && KIND_KEYS[kind].includes('evidence')) step.evidence = checkEvidence(issues, raw.evidence, [...path, 'evidence']);
  if (own(raw, 'next') && kind !== 'finish') step.next = checkNext(issues, raw.next, kind, [...path, 'next']);
  for (const [key, prop] of [
    ['on_reject', 'onReject'],
    ['on_timeout', 'onTimeout'],
  ] as const) {
    if (!own(raw, key) || !KIND_KEYS[kind].includes(key)) continue;
    if (typeof raw[key] !== 'string' || raw[key] === '') issues.add([...path, key], 'expected a step id');
    else step[prop] = raw[key];
  }
  for (const key of ['due', 'timeout'] as const) {
    if (!own(raw, key) || !KIND_KEYS[kind].includes(key)) continue;
    const d = checkDuration(issues, raw[key], [...path, key]);
    if (d !== undefined) step[key] = d;
  }
  if (kind === 'wait_for' && own(raw, 'on_timeout') && !own(raw, 'timeout')) issues.add([...path, 'on_timeout'], 'needs timeout: on_timeout is where the run goes when the timeout passes');
  if (own(raw, 'check') && KIND_KEYS[kind].includes('check')) {
    if (!offer.profiles.has('check-1')) issues.add([...path, 'check'], 'needs profile check-1, not enabled');
    step.check = checkQuestions(issues, raw.check, [...path, 'check']);
  }
  if (own(raw, 'advisory') && KIND_KEYS[kind].includes('advisory')) {
    if (typeof raw.advisory !== 'boolean') issues.add([...path, 'advisory'], 'expected true or false');
    else if (!own(raw, 'check')) issues.add([...path, 'advisory'], 'allowed only beside check');
    else step.advisory = raw.advisory;
  }
  if (kind === 'parallel' && !offer.profiles.has('parallel-1')) issues.add(kp, 'needs profile parallel-1, not enabled');
  if (step.evidence?.includes('file') && !offer.tools.has('upload')) issues.add([...path, 'evidence'], 'needs tool upload, not offered');
  if (kind === 'wait_for' && !offer.tools.has('send_event')) issues.add(kp, 'needs tool send_event, not offered');
  return step;
}

function checkDuration(issues: IssueList, v: unknown, path: PathSegment[]): string | undefined {
  if (typeof v === 'string' && DURATION_PATTERN.test(v)) return v;
  issues.add(path, 'expected a duration: a whole number followed by m, h or d, e.g. 30m, 4h, 3d');
  return undefined;
}

function checkEvidence(issues: IssueList, v: unknown, path: PathSegment[]): EvidenceKind[] {
  if (!Array.isArray(v)) {
    issues.add(path, 'expected a list of evidence kinds: file, link');
    return [];
  }
  const out: EvidenceKind[] = [];
  v.forEach((k: unknown, i) => {
    if (k !== 'file' && k !== 'link') issues.add([...path, i], `must be ${list(EVIDENCE_KINDS)}`);
    else if (out.includes(k)) issues.add([...path, i], `"${k}" listed twice`);
    else out.push(k);
  });
  return out;
}

function checkNext(issues: IssueList, v: unknown, kind: StepKind, path: PathSegment[]): string | Route[] | null {
  if (typeof v === 'string') {
    if (v === '') issues.add(path, 'expected a step id');
    return v;
  }
  if (!Array.isArray(v)) {
    issues.add(path, 'expected a step id or a list of routes');
    return null;
  }
  if (kind !== 'agent' && kind !== 'task' && kind !== 'subprocess') {
    issues.add(path, 'a list of routes is allowed only on agent and task steps; use one step id');
    return null;
  }
  if (v.length < 2) issues.add(path, 'a list of routes needs two or more; for one, name the step id');
  const routes: Route[] = [];
  v.forEach((r, i) => {
    if (typeof r === 'string') {
      if (r === '') issues.add([...path, i], 'expected a step id');
      routes.push({ to: r });
      return;
    }
    if (!isObj(r)) {
      issues.add([...path, i], 'expected a step id or { to, when }');
      // A placeholder, so that a route's index is always its entry's index in the file.
      routes.push({ to: '' });
      return;
    }
    unknownKeys(issues, r, ['to', 'when'], [...path, i]);
    if (!own(r, 'to')) issues.add([...path, i, 'to'], 'required');
    else if (typeof r.to !== 'string' || r.to === '') issues.add([...path, i, 'to'], 'expected a step id');
    const route: Route = { to: typeof r.to === 'string' ? r.to : '' };
    if (own(r, 'when')) {
      if (blank(r.when)) issues.add([...path, i, 'when'], 'expected non-empty text');
      else route.when = r.when as string;
    }
    routes.push(route);
  });
  const seen = new Map<string, number>();
  routes.forEach((r, i) => {
    if (r.to === '') return;
    const prev = seen.get(r.to);
    if (prev !== undefined) issues.add([...path, i], `route to "${r.to}" listed twice (also next[${prev}])`);
    else seen.set(r.to, i);
  });
  return routes;
}

function checkBranchList(issues: IssueList, v: unknown, path: PathSegment[]): string[] {
  if (!Array.isArray(v) || v.length < 2) {
    issues.add(path, 'expected a list of two or more branch entry step ids');
    return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];
  }
  const out: string[] = [];
  v.forEach((e, i) => {
    if (typeof e !== 'string' || e === '') issues.add([...path, i], 'expected a step id');
    else if (out.includes(e)) issues.add([...path, i], `"${e}" listed twice`);
    else out.push(e);
  });
  return out;
}
