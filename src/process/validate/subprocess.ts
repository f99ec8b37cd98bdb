/**
 * flow-1's keys that start runs of other processes, as one file reads them
 * (docs/profile-flow-1.md "5. Subprocess steps" and "6. Follow-on runs"): a
 * subprocess step's `inputs`, `for_each` and `on_failure`, a follow-on rule's
 * keys, and every data path they name checked against this file's inputs and
 * steps. Whether the other process exists and takes those inputs is checked
 * at publication, against what the board has published (process/links.ts).
 */
import type { IssueList, PathSegment } from '../../core/issues.js';
import {
  FIELD_NAME_PATTERN,
  MAX_FOLLOW_ONS,
  NAME_PATTERN,
  PRIORITY_LEVELS,
  STEP_ID_PATTERN,
  type FieldType,
  type Fields,
  type FollowOn,
  type Process,
  type Step,
  type SubprocessKeys,
} from '../model.js';
import { isObj, own, unknownKeys, type Obj } from './raw.js';

/** A subprocess step's own keys beside its kind key. */
export function subprocessKeys(issues: IssueList, raw: Obj, path: PathSegment[]): SubprocessKeys {
  const out: SubprocessKeys = { inputs: own(raw, 'inputs') ? inputMap(issues, raw.inputs, [...path, 'inputs']) : {}, onFailure: 'fail' };
  if (own(raw, 'for_each')) {
    if (typeof raw.for_each !== 'string' || raw.for_each === '') issues.add([...path, 'for_each'], 'expected a path to a list, e.g. inputs.systems');
    else out.forEach = raw.for_each;
  }
  if (own(raw, 'on_failure')) {
    if (raw.on_failure !== 'fail' && raw.on_failure !== 'continue') issues.add([...path, 'on_failure'], 'expected fail or continue');
    else if (!own(raw, 'for_each')) issues.add([...path, 'on_failure'], 'allowed only beside for_each');
    else out.onFailure = raw.on_failure;
  }
  return out;
}

/** `{ <the other process's input>: <path in this run's data> }`. */
function inputMap(issues: IssueList, v: unknown, path: PathSegment[]): Record<string, string> {
  if (!isObj(v)) {
    issues.add(path, "expected a map from the other process's inputs to paths in this run's data");
    return {};
  }
  const out: Record<string, string> = {};
  for (const [k, p] of Object.entries(v)) {
    if (!FIELD_NAME_PATTERN.test(k)) issues.add([...path, k], 'not a field name');
    else if (typeof p !== 'string' || p === '') issues.add([...path, k], 'expected a path such as inputs.name or steps.offer.output.startDate');
    else out[k] = p;
  }
  return out;
}

const FOLLOW_KEYS = ['when', 'start', 'inputs', 'priority'];

/** `flow.follow_on`: at most ten rules, each naming outcomes, a process and its inputs. */
export function followOnRules(issues: IssueList, v: unknown, path: PathSegment[]): FollowOn[] {
  if (!Array.isArray(v) || v.length === 0) {
    issues.add(path, 'expected a list of rules: { when, start, inputs, priority }');
    return [];
  }
  if (v.length > MAX_FOLLOW_ONS) issues.add(path, `at most ${MAX_FOLLOW_ONS} rules; this lists ${v.length}`);
  const out: FollowOn[] = [];
  v.forEach((r: unknown, i) => {
    const at = [...path, i];
    if (!isObj(r)) {
      issues.add(at, 'expected a rule: { when, start, inputs, priority }');
      return;
    }
    unknownKeys(issues, r, FOLLOW_KEYS, at);
    const when = typeof r.when === 'string' ? [r.when] : Array.isArray(r.when) ? r.when : null;
    if (!when || when.length === 0 || !when.every((w): w is string => typeof w === 'string' && STEP_ID_PATTERN.test(w))) issues.add([...at, 'when'], 'expected an outcome, or a list of outcomes');
    if (typeof r.start !== 'string' || !NAME_PATTERN.test(r.start)) issues.add([...at, 'start'], 'expected the name of a published process');
    let priority: number | undefined;
    if (own(r, 'priority')) {
      if (typeof r.priority === 'string' && Object.hasOwn(PRIORITY_LEVELS, r.priority)) priority = PRIORITY_LEVELS[r.priority as keyof typeof PRIORITY_LEVELS];
      else issues.add([...at, 'priority'], `expected one of ${Object.keys(PRIORITY_LEVELS).join(', ')}`);
    }
    const rule: FollowOn = {
      when: (when ?? []).filter((w): w is string => typeof w === 'string'),
      start: typeof r.start === 'string' ? r.start : '',
      inputs: own(r, 'inputs') ? inputMap(issues, r.inputs, [...at, 'inputs']) : {},
    };
    if (priority !== undefined) rule.priority = priority;
    out.push(rule);
  });
  return out;
}

