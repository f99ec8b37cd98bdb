/**
 * The service's answers under the names the pages use: the protocol's own
 * types (src/protocol/views.ts), so a page reads exactly what a tool returns.
 */
import type { WorkEntry as AnyWorkEntry } from '../protocol/views.js';

export type { CompletionView as Completion, EvidenceView as Evidence, ProcessSummary, RunFlow, RunLineage, RunView, StepDataView as StepData, WorkItemView as WorkItem } from '../protocol/views.js';

/** A person's `get_work` item: a work item with its run. */
export type WorkEntry = Extract<AnyWorkEntry, { workItem: unknown }>;

export const isWorkItemEntry = (e: AnyWorkEntry): e is WorkEntry => 'workItem' in e;
