/**
 * A tool call as one typed value: the tool's name with its arguments, as the
 * argument schemas describe them (tool-args.ts is generated from those).
 * Switching on `tool` narrows `args`, so no layer reads an argument by cast.
 */
import type { Tool } from './offer.js';
import type { ToolArgs } from './tool-args.js';

// Indexing ToolArgs by every Tool makes a tool without a generated argument type a compile error.
export type ToolCall = { [T in Tool]: { tool: T; args: ToolArgs[T] } }[Tool];

/** The writes on an existing run, named by its runId or by a claim token. */
export type RunWriteTool = 'claim' | 'renew' | 'submit' | 'escalate' | 'decide' | 'cancel' | 'send_event';
export type RunWriteCall = Extract<ToolCall, { tool: RunWriteTool }>;