/** What a path in run data holds, as far as the file declares it: a type, `any` (a subprocess step's output), or a problem. */
export type PathType = { type: FieldType | 'any'; items?: FieldType | 'any' } | { problem: string };

/** The type a mapping's path reads: `inputs.<f>`, `steps.<id>.output.<f>`, and, with an item, `item` or `item.<f>`. */
export function pathType(process: Pick<Process, 'inputs' | 'steps'>, path: string, item?: FieldType | 'any'): PathType {
  const parts = path.split('.');
  const declared = (fields: Fields, f: string | undefined): PathType => {
    const spec = f !== undefined && Object.hasOwn(fields, f) ? fields[f] : undefined;
    return spec ? { type: spec.type, ...(spec.items ? { items: spec.items.type } : {}) } : { problem: `"${path}" names no declared field` };
  };
  if (parts[0] === 'item' && parts.length <= 2) {
    if (item === undefined) return { problem: `"${path}": item is there only on a step with for_each` };
    return parts.length === 1 ? { type: item } : { type: 'any' };
  }
  if (parts.length === 2 && parts[0] === 'inputs') return declared(process.inputs, parts[1]);
  if (parts.length === 4 && parts[0] === 'steps' && parts[2] === 'output') {
    const step: Step | undefined = process.steps.find((s) => s.id === parts[1]);
    if (!step) return { problem: `"${path}" names no step "${parts[1]}"` };
    if (step.kind === 'subprocess') return parts[3] === 'items' || parts[3] === 'runs' ? { type: 'list', items: 'any' } : { type: 'any' };
    return declared(step.output ?? {}, parts[3]);
  }
  return { problem: `"${path}" is not a path; expected inputs.<field>, steps.<id>.output.<field>${item !== undefined ? ', item or item.<field>' : ''}` };
}

/** Every path a subprocess step and a follow-on rule name, checked against this file (docs/profile-flow-1.md "5. Subprocess steps"). */
export function checkLinkPaths(issues: IssueList, process: Pick<Process, 'inputs' | 'steps' | 'flow'>, stepIndex: (id: string) => number): void {
  for (const step of process.steps) {
    if (step.kind !== 'subprocess' || !step.subprocess) continue;
    const at: PathSegment[] = ['steps', stepIndex(step.id)];
    const item = itemType(process, step, (p) => issues.add([...at, 'for_each'], p));
    for (const [k, p] of Object.entries(step.subprocess.inputs)) {
      const t = pathType(process, p, item ?? undefined);
      if ('problem' in t) issues.add([...at, 'inputs', k], t.problem);
    }
  }
  (process.flow?.followOn ?? []).forEach((rule, i) => {
    for (const [k, p] of Object.entries(rule.inputs)) {
      const t = pathType(process, p);
      if ('problem' in t) issues.add(['flow', 'follow_on', i, 'inputs', k], t.problem);
    }
  });
}

/** The type of one item of a step's for_each list; null when the step has none. */
export function itemType(process: Pick<Process, 'inputs' | 'steps'>, step: Step, problem: (message: string) => void = () => undefined): FieldType | 'any' | null {
  const each = step.subprocess?.forEach;
  if (each === undefined) return null;
  const t = pathType(process, each);
  if ('problem' in t) problem(t.problem);
  else if (t.type !== 'list' && t.type !== 'any') problem(`"${each}" is a ${t.type} field; expected a list`);
  else return t.items ?? 'any';
  return 'any';
}
