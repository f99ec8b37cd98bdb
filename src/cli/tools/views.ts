/**
 * The tools' results under the names the CLI's commands use: the protocol's
 * own types (src/protocol/views.ts, tool-data.ts), so a command prints
 * exactly what a tool returns.
 */
import type { Page, RunRow, WorkEntry } from '../../protocol/views.js';

/** A tool's arguments as the CLI builds them from a command line; the service checks them against the tool's schema. */
export type ToolArgs = Record<string, unknown>;

export type { Handoff } from '../../protocol/completions.js';
export type { Description, EventAnswer as EventResult, Renewal as Lease, UploadAnswer as Upload } from '../../protocol/tool-data.js';
export type { CompletionView as Completion, EvidenceView as Evidence, Route, RunView, WorkItemView as WorkItem } from '../../protocol/views.js';

/** `get_work`: a work item for a person, or a ready step for an agent. */
export type WorkPage = Page<WorkEntry>;

export type RunsPage = Page<RunRow>;
