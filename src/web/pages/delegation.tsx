/**
 * Out of office (docs/people.md "Out of office"): hand your work to someone
 * until a date, see who stands in for you and for whom you stand in, end it;
 * an operator sees every delegation in force and can end any of them.
 */
import { Layout, type Frame } from './layout.js';
import { IssueList, Notice } from './parts.js';
import { Person, When } from './words.js';

export interface DelegationRow {
  from: string;
  to: string;
  since: string;
  until: string;
  note?: string;
}

export interface DelegationProps {
  frame: Frame;
  csrf: string;
  me: string;
  /** Mine, when I am out of office now. */
  mine: DelegationRow | null;
  /** Those who handed their work to me. */
  toMe: DelegationRow[];
  /** Every delegation in force, for an operator; null for anyone else. */
  all: DelegationRow[] | null;
  /** The board's people I may hand my work to. */
  people: { email: string; name: string }[];
  /** What was typed, and the problems with it, after a refusal. */
  posted: { to: string; until: string; note: string };
  issues: Map<string, string[]>;
  /** The board's time zone in words ("Berlin time"), for the date's label. */
  zone: string;
  /** A word after a change: 'set' or 'ended'. */
  done: string | null;
}

function EndForm({ csrf, from, label, inline = false }: { csrf: string; from: string; label: string; inline?: boolean }) {
  return (
    <form method="post" action="/out-of-office/end" class={inline ? 'inline-form' : 'end-form'}>
      <input type="hidden" name="csrf" value={csrf} />
      <input type="hidden" name="from" value={from} />
      <button type="submit">{label}</button>
    </form>
  );
}

export function DelegationPage(p: DelegationProps) {
  const toIssues = p.issues.get('to');
  const untilIssues = p.issues.get('until');
  const formIssues = p.issues.get('');
  return (
    <Layout frame={p.frame}>
      <h1>Out of office</h1>
      {p.done === 'set' ? <Notice kind="ok" title="Your work is handed over" /> : null}
      {p.done === 'ended' ? <Notice kind="ok" title="The delegation ended" /> : null}
      {p.mine ? (
        <section aria-labelledby="mine-h" class="delegation mine">
          <h2 id="mine-h">You are out of office</h2>
          <p>
            <Person email={p.mine.to} /> sees your approvals and tasks on My work and decides them for you. It ends by itself <When at={p.mine.until} />.
            {p.mine.note ? <> Your note: “{p.mine.note}”.</> : null}
          </p>
          <EndForm csrf={p.csrf} from={p.mine.from} label="I am back: end it now" />
        </section>
      ) : null}
      {p.toMe.length > 0 ? (
        <section aria-labelledby="tome-h" class="delegation">
          <h2 id="tome-h">You stand in for</h2>
          <ul>
            {p.toMe.map((d) => (
              <li key={d.from}>
                <Person email={d.from} />
                {d.note ? <> (“{d.note}”)</> : null}: their items are on <a href="/work">My work</a>, marked “For <Person email={d.from} />
                ”; it ends <When at={d.until} />.
              </li>
            ))}
          </ul>
        </section>
      ) : null}
      <form method="post" action="/out-of-office" class="decide" aria-labelledby="set-h">
        <h2 id="set-h">{p.mine ? 'Change who stands in for you' : 'Hand your work to someone'}</h2>
        <p class="muted">
          They see what is assigned to you and your groups and decide it in their own name, for you. Four eyes still holds: they never approve what you or they submitted. It ends by itself on the date
          you give.
        </p>
        <IssueList id="set-issues" list={formIssues} />
        <input type="hidden" name="csrf" value={p.csrf} />
        <div class={`field${toIssues ? ' has-issues' : ''}`}>
          <label for="f-to">Who stands in for you</label>
          <select id="f-to" name="to" aria-describedby={toIssues ? 'f-to-issues' : undefined}>
            <option value="">Choose a person…</option>
            {p.people.map((x) => (
              <option key={x.email} value={x.email} selected={x.email === p.posted.to}>
                {x.name}
              </option>
            ))}
          </select>
          <IssueList id="f-to-issues" list={toIssues} />
        </div>
        <div class={`field${untilIssues ? ' has-issues' : ''}`}>
          <label for="f-until">Back on ({p.zone})</label>
          <input type="date" id="f-until" name="until" value={p.posted.until} aria-describedby={`f-until-desc${untilIssues ? ' f-until-issues' : ''}`} />
          <p class="desc" id="f-until-desc">
            Your work is yours again from the start of that day.
          </p>
          <IssueList id="f-until-issues" list={untilIssues} />
        </div>
        <div class="field">
          <label for="f-note">A note for the team (optional)</label>
          <input type="text" id="f-note" name="note" value={p.posted.note} maxLength={500} />
        </div>
        <div class="buttons">
          <button type="submit">Hand over my work</button>
        </div>
      </form>
      {p.all !== null ? (
        <section aria-labelledby="all-h" class="delegation">
          <h2 id="all-h">Everyone out of office</h2>
          {p.all.length === 0 ? (
            <p class="muted">Nobody is out of office.</p>
          ) : (
            <ul class="delegations">
              {p.all.map((d) => (
                <li key={d.from}>
                  <Person email={d.from} />
                  ’s work goes to <Person email={d.to} />
                  {d.note ? <> (“{d.note}”)</> : null}; it ends <When at={d.until} />
                  {d.from.toLowerCase() !== p.me.toLowerCase() ? <EndForm csrf={p.csrf} from={d.from} label="End it" inline /> : null}
                </li>
              ))}
            </ul>
          )}
        </section>
      ) : null}
    </Layout>
  );
}
