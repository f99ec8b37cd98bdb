/**
 * A committed board document (a markdown file with YAML frontmatter and a
 * `rev`): decoding with its schema check, encoding in the reviewer's layout,
 * and moving only the `rev:` line of a file someone else laid out.
 */
import type { Issue } from '../core/issues.js';
import { sha256Hex } from '../core/hash.js';
import { parseMarkdown } from '../core/markdown.js';
import { renderMarkdown } from './codec.js';
import { fileKind } from './layout.js';
import { keyOrder, schemaIssues } from './schemas.js';

export interface BoardDoc {
  rel: string;
  data: Record<string, unknown>;
  body: string;
  rev: number;
  sha256: string;
}

/** A parsed and schema-checked committed markdown file, or every problem with it. */
export function decodeDoc(rel: string, bytes: Buffer): { ok: true; doc: BoardDoc } | { ok: false; issues: Issue[] } {
  const text = bytes.toString('utf8');
  const parsed = parseMarkdown(text);
  if (!parsed.ok) return parsed;
  const data = parsed.value.data;
  if (typeof data !== 'object' || data === null || Array.isArray(data)) return { ok: false, issues: [{ path: '', message: 'frontmatter must be a map' }] };
  const kind = fileKind(rel);
  if (kind) {
    const issues = schemaIssues(kind, data).map((i) => ({ ...i, ...(parsed.value.locate(i.path.split(/\.|\[|\]/).filter(Boolean)) ?? {}) }));
    if (issues.length > 0) return { ok: false, issues };
  }
  const rev = (data as Record<string, unknown>).rev;
  if (typeof rev !== 'number' || !Number.isInteger(rev) || rev < 1) return { ok: false, issues: [{ path: 'rev', message: 'required: a whole number from 1' }] };
  return { ok: true, doc: { rel, data: data as Record<string, unknown>, body: parsed.value.body, rev, sha256: sha256Hex(bytes) } };
}

export function encodeDoc(rel: string, data: Record<string, unknown>, body: string): string {
  const kind = fileKind(rel);
  return renderMarkdown(data, body, kind ? keyOrder(kind) : ['rev']);
}

/** Replace the single top-level `rev:` line of a file's frontmatter, or undefined when there is not exactly one. */
export function withRev(text: string, rev: number): string | undefined {
  const lines = text.split('\n');
  const close = lines.findIndex((l, i) => i > 0 && l.replace(/\r$/, '') === '---');
  if (close < 0) return undefined;
  const hits = lines.slice(1, close).map((l, i) => (/^rev:\s*\d+\s*(#.*)?\r?$/.test(l) ? i + 1 : -1)).filter((i) => i > 0);
  if (hits.length !== 1) return undefined;
  const at = hits[0]!;
  lines[at] = lines[at]!.replace(/^rev:\s*\d+/, `rev: ${rev}`);
  return lines.join('\n');
}
