/**
 * Insights' list of the runs these runs started (flow-1), under the step or
 * the end that started them (docs/profile-flow-1.md "7. Lineage and rollup").
 */
import type { Insights } from '../../insights/figures.js';
import { durationText, type Labels } from '../../insights/labels.js';
import { StackTable } from './stack-table.js';

export function ChildrenSection({ children, labels: l, step }: { children: NonNullable<Insights['children']>; labels: Labels; step: (process: string, id: string) => string }) {
  return (
    <section aria-labelledby="children">
      <h2 id="children">Runs these runs started</h2>
      <p class="desc">
        Each run of another process these runs started, under the step or the end that started it. A child is measured on its own, from its start to its end; a parent's time includes its subprocess
        children's, since it cannot end before them. A run not shown is not on this board, or is of a process whose figures you may not see.
      </p>
      <div class="table-wrap">
        <StackTable
          caption="Runs started by these runs, per parent step and process"
          columns={[{ head: 'Started by' }, { head: 'Process' }, { head: 'Runs' }, { head: 'Ended' }, { head: 'Median time' }]}
          rows={children.map((c) => ({
            key: `${c.process}/${c.step ?? ''}/${c.child}`,
            head: c.step === null ? `${l.process(c.process)}, at its end` : step(c.process, c.step),
            cells: [
              l.process(c.child),
              c.missing > 0 ? `${c.runs} (${c.missing} not shown)` : c.runs,
              c.ended === 0
                ? '0'
                : Object.entries(c.byOutcome)
                    .map(([o, n]) => `${n} ${o}`)
                    .join(', '),
              c.cycle.p50Ms === null ? '–' : durationText(c.cycle.p50Ms),
            ],
          }))}
        />
      </div>
    </section>
  );
}
