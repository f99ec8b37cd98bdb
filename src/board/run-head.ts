/**
 * A RUN.md's head fields read from its text, for the readers that see a run
 * outside the board's own reads: git's merge ranks both sides of a run by
 * them (a side may hold any text at all; it is ranked, never refused), a
 * merge's replay finds the process version a run pins, and sync names a
 * run's process in the notification of what it set aside. Each field is the
 * file's when it has the type the run schema gives it, else null. One parser,
 * the codec's (core/markdown.ts, strict YAML 1.2); the board's own reads go
 * through the codec and the schema whole (document.ts), and the run index's
 * fast path (service/run-summary-scan.ts) through the schema's rules.
 */
import { parseMarkdown } from '../core/markdown.js';

export interface RunHead {
  id: string | null;
  process: string | null;
  version: number | null;
  mode: 'live' | 'test' | null;
  rev: number | null;
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The head of a RUN.md's text, or null when it has no frontmatter map the parser accepts. */
export function readRunHead(text: string): RunHead | null {
  const parsed = parseMarkdown(text);
  if (!parsed.ok || !isRecord(parsed.value.data)) return null;
  const d = parsed.value.data;
  const str = (v: unknown) => (typeof v === 'string' ? v : null);
  const num = (v: unknown) => (typeof v === 'number' ? v : null);
  return { id: str(d.id), process: str(d.process), version: num(d.version), mode: d.mode === 'live' || d.mode === 'test' ? d.mode : null, rev: num(d.rev) };
}

/** The process and version a RUN.md pins, when it names both. */
export function pinnedBy(head: RunHead | null): { process: string; version: number } | null {
  return head !== null && head.process !== null && head.version !== null ? { process: head.process, version: head.version } : null;
}
