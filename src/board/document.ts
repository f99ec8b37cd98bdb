/**
 * A committed board document (a markdown file with YAML frontmatter and a
 * `rev`): decoding with its schema check, encoding in the reviewer's layout,
 * and moving only the `rev:` line of a file someone else laid out.
 */
import { BoundedMap } from '../core/bounded-map.js';
import type { Issue } from '../core/issues.js';
import { sha256Hex } from '../core/hash.js';
import { parseMarkdown } from '../core/markdown.js';
import { isObj } from '../process/validate/raw.js';
import { renderMarkdown } from './codec.js';
import { fileKind } from './layout.js';
import { manifestIssues } from './manifest.js';
import { keyOrder, schemaIssues } from './schemas.js';

export interface BoardDoc {
  rel: string;
  data: Record<string, unknown>;
  body: string;
  rev: number;
  sha256: string;
}

/**
 * Documents decoded before, by path and content hash: a write reads back the
 * bytes the board itself last wrote, and parsing them again (YAML, schema)
 * was most of a transition's work. Valid documents only; each caller gets
 * its own copy of the data.
 */
const decoded = new BoundedMap<string, BoardDoc>(2048);

/** What decoding a committed markdown file gives: the document, or every problem with it. */
export type Decoded = { ok: true; doc: BoardDoc } | { ok: false; issues: Issue[] };

/** Whether these bytes of `rel` were decoded in this process before (so `decodeDoc` answers without parsing). */
export function decodedBefore(rel: string, sha256: string): boolean {
  return decoded.has(`${rel}\0${sha256}`);
}

/** A parsed and schema-checked committed markdown file, or every problem with it. */
export function decodeDoc(rel: string, bytes: Buffer): Decoded {
  const sha256 = sha256Hex(bytes);
  const key = `${rel}\0${sha256}`;
  const hit = decoded.get(key);
  if (hit) return { ok: true, doc: { ...hit, data: structuredClone(hit.data) } };
  const r = decodeFresh(rel, bytes, sha256);
  if (r.ok) decoded.set(key, { ...r.doc, data: structuredClone(r.doc.data) });
  return r;
}

/**
 * Remember what a document the board just wrote decodes to. Seeded through
 * JSON, as YAML reads it back: a key whose value is undefined is not written.
 */
export function rememberDecoded(doc: BoardDoc): void {
  decoded.set(`${doc.rel}\0${doc.sha256}`, { ...doc, data: JSON.parse(JSON.stringify(doc.data)) as Record<string, unknown> });
}

function decodeFresh(rel: string, bytes: Buffer, sha256: string): Decoded {
  const text = bytes.toString('utf8');
  const parsed = parseMarkdown(text);
  if (!parsed.ok) return parsed;
  const data = parsed.value.data;
  if (!isObj(data)) return { ok: false, issues: [{ path: '', message: 'frontmatter must be a map' }] };
  const kind = fileKind(rel);
  if (kind) {
    const issues = [...schemaIssues(kind, data), ...(kind === 'work' ? manifestIssues(data) : [])].map((i) => ({
      ...i,
      ...(parsed.value.locate(i.path.split(/\.|\[|\]/).filter(Boolean)) ?? {}),
    }));
    if (issues.length > 0) return { ok: false, issues };
  }
  const rev = data.rev;
  if (typeof rev !== 'number' || !Number.isInteger(rev) || rev < 1) return { ok: false, issues: [{ path: 'rev', message: 'required: a whole number from 1' }] };
  return { ok: true, doc: { rel, data, body: parsed.value.body, rev, sha256 } };
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
  const hits = lines
    .slice(1, close)
    .map((l, i) => (/^rev:\s*\d+\s*(#.*)?\r?$/.test(l) ? i + 1 : -1))
    .filter((i) => i > 0);
  if (hits.length !== 1) return undefined;
  const at = hits[0]!;
  lines[at] = lines[at]!.replace(/^rev:\s*\d+/, `rev: ${rev}`);
  return lines.join('\n');
}
