/** Pages that say one thing: a refusal, a work item that is no longer open, and the confirmation asked before a decision that ends a run. */
import type { ComponentChildren } from 'preact';
import { Layout, type Frame } from './layout.js';
import { Notice } from './parts.js';
import type { Posted } from '../form-values.js';
import { DECISION_LABELS } from './work-item.js';

export function MessagePage({ frame, title, kind = 'error', children }: { frame: Frame; title: string; kind?: 'error' | 'warn' | 'info' | 'ok'; children?: ComponentChildren }) {
  return (
    <Layout frame={frame}>
      <h1>{title}</h1>
      <Notice kind={kind} title={title}>
        {children}
      </Notice>
      <p>
        <a href="/work">Back to my work</a>
      </p>
    </Layout>
  );
}

/** Asked before `failed`, and before a rejection where the process returns nowhere: the posted form again, with a confirmation. */
export function ConfirmPage({ frame, action, posted, decision, ends }: { frame: Frame; action: string; posted: Posted; decision: string; ends: string }) {
  const hidden: [string, string][] = [];
  for (const [k, vs] of posted) if (k !== 'decision' && k !== 'confirm' && k !== '_add') for (const v of vs) hidden.push([k, v]);
  return (
    <Layout frame={frame}>
      <h1>{DECISION_LABELS[decision] ?? decision}?</h1>
      <Notice kind="warn" title="This ends the run">
        <p>{ends}</p>
      </Notice>
      <form method="post" action={action} enctype="multipart/form-data">
        {hidden.map(([k, v], i) => (
          <input key={i} type="hidden" name={k} value={v} />
        ))}
        <input type="hidden" name="confirm" value="yes" />
        <div class="buttons">
          <button type="submit" name="decision" value={decision} class="danger">
            Yes, {(DECISION_LABELS[decision] ?? decision).toLowerCase()}
          </button>
          <a href={action} class="button">
            No, go back
          </a>
        </div>
      </form>
    </Layout>
  );
}
