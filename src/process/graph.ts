/**
 * The step graph of a process: the edges each step names, by the key that
 * names them, and what follows from them: which steps are reachable, which
 * parallel branch a step is in, and which steps a rework resets. Pure. It
 * reads steps as validation drafts them as well as a published process holds
 * them, so validation, the engine and the maps share one reading.
 */
import { JOIN, type Step } from './model.js';

/** The part of a step the graph reads. */
export type StepLinks = Pick<Step, 'id' | 'kind' | 'next' | 'onTimeout' | 'onReject' | 'branches'>;

/** The key of a step that names an edge. */
export type EdgeKey = 'next' | 'on_timeout' | 'on_reject' | 'parallel';

export interface Edge {
  to: string;
  key: EdgeKey;
  /** Position in a list of routes (`next`) or branch entries (`parallel`); absent for a single id. */
  index?: number;
}

/** Where a branch step sits (docs/processes.md "Parallel branches (parallel-1)"): its parallel step and the entry its branch starts at. */
export interface BranchPlace {
  parallel: string;
  entry: string;
}

/** What the walk of the branches meets that docs/processes.md "Parallel branches (parallel-1)" forbids, in the order it meets it. */
export type BranchFinding =
  /** `step` was reached from `entry` but already belongs to the branch entered at `first`. */
  | { kind: 'shared'; step: string; first: string; entry: string }
  /** A parallel step inside a branch; the walk does not go into it. */
  | { kind: 'nested'; step: string }
  /** An edge from a branch step to a finish. */
  | { kind: 'to-finish'; from: string; edge: Edge }
  /** An edge from a branch step back to the parallel step that forked it. */
  | { kind: 'to-fork'; from: string; edge: Edge };

export interface Branches {
  /** Each branch step's place; a step reached from two branches keeps the first. */
  place: Map<string, BranchPlace>;
  findings: BranchFinding[];
}

/** Every edge a step names: next or its routes, on_timeout, on_reject, then the branch entries. */
export function edgesOf(step: StepLinks): Edge[] {
  const out: Edge[] = [];
  if (typeof step.next === 'string') out.push({ to: step.next, key: 'next' });
  else if (Array.isArray(step.next)) step.next.forEach((r, index) => out.push({ to: r.to, key: 'next', index }));
  if (step.onTimeout !== undefined) out.push({ to: step.onTimeout, key: 'on_timeout' });
  if (step.onReject !== undefined) out.push({ to: step.onReject, key: 'on_reject' });
  step.branches?.forEach((to, index) => out.push({ to, key: 'parallel', index }));
  return out;
}

/** Whether an edge is one a run takes on its own: next, a route or on_timeout. */
export const isOnward = (e: Edge): boolean => e.key === 'next' || e.key === 'on_timeout';

/** The onward edges to steps: next, routes and on_timeout, without the `join` that ends a branch. */
export function forwardEdges(step: StepLinks): Edge[] {
  return edgesOf(step).filter((e) => isOnward(e) && e.to !== JOIN);
}

export class StepGraph {
  /** By id; with duplicate ids (a draft that validation refuses) the last step wins. */
  private readonly byId: ReadonlyMap<string, StepLinks>;

  constructor(private readonly steps: readonly StepLinks[]) {
    this.byId = new Map(steps.map((s) => [s.id, s]));
  }

  get(id: string): StepLinks | undefined {
    return this.byId.get(id);
  }

  /** The ids of the steps reachable from `from` along every edge but `join`, its own included. */
  reachableFrom(from: StepLinks): Set<string> {
    return new Set(this.walk([from], (s) => edgesOf(s).filter((e) => !(isOnward(e) && e.to === JOIN))));
  }

  /**
   * The steps a rejection back to `target` resets (rework,
   * docs/processes.md "The choices we made"): everything the target leads to along forward and branch edges,
   * other than the rejecting step, in the order the walk reaches them.
   */
  reworkRegion(target: string, rejecting: string): string[] {
    const start = this.get(target);
    if (!start) return [];
    const onward = (s: StepLinks) => edgesOf(s).filter((e) => e.key === 'parallel' || (isOnward(e) && e.to !== JOIN));
    return this.walk(this.targets(onward(start)), onward).filter((id) => id !== rejecting);
  }

  /**
   * Every branch: from each entry of each parallel step, the steps it reaches
   * up to `join`. The walk stops at what the profile forbids (a finish, the
   * forking step, a nested parallel, another branch's step) and reports it.
   */
  branches(): Branches {
    const place = new Map<string, BranchPlace>();
    const findings: BranchFinding[] = [];
    for (const fork of this.steps.filter((s) => s.kind === 'parallel')) {
      for (const entry of fork.branches ?? []) {
        const start = this.get(entry);
        if (!start) continue;
        const admit = (s: StepLinks) => {
          const first = place.get(s.id)?.entry;
          if (first === undefined || first === entry) return true;
          findings.push({ kind: 'shared', step: s.id, first, entry });
          return false;
        };
        this.walk(
          [start],
          (s) => {
            place.set(s.id, { parallel: fork.id, entry });
            if (s.kind === 'parallel') {
              findings.push({ kind: 'nested', step: s.id });
              return [];
            }
            return forwardEdges(s).filter((edge) => {
              const to = this.get(edge.to);
              if (to?.kind === 'finish') findings.push({ kind: 'to-finish', from: s.id, edge });
              else if (to?.kind === 'parallel' && to.id === fork.id) findings.push({ kind: 'to-fork', from: s.id, edge });
              else return true;
              return false;
            });
          },
          admit,
        );
      }
    }
    return { place, findings };
  }

  /** The steps that edges lead to; edges to unknown ids lead nowhere. */
  private targets(edges: readonly Edge[]): StepLinks[] {
    return edges.flatMap((e) => this.byId.get(e.to) ?? []);
  }

  /**
   * Breadth first from `starts`, each id once, following the edges `follow`
   * picks. `admit` may turn a step away each time the walk reaches it.
   * Returns the ids in the order the walk reached them.
   */
  private walk(starts: readonly StepLinks[], follow: (s: StepLinks) => Edge[], admit: (s: StepLinks) => boolean = () => true): string[] {
    const seen = new Set<string>();
    const queue = [...starts];
    // An index instead of shift(): a long chain of steps stays linear.
    for (let i = 0; i < queue.length; i++) {
      const step = queue[i]!;
      if (seen.has(step.id) || !admit(step)) continue;
      seen.add(step.id);
      queue.push(...this.targets(follow(step)));
    }
    return [...seen];
  }
}
