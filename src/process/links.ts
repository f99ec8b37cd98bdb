/**
 * flow-1's binding at publication (docs/profile-flow-1.md "5. Subprocess steps"): every
 * process a subprocess step or a follow-on rule names is published on this
 * board, every input it is given is one it declares with a value of its type,
 * every input it requires is given, and no chain of subprocess steps comes
 * back to where it started (it would start runs without end). Pure: the
 * caller hands over the latest published version of each process by name.
 */
import { formatPath, type Issue, type PathSegment } from '../core/issues.js';
import type { FieldType, Process } from './model.js';
import { itemType, pathType } from './validate/subprocess.js';

/** The latest published version of a process, or null when none is published. */
export type Latest = (name: string) => Process | null;

/** The other processes a process starts: subprocess steps (waited for) and follow-on rules (not). */
export function linkedNames(process: Process): string[] {
  const names = new Set<string>();
  for (const s of process.steps) if (s.kind === 'subprocess') names.add(s.value);
  for (const r of process.flow?.followOn ?? []) names.add(r.start);
  return [...names];
}

/** Every problem of a process's links, each with its place in the file. */
export function linkIssues(process: Process, latest: Latest): Issue[] {
  const issues: Issue[] = [];
  const add = (path: PathSegment[], message: string) => issues.push({ path: formatPath(path), message });
  process.steps.forEach((step, i) => {
    if (step.kind !== 'subprocess' || !step.subprocess) return;
    const other = step.value === process.name ? process : latest(step.value);
    if (!other) {
      add(['steps', i, 'subprocess'], `no published process "${step.value}" on this board; publish it first`);
      return;
    }
    mapping(add, ['steps', i, 'inputs'], process, step.subprocess.inputs, other, itemType(process, step) ?? undefined);
    const cycle = cycleFrom(process, step.value, latest);
    if (cycle) add(['steps', i, 'subprocess'], `a cycle: ${cycle.join(' → ')}; a run would start runs without end`);
  });
  (process.flow?.followOn ?? []).forEach((rule, i) => {
    const other = rule.start === process.name ? process : latest(rule.start);
    if (!other) add(['flow', 'follow_on', i, 'start'], `no published process "${rule.start}" on this board; publish it first`);
    else mapping(add, ['flow', 'follow_on', i, 'inputs'], process, rule.inputs, other, undefined);
  });
  return issues;
}

/** The inputs given to another process: each one it declares, of its type; each it requires, given. */
function mapping(add: (path: PathSegment[], message: string) => void, at: PathSegment[], from: Process, given: Record<string, string>, other: Process, item: FieldType | 'any' | undefined): void {
  for (const [field, path] of Object.entries(given)) {
    const spec = Object.hasOwn(other.inputs, field) ? other.inputs[field] : undefined;
    if (!spec) {
      add([...at, field], `${other.name} has no input "${field}" (it has: ${Object.keys(other.inputs).join(', ') || 'none'})`);
      continue;
    }
    const t = pathType(from, path, item);
    if ('problem' in t || t.type === 'any') continue;
    if (t.type !== spec.type) add([...at, field], `"${path}" is a ${t.type}; ${other.name}'s input ${field} is a ${spec.type}`);
  }
  for (const [field, spec] of Object.entries(other.inputs)) {
    if (!spec.optional && !Object.hasOwn(given, field)) add(at, `${other.name} needs input "${field}" (${spec.type}), which is not given`);
  }
}

/** The chain of subprocess steps from `start` back to `root`, if there is one: [root, …, root]. */
function cycleFrom(root: Process, start: string, latest: Latest): string[] | null {
  const seen = new Set<string>();
  const walk = (name: string, trail: string[]): string[] | null => {
    if (name === root.name) return [...trail, name];
    if (seen.has(name)) return null;
    seen.add(name);
    const p = latest(name);
    for (const s of p?.steps ?? []) {
      if (s.kind !== 'subprocess') continue;
      const found = walk(s.value, [...trail, name]);
      if (found) return found;
    }
    return null;
  };
  return walk(start, [root.name]);
}
