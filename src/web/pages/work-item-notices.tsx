/**
 * The notices at the top of a work item: what came back to the person
 * (returned, a refused submission, an escalation) and, after a decision
 * refused as stale, what changed in the run since the page was opened.
 */
import type { WorkItem } from '../views.js';
import { Notice } from './parts.js';
import { Person, When } from './words.js';
import { StackTable } from './stack-table.js';

/** One difference between the run as the page showed it and as it is now. */
export interface Change {
  path: string;
  before: string;
  after: string;
}

export function Handoff({ item }: { item: WorkItem }) {
  const h = item.handoff;
  const e = item.escalation;
  return (
    <>
      {h?.returned ? (
        <Notice kind="warn" title="Returned to you">
          <p>{h.returned.note}</p>
          <p class="meta">
            by <Person email={h.returned.by} />, <When at={h.returned.at} />
          </p>
        </Notice>
      ) : null}
      {h?.issues?.length ? (
        <Notice kind="warn" title="The last submission was not accepted">
          <ul>
            {h.issues.map((i) => (
              <li key={i}>{i}</li>
            ))}
          </ul>
        </Notice>
      ) : null}
      {e ? (
        <Notice kind="warn" title="Escalated to the operators">
          <p>{e.note}</p>
          <p class="meta">
            by <Person email={e.by} />, <When at={e.at} />
          </p>
          {e.candidate ? <p>A submission is held: completing without output uses it.</p> : null}
        </Notice>
      ) : null}
    </>
  );
}

export function Changes({ changes }: { changes: Change[] | null }) {
  return (
    <Notice kind="warn" title="The run changed since you opened this page">
      {changes && changes.length > 0 ? (
        <StackTable
          kind="changes"
          caption="What changed"
          captionShown
          columns={[{ head: 'Where' }, { head: 'Before' }, { head: 'Now' }]}
          rows={changes.map((c) => ({ key: c.path, head: c.path, cells: [c.before, c.after] }))}
        />
      ) : (
        <p>The page below shows the run as it is now.</p>
      )}
      <p>
        Nothing was decided. Check the page again, then decide: your entries are kept. <a href="">Reload the page</a> to start afresh.
      </p>
    </Notice>
  );
}
