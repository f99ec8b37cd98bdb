/**
 * What the steps name and how they connect (docs/processes.md "Routes and reachability"): the default `next`,
 * every target of next, routes, on_reject, on_timeout and branches, `join`,
 * and the data paths of `person` and `wait_until`. The branch rules run
 * first (the default next depends on them), the flow rules last; all of them
 * read one step graph.
 */
import type { IssueList, PathSegment } from '../../core/issues.js';
import { edgesOf, StepGraph, type BranchPlace, type Edge } from '../graph.js';
import { JOIN, ROLE_PATTERN, type FieldType, type Fields } from '../model.js';
import { checkBranches } from './branches.js';
import { checkFlow } from './flow.js';
import { edgePath, type StepDraft } from './raw.js';

export function checkReferences(issues: IssueList, drafts: StepDraft[], inputs: Fields): void {
  const byId = new Map(drafts.map((d) => [d.step.id, d]));
  // The graph reads the drafts' steps themselves, so it sees the defaults resolved below.
  const graph = new StepGraph(drafts.map((d) => d.step));
  const usesParallel = drafts.some((d) => d.step.kind === 'parallel');
  const branchOf = usesParallel ? checkBranches(issues, drafts, byId, graph) : new Map<string, BranchPlace>();
  const target = (d: StepDraft, e: Edge) => {
    const path = edgePath(d, e);
    if (e.key === 'parallel') {
      if (!byId.has(e.to)) issues.add(path, `no step "${e.to}"`);
      return;
    }
    if (e.to === '') return;
    if (usesParallel && e.to === JOIN) {
      if (e.key === 'on_reject' || !branchOf.has(d.step.id)) issues.add(path, 'join is allowed only inside a parallel branch');
      return;
    }
    if (!byId.has(e.to)) issues.add(path, `no step "${e.to}"`);
  };

  drafts.forEach((d, i) => {
    const { step } = d;
    const p: PathSegment[] = ['steps', d.index];
    if (usesParallel && step.id === JOIN) issues.add([...p, 'id'], '"join" is reserved when a process uses parallel');
    // Resolve the default next: the following step, except where it must be explicit.
    if (step.kind !== 'finish' && !d.explicitNext && d.shadow) {
      // An entry that is no step says nothing about its next; it is taken to be the following one.
      if (i < drafts.length - 1) step.next = drafts[i + 1]!.step.id;
    } else if (step.kind !== 'finish' && !d.explicitNext) {
      if (branchOf.has(step.id)) issues.add([...p, 'next'], 'required inside a parallel branch (next: join ends the branch)');
      else if (i === drafts.length - 1) issues.add([...p, 'next'], 'required on the last step unless it is a finish');
      else {
        step.next = drafts[i + 1]!.step.id;
        if (branchOf.has(step.next)) issues.add([...p, 'next'], `required: the following step "${step.next}" is inside a parallel branch`);
      }
    }
    // A default next names the following step, which exists; only what the file names is checked.
    for (const e of edgesOf(step)) if (e.key !== 'next' || d.explicitNext) target(d, e);
    if (step.person !== undefined) checkPerson(issues, step.person, [...p, 'person'], inputs, byId);
    if (step.kind === 'wait_until' && step.value !== '') checkDataPath(issues, step.value, 'datetime', [...p, 'wait_until'], inputs, byId);
  });

  checkFlow(issues, drafts, byId, graph);
}

function checkPerson(issues: IssueList, v: string, path: PathSegment[], inputs: Fields, byId: Map<string, StepDraft>) {
  if (v === 'initiator') return;
  if (v.includes('.')) checkDataPath(issues, v, 'person', path, inputs, byId);
  else if (!ROLE_PATTERN.test(v)) issues.add(path, 'expected a role name (lowercase letters, digits, _ or -), initiator, or a path inputs.<field> or steps.<id>.output.<field>');
}

/** `inputs.<field>` or `steps.<id>.output.<field>`, naming a declared field of the given type. */
function checkDataPath(issues: IssueList, v: string, type: FieldType, path: PathSegment[], inputs: Fields, byId: Map<string, StepDraft>) {
  const parts = v.split('.');
  let fields: Fields | undefined;
  let field: string | undefined;
  if (parts.length === 2 && parts[0] === 'inputs') {
    fields = inputs;
    field = parts[1];
  } else if (parts.length === 4 && parts[0] === 'steps' && parts[2] === 'output') {
    const d = byId.get(parts[1]!);
    if (!d) {
      issues.add(path, `"${v}" names no step "${parts[1]}"`);
      return;
    }
    fields = d.step.output ?? {};
    field = parts[3];
  } else {
    issues.add(path, `"${v}" is not a path; expected inputs.<field> or steps.<id>.output.<field>`);
    return;
  }
  const spec = field !== undefined && Object.hasOwn(fields, field) ? fields[field] : undefined;
  if (!spec) issues.add(path, `"${v}" names no declared field`);
  else if (spec.type !== type) issues.add(path, `"${v}" is a ${spec.type} field; expected a ${type} field`);
}
