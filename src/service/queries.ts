/**
 * The read tools that list: list_processes, get_work (an agent's claimable
 * steps or a person's work items, oldest first) and list_runs (newest first,
 * filtered by process, state and inputs), each paged by keyset. Under flow-1
 * both put the open runs of a higher priority first (docs/profile-flow-1.md "2. Priority").
 */
import type { Board } from '../board/board.js';
import { listProcessNames, listVersions } from '../board/processes.js';
import { mayDecide } from '../engine/decide.js';
import { decidesFor } from '../engine/delegation.js';
import { fourEyesApplies, fourEyesProblem, inScope } from '../engine/rights.js';
import type { Actor, RunRecord, RunState, StepState } from '../engine/types.js';
import type { Step } from '../process/model.js';
import { hasOpenWorkItem, leaseLive, workItems } from '../engine/view.js';
import { canonicalJson } from '../core/hash.js';
import { coreInputs } from '../process/validate/fields.js';
import { listPrefix, urgencyPrefix } from '../engine/priority.js';
import { page, pageUnsorted } from './paging.js';
import type { Loaded, RunReader } from './run-reader.js';
import { cloneOffer, type CloneOffer } from './offered-here.js';
import type { GetWorkArgs, ListRunsArgs } from '../protocol/tool-args.js';
import type { Page, ProcessSummary, RunRow, WorkEntry, WorkItemView } from '../protocol/views.js';

export async function listProcesses(board: Board, reader: RunReader, cursor?: string): Promise<Page<ProcessSummary>> {
  const items: ProcessSummary[] = [];
  for (const name of await listProcessNames(board)) {
    const versions = await listVersions(board, name);
    try {
      const p = await reader.pinned(name, versions[versions.length - 1]!);
      items.push({
        name,
        description: p.process.description,
        version: p.version,
        inputs: coreInputs(p.process.frontmatter.inputs),
        ...(p.process.requires ? { requires: p.process.requires } : {}),
      });
    } catch {
      // a version that no longer verifies is never offered
    }
  }
  return page(items, (i) => i.name, 100, cursor);
}

/** A get_work candidate: its sort key, and what its entry is built from once it makes the page. */
interface Found {
  key: string;
  m: Loaded;
  stepId: string;
  workItem: WorkItemView | undefined;
}

/** What a run as read offers before asking who is asking or what is held: its ready agent steps, or its open work items (with their step), each with its sort key. */
interface Offer {
  key: string;
  stepId: string;
  workItem?: { view: WorkItemView; def: Step };
}

/**
 * Each state's offers, worked out once: the reader serves the same state
 * object until the run's files or its next deadline change it, and get_work
 * walks every open run on every call. A key kept whole is also compared
 * quickly; one built afresh by concatenation is flattened at every compare.
 */
const agentOffers = new WeakMap<RunState, Offer[]>();
const personOffers = new WeakMap<RunState, Offer[]>();

function offersOf(reader: RunReader, m: Loaded, kind: Actor['kind']): Offer[] {
  const memo = kind === 'agent' ? agentOffers : personOffers;
  let out = memo.get(m.state);
  if (out) return out;
  out = [];
  const r = m.state.run;
  const key = (readySince: StepState['readySince'], id: string) => `${urgencyPrefix(r)}${readySince}|${r.id}|${id}`;
  if (kind === 'agent') {
    for (const def of m.pinned.process.steps) {
      const st = m.state.steps[def.id];
      if (def.kind === 'agent' && st?.state === 'ready') out.push({ key: key(st.readySince, def.id), stepId: def.id });
    }
  } else if (Object.values(m.state.steps).some(hasOpenWorkItem)) {
    // The snapshot (the whole state's canonical JSON, hashed) only for a run with work waiting: at 100k runs most open runs wait on agents.
    for (const wi of workItems(m.state, m.pinned, reader.snapshot(m))) {
      const def = m.pinned.process.steps.find((s) => s.id === wi.stepId)!;
      out.push({ key: key(m.state.steps[wi.stepId]!.readySince, wi.id), stepId: wi.stepId, workItem: { view: wi, def } });
    }
  }
  memo.set(m.state, out);
  return out;
}

