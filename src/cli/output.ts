/** How the CLI talks: human lines (coloured on a TTY unless NO_COLOR), or exactly one JSON object with --json. */
import type { Issue } from '../core/issues.js';
import { issueText } from '../core/issues.js';
import { BoardError } from '../board/errors.js';

/** Exit codes, documented in the README. */
export const EXIT = { ok: 0, refused: 1, usage: 2, busy: 3, corrupt: 4, internal: 70 } as const;

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
  const message = err instanceof Error ? err.message : String(err);
  if (json) printJson({ ok: false, error: { code: 'internal', message } });
  else process.stderr.write(`${color.red('error')}: ${message}\n`);
  return EXIT.internal;
}
