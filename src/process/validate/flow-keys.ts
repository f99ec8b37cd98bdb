/**
 * The `flow:` key of the flow-1 profile (docs/profile-flow-1.md "1. The key"): a
 * process's default priority, the input that may set it, and the input that
 * names the runs a new run waits for. Bound at publication: every path names a
 * declared input of the right type, so a start never meets a key it cannot read.
 */
import type { IssueList, PathSegment } from '../../core/issues.js';
import { PRIORITY_LEVELS, type Fields, type FieldSpec, type FlowKeys } from '../model.js';
import type { Offer } from '../../protocol/offer.js';
import { isObj, own, unknownKeys } from './raw.js';
import { followOnRules } from './subprocess.js';

const KEYS = ['priority', 'priority_from', 'blocked_by', 'follow_on'];
const LEVEL_NAMES = Object.keys(PRIORITY_LEVELS);

export function checkFlowKeys(issues: IssueList, value: unknown, inputs: Fields, offer: Offer): FlowKeys | undefined {
  const at: PathSegment[] = ['flow'];
  if (!offer.profiles.has('flow-1')) {
    issues.add(at, 'needs profile flow-1, not enabled');
    return undefined;
  }
  if (!isObj(value) || Object.keys(value).length === 0) {
    issues.add(at, `expected a map with one or more of ${KEYS.join(', ')}`);
    return undefined;
  }
  unknownKeys(issues, value, KEYS, at);
  const out: FlowKeys = {};
  if (own(value, 'priority')) {
    const p = value.priority;
    if (typeof p === 'string' && Object.hasOwn(PRIORITY_LEVELS, p)) out.priority = PRIORITY_LEVELS[p as keyof typeof PRIORITY_LEVELS];
    else issues.add([...at, 'priority'], `expected one of ${LEVEL_NAMES.join(', ')}`);
  }
  if (own(value, 'priority_from')) {
    const field = inputPath(issues, value.priority_from, inputs, [...at, 'priority_from']);
    if (field && !isLevelField(field.spec)) issues.add([...at, 'priority_from'], `inputs.${field.name} must be a string with one_of drawn from ${LEVEL_NAMES.join(', ')}`);
    else if (field) out.priorityFrom = field.name;
  }
  if (own(value, 'blocked_by')) {
    const field = inputPath(issues, value.blocked_by, inputs, [...at, 'blocked_by']);
    if (field && !(field.spec.type === 'list' && field.spec.items?.type === 'string' && field.spec.items.oneOf === undefined))
      issues.add([...at, 'blocked_by'], `inputs.${field.name} must be a list of strings (run ids)`);
    else if (field) out.blockedBy = field.name;
  }
  if (own(value, 'follow_on')) out.followOn = followOnRules(issues, value.follow_on, [...at, 'follow_on']);
  return out;
}

/** An `inputs.<field>` path naming a declared input. */
function inputPath(issues: IssueList, v: unknown, inputs: Fields, at: PathSegment[]): { name: string; spec: FieldSpec } | undefined {
  const m = typeof v === 'string' ? /^inputs\.([^.]+)$/.exec(v) : null;
  if (!m) {
    issues.add(at, 'expected a path inputs.<field>');
    return undefined;
  }
  const spec = Object.hasOwn(inputs, m[1]!) ? inputs[m[1]!] : undefined;
  if (!spec) {
    issues.add(at, `no input "${m[1]}" is declared`);
    return undefined;
  }
  return { name: m[1]!, spec };
}

function isLevelField(spec: FieldSpec): boolean {
  return spec.type === 'string' && spec.oneOf !== undefined && spec.oneOf.every((v) => typeof v === 'string' && LEVEL_NAMES.includes(v));
}