/** `across`: on a board several clones share, the work held back on this one (docs/git.md "Offered first where it became ready"); null lists all. */
export async function getWork(
  reader: RunReader,
  rules: { groups: Record<string, string[]>; fourEyes: boolean | readonly string[] },
  actor: Actor,
  a: GetWorkArgs,
  now: Date,
  across: CloneOffer | null = null,
): Promise<Page<WorkEntry>> {
  const groups = rules.groups;
  const fourEyes = (process: string) => fourEyesApplies(rules.fourEyes, process);
  const found: Found[] = [];
  for (const m of await reader.openRuns(a.process)) {
    const r = m.state.run;
    if (actor.kind === 'agent' && !inScope(actor, r.process)) continue;
    for (const o of offersOf(reader, m, actor.kind)) {
      const wi = o.workItem?.view;
      const def = o.workItem?.def;
      if (wi && def) {
        // Four eyes: an approval this person may not decide is left for the others in the group.
        // A delegator's work is the delegate's too, under the same rule for both (docs/people.md "Out of office").
        const blocked = (a: Actor) => fourEyes(r.process) && fourEyesProblem(m.state, def, a) !== null;
        if (decidesFor(actor, (a) => mayDecide(a, wi.assignedTo, groups), blocked) === undefined) continue;
      } else if (leaseLive(m.state, o.stepId, now)) continue;
      const held = across?.held(m.state, o.stepId) ?? false;
      if (held === true || (held !== false && (await held))) continue;
      found.push({ key: o.key, m, stepId: o.stepId, workItem: wi });
    }
  }
  // Only the page's entries are built: on a board of thousands of open runs, most are never shown.
  const p = pageUnsorted(found, a.limit ?? 20, a.cursor);
  return { items: p.items.map(entryOf), nextCursor: p.nextCursor };
}

/** get_work on this board: on a board several clones share, without the work held back on this one. */
export async function getWorkHere(board: Board, reader: RunReader, actor: Actor, a: GetWorkArgs, now: Date): Promise<Page<WorkEntry>> {
  return getWork(reader, board.manifest, actor, a, now, await cloneOffer(board, now));
}

function entryOf({ m, stepId, workItem }: Found): WorkEntry {
  const r = m.state.run;
  const mode = r.mode === 'test' ? ('test' as const) : ('live' as const);
  if (workItem) return { runId: r.id, process: r.process, version: r.version, mode, workItem };
  const st = m.state.steps[stepId]!;
  return {
    runId: r.id,
    stepId,
    process: r.process,
    version: r.version,
    mode,
    // A ready step hand-written without its time became ready by the run's last change at the latest.
    readySince: st.readySince ?? r.updatedAt,
    due: st.due,
    overdue: st.overdue,
    handoff: st.handoff,
    claim: { tool: 'claim', arguments: { runId: r.id, stepId, requestId: '<new UUID>' } },
  };
}

export async function listRuns(reader: RunReader, a: ListRunsArgs, now: () => Date): Promise<Page<RunRow>> {
  const rows: { key: string; item: RunRow }[] = [];
  for (const r of [...(await reader.summaries())].reverse()) {
    const id = r.id;
    if (a.process !== undefined && r.process !== a.process) continue;
    if (a.inputs && !Object.entries(a.inputs).every(([k, v]) => Object.hasOwn(r.inputs, k) && canonicalJson(r.inputs[k]) === canonicalJson(v))) continue;
    let run: Pick<RunRecord, 'state' | 'outcome' | 'updatedAt' | 'priority'> = r;
    if (r.state === 'active' || r.state === 'waiting') {
      try {
        // A sweep read: summaries() has just read the change log.
        run = reader.current(await reader.read(id, true), now()).state.run;
      } catch {
        // keep the recorded summary
      }
    }
    if (a.state !== undefined && run.state !== a.state) continue;
    rows.push({
      key: `${listPrefix(run)}${id}`,
      item: { id: r.id, process: r.process, version: r.version, state: run.state, outcome: run.outcome, startedAt: r.startedAt, updatedAt: run.updatedAt, inputs: r.inputs },
    });
  }
  // Newest first is id order; only a board with priorities set sorts again.
  if (rows.some((row) => row.key !== row.item.id)) rows.sort((x, y) => (x.key < y.key ? 1 : x.key > y.key ? -1 : 0));
  const p = page(rows, (i) => i.key, a.limit ?? 20, a.cursor, true);
  return { items: p.items.map((i) => i.item), nextCursor: p.nextCursor };
}
