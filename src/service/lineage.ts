/**
 * flow-1: runs that start runs (docs/profile-flow-1.md "5. Subprocess steps", "6. Follow-on runs",
 * "8. All or nothing"). A commit that starts runs records each start under
 * `.work/starts/` in that same commit, with the id it made for the run; after
 * the commit each run is started under that id (a run that exists is left as
 * it is), then its record goes. A child's end moves its parent's step; a
 * parent's end cancels its open children. `settle` does all of it again from
 * the files, for serve's daemon: a process killed between two of these commits
 * leaves nothing it cannot finish.
 */
import type { Board } from '../board/board.js';
import { STARTS_DIR } from '../board/layout.js';
import { finalData, type ChildEnd } from '../engine/children.js';
import { rollup, standingOf, type ChildStanding } from '../engine/rollup.js';
import type { LinkedRun, RunLineage } from '../protocol/views.js';
import { runTitle } from '../words/index.js';
import type { ChildStart, RunRecord, RunState } from '../engine/types.js';
import { tellOperators } from '../notify/tell.js';
import { ToolError } from '../protocol/errors.js';
import { readIfAny } from './blockers-read.js';
import type { RunReader } from './run-reader.js';
import { startPath, type RunWrites } from './writes.js';

const isEnded = (run: Pick<RunRecord, 'state'>) => run.state === 'ended' || run.state === 'cancelled';

/** The runs a state's subprocess steps wait for now. */
const waitedFor = (state: RunState): string[] => Object.values(state.steps).flatMap((st) => (st.state === 'waiting' ? (st.children ?? []) : []));

export class Lineage {
  constructor(
    private readonly board: Board,
    private readonly reader: RunReader,
    private readonly writes: RunWrites,
    private readonly now: () => Date,
  ) {}

  /** After a committed change: start the runs it records, and move the parent or the children of a run it ended. */
  async after(state: RunState, starts: readonly ChildStart[]): Promise<void> {
    for (const c of starts) await this.start(c);
    if (!isEnded(state.run)) return;
    if (state.run.parent !== undefined) await this.moveParent(state.run.parent);
    for (const st of Object.values(state.steps)) for (const child of st.children ?? []) await this.endChild(child, state.run);
  }

  /** Start one recorded run; a refusal fails the step that waits for it (a follow-on's is told to operators). */
  async start(c: ChildStart): Promise<void> {
    const refused = await this.writes.startChild(c).catch((e: unknown) => (e instanceof ToolError && e.code !== 'retry' ? e : Promise.reject(e)));
    if (refused) {
      const note = `${refused.message}${refused.issues?.length ? ` (${refused.issues.join('; ')})` : ''}`;
      if (c.step !== undefined) await this.writes.flowWrite(c.parent, { tool: 'child_refused', child: c.run, note });
      else
        await tellOperators(this.board, 'internal_fault', this.now(), {
          subject: `A follow-on run of ${c.process} could not start`,
          text: `Run ${c.parent} ended and its follow-on rule could not start ${c.process}: ${note}`,
          runId: c.parent,
        });
    }
    await this.board.state.remove(startPath(c));
  }

  /** A run's parent and children by their titles, with where each stands, and the children's rollup; null when it has neither. */
  async read(runId: string): Promise<RunLineage | null> {
    const me = await readIfAny(this.reader, runId);
    if (!me) return null;
    const run = me.state.run;
    const kids: { id: string; via: string | null }[] = [
      ...me.pinned.process.steps.flatMap((def) => (me.state.steps[def.id]?.children ?? []).map((id) => ({ id, via: def.id }))),
      ...(run.followOns ?? []).map((id) => ({ id, via: null })),
    ];
    if (run.parent === undefined && kids.length === 0) return null;
    const now = this.now().getTime();
    const standings: ChildStanding[] = [];
    const linked = async (id: string, via: string | null): Promise<LinkedRun> => {
      const l = await readIfAny(this.reader, id);
      if (!l) return { id, title: `run ${id}, not on this board`, process: null, state: null, outcome: null, via };
      standings.push(standingOf(l.state, now));
      const r = l.state.run;
      return { id, title: runTitle(l.pinned.process, r.inputs, this.board.manifest.people), process: r.process, state: r.state, outcome: r.outcome, via };
    };
    const children: LinkedRun[] = [];
    for (const k of kids) children.push(await linked(k.id, k.via));
    const parentLink = run.parent !== undefined ? await readIfAny(this.reader, run.parent) : null;
    const parent: LinkedRun | null =
      run.parent === undefined
        ? null
        : parentLink
          ? {
              id: run.parent,
              title: runTitle(parentLink.pinned.process, parentLink.state.run.inputs, this.board.manifest.people),
              process: parentLink.state.run.process,
              state: parentLink.state.run.state,
              outcome: parentLink.state.run.outcome,
              via: null,
            }
          : { id: run.parent, title: `run ${run.parent}, not on this board`, process: null, state: null, outcome: null, via: null };
    return { parent, children, rollup: rollup(standings) };
  }

