/**
 * How a run can move through the steps (docs/processes.md "Routes and reachability"): every step reachable from
 * the first, and no loop along next and on_timeout; only on_reject goes back.
 */
import type { IssueList } from '../../core/issues.js';
import { forwardEdges, type Edge, type StepGraph } from '../graph.js';
import { edgePath, isStandIn, type StepDraft } from './raw.js';

export function checkFlow(issues: IssueList, drafts: StepDraft[], byId: Map<string, StepDraft>, graph: StepGraph): void {
  checkReachable(issues, drafts, graph);
  checkNoLoops(issues, drafts, byId);
}

function checkReachable(issues: IssueList, drafts: StepDraft[], graph: StepGraph) {
  const first = drafts[0];
  if (!first) return;
  const seen = graph.reachableFrom(first.step);
  // An entry checked under a stand-in id can be named by nothing, so its being unreachable says nothing new.
  for (const d of drafts) if (!seen.has(d.step.id) && !isStandIn(d.step.id)) issues.add(['steps', d.index], `step "${d.step.id}" is not reachable from the first step`);
}

/** Following next and on_timeout only, no step is visited twice (join and parallel edges exempt). */
function checkNoLoops(issues: IssueList, drafts: StepDraft[], byId: Map<string, StepDraft>) {
  const state = new Map<string, 'open' | 'done'>();
  const stack: string[] = [];
  const depth = new Map<string, number>();
  const reported = new Set<string>();
  // Depth-first with an explicit stack, not recursion: a long chain of steps must not overflow the call stack.
  const frames: { d: StepDraft; edges: Edge[]; next: number }[] = [];
  const open = (d: StepDraft) => {
    state.set(d.step.id, 'open');
    depth.set(d.step.id, stack.length);
    stack.push(d.step.id);
    frames.push({ d, edges: forwardEdges(d.step), next: 0 });
  };
  for (const start of drafts) {
    if (state.has(start.step.id)) continue;
    open(start);
    while (frames.length > 0) {
      const frame = frames[frames.length - 1]!;
      const edge = frame.edges[frame.next++];
      if (edge === undefined) {
        frames.pop();
        stack.pop();
        state.set(frame.d.step.id, 'done');
        continue;
      }
      const to = edge.to;
      const t = byId.get(to);
      if (!t) continue;
      const st = state.get(to);
      if (st === 'open') {
        // A long loop is shortened in the message, so a file cannot make the issue text grow with the square of its size.
        const from = depth.get(to)!;
        const size = stack.length - from;
        const ids = size <= 12 ? stack.slice(from) : [...stack.slice(from, from + 5), `… ${size - 8} more …`, ...stack.slice(-3)];
        const loop = [...ids, to].join(' → ');
        if (!reported.has(loop)) {
          reported.add(loop);
          issues.add(edgePath(frame.d, edge), `goes back to "${to}" (${loop}); only on_reject may go back`);
        }
      } else if (st === undefined) open(t);
    }
  }
}
