/**
 * Insights' list of the runs these runs started (flow-1), under the step or
 * the end that started them (docs/profile-flow-1.md "7. Lineage and rollup").
 */
import type { Insights } from '../../insights/figures.js';
import { durationText, type Labels } from '../../insights/labels.js';

export function ChildrenSection({ children, labels: l, step }: { children: NonNullable<Insights['children']>; labels: Labels; step: (process: string, id: string) => string }) {
  return (
    <section aria-labelledby="children">
      <h2 id="children">Runs these runs started</h2>
      <p class="desc">
        Each run of another process these runs started, under the step or the end that started it. A child is measured on its own, from its start to its end; a parent's time includes its subprocess
        children's, since it cannot end before them. A run not shown is not on this board, or is of a process whose figures you may not see.
      </p>
      <div class="table-wrap">
        <table class="stack">
          <caption class="visually-hidden">Runs started by these runs, per parent step and process</caption>
          <thead>
            <tr>
              <th scope="col">Started by</th>
              <th scope="col">Process</th>
              <th scope="col">Runs</th>
              <th scope="col">Ended</th>
              <th scope="col">Median time</th>
            </tr>
          </thead>
          <tbody>
            {children.map((c) => (
              <tr key={`${c.process}/${c.step ?? ''}/${c.child}`}>
                <th scope="row">{c.step === null ? `${l.process(c.process)}, at its end` : step(c.process, c.step)}</th>
                <td data-label="Process">{l.process(c.child)}</td>
                <td data-label="Runs">{c.missing > 0 ? `${c.runs} (${c.missing} not shown)` : c.runs}</td>
                <td data-label="Ended">
                  {c.ended === 0
                    ? '0'
                    : Object.entries(c.byOutcome)
                        .map(([o, n]) => `${n} ${o}`)
                        .join(', ')}
                </td>
                <td data-label="Median time">{c.cycle.p50Ms === null ? '–' : durationText(c.cycle.p50Ms)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </section>
  );
}