  /** Each child as its parent reads it: how it stands, and its final data. */
  async childReads(ids: readonly string[]): Promise<Map<string, ChildEnd | null>> {
    const out = new Map<string, ChildEnd | null>();
    for (const id of ids) {
      const c = await readIfAny(this.reader, id);
      const run = c?.state.run;
      out.set(
        id,
        c && run
          ? {
              id,
              process: run.process,
              state: run.state,
              outcome: run.outcome,
              data: finalData(
                c.state,
                c.pinned.process.steps.map((s) => s.id),
              ),
              title: runTitle(c.pinned.process, run.inputs, this.board.manifest.people),
            }
          : null,
      );
    }
    return out;
  }

  /** A parent whose step waits for children looks at them as they are now. */
  async moveParent(parentId: string): Promise<boolean> {
    const p = await readIfAny(this.reader, parentId);
    if (!p || isEnded(p.state.run)) return false;
    const ids = waitedFor(p.state);
    if (ids.length === 0) return false;
    const reads = await this.childReads(ids);
    if (![...reads.values()].some((c) => c && isEnded(c))) return false;
    return (await this.writes.flowWrite(parentId, { tool: 'children', children: reads })).events.length > 0;
  }

  /** A child still open when its parent has ended is cancelled, naming the parent by its title. */
  async endChild(childId: string, parent: RunRecord): Promise<boolean> {
    const c = await readIfAny(this.reader, childId);
    if (!c || isEnded(c.state.run)) return false;
    const how = parent.state === 'cancelled' ? 'was cancelled' : `ended ${parent.outcome ?? ''}`.trim();
    const pinned = await this.reader.pinned(parent.process, parent.version).catch(() => null);
    const named = pinned ? `“${runTitle(pinned.process, parent.inputs, this.board.manifest.people)}”` : `run ${parent.id} (${parent.process})`;
    const note = `its parent ${named} ${how}`;
    return (await this.writes.flowWrite(childId, { tool: 'parent_ended', note })).events.length > 0;
  }

  /**
   * Everything `after` does, found again from the files (serve's daemon, on every change): recorded starts
   * whose runs do not exist, parents whose children ended, children whose parent ended. Returns the runs it moved.
   */
  async settle(): Promise<string[]> {
    const moved: string[] = [];
    for (const name of this.board.state.list(STARTS_DIR)) {
      const text = await this.board.state.readText(`${STARTS_DIR}/${name}`);
      const c = text ? parseStart(text) : null;
      if (!c) continue;
      try {
        await this.start(c);
        moved.push(c.run);
      } catch {
        // busy: the next sweep tries again
      }
    }
    for (const m of await this.reader.openRuns()) {
      const run = m.state.run;
      try {
        if (waitedFor(m.state).length > 0 && (await this.moveParent(run.id))) moved.push(run.id);
        if (run.parent === undefined) continue;
        const parent = await readIfAny(this.reader, run.parent);
        const waitsForMe = parent && Object.values(parent.state.steps).some((st) => st.children?.includes(run.id));
        if (parent && waitsForMe && isEnded(parent.state.run) && (await this.endChild(run.id, parent.state.run))) moved.push(run.id);
      } catch {
        // busy or refused: the next sweep tries again
      }
    }
    return moved;
  }
}

function parseStart(text: string): ChildStart | null {
  try {
    const v = JSON.parse(text) as ChildStart;
    return typeof v.run === 'string' && typeof v.parent === 'string' && typeof v.process === 'string' ? v : null;
  } catch {
    return null;
  }
}
