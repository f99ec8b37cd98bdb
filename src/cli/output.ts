/** How the CLI talks: human lines (coloured on a TTY unless NO_COLOR), or exactly one JSON object with --json. */
import type { Issue } from '../core/issues.js';
import { issueText } from '../core/issues.js';
import { BoardError, faultOf, retryError } from '../board/errors.js';

/** Exit codes, documented in docs/cli.md "Exit codes". */
export const EXIT = { ok: 0, refused: 1, usage: 2, busy: 3, corrupt: 4, diskFull: 5, internal: 70 } as const;

/** The exit code for a tool's result: `retry` is busy (or a full disk), an internal fault is 70, any other refusal 1. */
export function exitFor(result: { ok: boolean; error?: { code: string; issues?: string[] } }): number {
  if (result.ok || !result.error) return EXIT.ok;
  const issues = result.error.issues ?? [];
  if (issues.includes('internal_fault')) return EXIT.internal;
  if (result.error.code !== 'retry') return EXIT.refused;
  return issues.includes('disk_full') ? EXIT.diskFull : EXIT.busy;
}

const useColor = () => process.stdout.isTTY === true && !process.env.NO_COLOR;
const paint = (code: number) => (s: string) => (useColor() ? `\u001b[${code}m${s}\u001b[0m` : s);
export const color = { red: paint(31), green: paint(32), yellow: paint(33), dim: paint(2), bold: paint(1) };

export function printJson(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}

/** `file:line:col: path: message`, the shape editors and grep understand. */
export function issueLine(issue: Issue, file?: string): string {
  const where = file ? `${file}${issue.line !== undefined ? `:${issue.line}:${issue.col ?? 1}` : ''}: ` : '';
  return `${where}${issueText(issue)}`;
}

/** A usage error: one line on stderr and, with --json, the one JSON object on stdout (exit 2 says it was usage). */
export function printUsageError(message: string, json: boolean, alreadyOnStderr = false): void {
  if (!alreadyOnStderr) process.stderr.write(`usage error: ${message}\n`);
  if (json) printJson({ ok: false, error: { code: 'usage', message, issues: [] } });
}

/** Print a refusal: one line naming what happened and what to do, then each issue on its own line. */
export function printError(err: unknown, json: boolean): number {
  if (err instanceof BoardError) {
    const code = err.code === 'busy' ? EXIT.busy : err.code === 'corrupt' ? EXIT.corrupt : EXIT.refused;
    if (json) printJson({ ok: false, error: { code: err.code, message: err.message, issues: err.issues.map((i) => issueText(i)) } });
    else {
      process.stderr.write(`${color.red(`error (${err.code})`)}: ${err.message}\n`);
      for (const i of err.issues) process.stderr.write(`  ${issueLine(i)}\n`);
    }
    return code;
  }
  // A full disk or a spent resource met before any tool answered (opening a fresh board) says what a tool would: retry.
  const fault = faultOf(err);
  const retry = retryError(fault);
  if (json) printJson({ ok: false, error: retry ?? { code: 'internal', message: fault.message } });
  else process.stderr.write(`${color.red(`error${retry ? ` (${fault.kind === 'no_space' ? 'disk_full' : 'busy'})` : ''}`)}: ${fault.message}\n`);
  return retry ? exitFor({ ok: false, error: retry }) : EXIT.internal;
}
