/**
 * The publication rules for parallel branches (docs/processes.md "Parallel branches (parallel-1)"): a branch is
 * what its entry reaches up to `join`; it holds no parallel step, reaches no
 * finish, never returns to its fork, shares no step with another branch, is
 * entered only at its entry, and rejections inside it stay inside it.
 */
import type { IssueList, PathSegment } from '../../core/issues.js';
import { edgesOf, isOnward, type BranchFinding, type BranchPlace, type StepGraph } from '../graph.js';
import { edgePath, type StepDraft } from './raw.js';

/** Check every branch; returns where each branch step sits. */
export function checkBranches(issues: IssueList, drafts: StepDraft[], byId: Map<string, StepDraft>, graph: StepGraph): ReadonlyMap<string, BranchPlace> {
  const { place, findings } = graph.branches();
  for (const f of findings) report(issues, f, byId);
  for (const d of drafts) {
    const p: PathSegment[] = ['steps', d.index];
    const mine = place.get(d.step.id)?.entry;
    const back = d.step.onReject;
    if (back !== undefined && place.has(back)) {
      if (mine === undefined) issues.add([...p, 'on_reject'], `cannot return into a parallel branch ("${back}"); return to the parallel step to run every branch again`);
      else if (place.get(back)!.entry !== mine) issues.add([...p, 'on_reject'], `must return to a step in its own branch, not "${back}"`);
    } else if (back !== undefined && mine !== undefined && byId.has(back)) {
      issues.add([...p, 'on_reject'], `must return to a step in its own branch, not "${back}"`);
    }
    if (mine !== undefined) continue;
    for (const e of edgesOf(d.step).filter(isOnward)) {
      if (place.has(e.to)) issues.add(edgePath(d, e), `routes into parallel branch step "${e.to}" from outside its branch`);
    }
  }
  return place;
}

function report(issues: IssueList, f: BranchFinding, byId: Map<string, StepDraft>) {
  switch (f.kind) {
    case 'shared':
      issues.add(['steps', byId.get(f.step)!.index], `step "${f.step}" is in two branches (entered at "${f.first}" and "${f.entry}")`);
      return;
    case 'nested':
      issues.add(['steps', byId.get(f.step)!.index, 'parallel'], 'a branch cannot contain a parallel step (no nesting in parallel-1)');
      return;
    case 'to-finish':
      issues.add(edgePath(byId.get(f.from)!, f.edge), `a branch cannot route to a finish ("${f.edge.to}"); end it with next: join`);
      return;
    case 'to-fork':
      issues.add(edgePath(byId.get(f.from)!, f.edge), `a branch cannot route to its parallel step "${f.edge.to}"`);
      return;
  }
}
