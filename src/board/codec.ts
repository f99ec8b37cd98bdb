/**
 * How board files look on disk, for reviewers reading git diffs: YAML
 * frontmatter in a fixed key order, block style, timestamps and other
 * ambiguous strings double-quoted, LF line ends, one final newline.
 * Rendering the same data twice gives the same bytes.
 */
import { Document, Scalar, visit } from 'yaml';
import { plainYaml } from './plain-yaml.js';

/**
 * Strings a YAML 1.1 reader would take for a date, boolean, null or number
 * (sexagesimal `12:30`, `1_000`, `0b101`, `.5`): quote them for every reader's sake.
 */
export const AMBIGUOUS =
  /^(\d{4}-\d{2}-\d{2}([Tt ].*)?|y|Y|yes|Yes|YES|n|N|no|No|NO|on|On|ON|off|Off|OFF|true|True|TRUE|false|False|FALSE|null|Null|NULL|~|[-+]?(0b[01_]+|0x[0-9a-fA-F_]+|0[0-7_]+|[0-9][0-9_]*(:[0-5]?[0-9])+(\.[0-9_]*)?|[0-9][0-9_]*(\.[0-9_]*)?([eE][-+]?[0-9]+)?|\.[0-9_]+([eE][-+]?[0-9]+)?|\.(inf|Inf|INF|nan|NaN|NAN)))$/;

/**
 * Lines of nothing but spaces and tabs: as a block scalar YAML reads them as
 * empty lines, so the library's `|+` would lose the spaces (" \n" would read
 * back as "\n"). Double quotes keep them.
 */
const blankLines = (s: string): boolean => /^[ \t\n]+$/.test(s) && /[ \t]/.test(s) && s.includes('\n');

/** Order the top-level keys: known keys first in the given order, then any others as they came. */
export function ordered(data: Record<string, unknown>, order: readonly string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const k of order) if (Object.hasOwn(data, k) && data[k] !== undefined) out[k] = data[k];
  for (const k of Object.keys(data)) if (!Object.hasOwn(out, k) && data[k] !== undefined) out[k] = data[k];
  return out;
}

export function renderYaml(data: Record<string, unknown>): string {
  return plainYaml(data, AMBIGUOUS) ?? libraryYaml(data);
}

/** The yaml library's rendering: what plain-yaml.ts matches byte for byte, and renders whatever it cannot. */
export function libraryYaml(data: Record<string, unknown>): string {
  const doc = new Document(data, { version: '1.2', schema: 'core' });
  visit(doc, {
    Scalar(key, node: Scalar) {
      if (key === 'key') return;
      if (typeof node.value === 'string' && (AMBIGUOUS.test(node.value) || blankLines(node.value))) node.type = Scalar.QUOTE_DOUBLE;
    },
  });
  return doc.toString({ lineWidth: 0, minContentWidth: 0, indent: 2, indentSeq: true, blockQuote: 'literal', nullStr: 'null' });
}

/** A markdown file: `---`, the YAML, `---`, then the body with exactly one final newline (or none when empty). */
export function renderMarkdown(data: Record<string, unknown>, body: string, order: readonly string[] = []): string {
  const yaml = renderYaml(ordered(data, order));
  const text = body.replace(/\r\n/g, '\n').replace(/\n*$/, '');
  return `---\n${yaml}---\n${text === '' ? '' : `${text}\n`}`;
}
