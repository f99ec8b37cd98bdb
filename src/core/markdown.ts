/**
 * Split a markdown file into YAML frontmatter and body, and parse the
 * frontmatter strictly: YAML 1.2 core schema, unique keys, no anchors,
 * aliases or non-core tags, plain string keys only.
 *
 * Pure: takes text, returns data or issues. Used for PROCESS.md and for every
 * board file (RUN.md, step files, WORK.md, VERSION.md).
 */
import { isAlias, isMap, isNode, isPair, isScalar, isSeq, LineCounter, parseDocument, visit, type Document, type Node, type Pair, type YAMLMap } from 'yaml';
import { formatPath, type Issue, type PathSegment } from './issues.js';

/** The tags of the YAML 1.2 core schema; any other explicit tag is refused. */
const CORE_TAGS = new Set(['str', 'int', 'float', 'bool', 'null', 'map', 'seq'].map((t) => `tag:yaml.org,2002:${t}`));

export const MAX_FILE_BYTES = 1024 * 1024;
const MAX_DEPTH = 64;

export interface ParsedMarkdown {
  /** The frontmatter as plain JSON data (maps are plain objects with own keys only). */
  data: unknown;
  /** Everything after the line that closes the frontmatter, exactly as written. */
  body: string;
  /** Maps a path inside the frontmatter to its 1-based line and column in the file. */
  locate: (path: readonly PathSegment[]) => { line: number; col: number } | undefined;
}

export type ParseResult = { ok: true; value: ParsedMarkdown } | { ok: false; issues: Issue[] };

/**
 * The frontmatter opens with a first line that is exactly `---` and closes at
 * the next line that is exactly `---`. The body starts after that closing
 * line's line break (LF or CRLF).
 */
export function parseMarkdown(text: string): ParseResult {
  if (Buffer.byteLength(text, 'utf8') > MAX_FILE_BYTES) {
    return fail(`file is larger than ${MAX_FILE_BYTES} bytes`);
  }
  if (text.includes('\u0000')) return fail('file contains a NUL byte; expected UTF-8 text');
  // With the u flag a surrogate pair is one code point, so this finds only lone halves, which no UTF-8 file can hold
  // and RFC 8785 (the content hash) cannot encode.
  if (/\p{Cs}/u.test(text)) return fail('file contains a lone surrogate; expected UTF-8 text');
  const lines = text.split('\n');
  if (stripCR(lines[0]) !== '---') {
    if (text.startsWith('\uFEFF')) return fail('file starts with a byte-order mark; save it as UTF-8 without one so it starts with `---`', 1, 1);
    return fail('file must start with a line `---` that opens the YAML frontmatter', 1, 1);
  }
  const closeLine = lines.findIndex((l, i) => i > 0 && stripCR(l) === '---');
  if (closeLine === -1) return fail('frontmatter is not closed by a line `---`', 1, 1);

  // A line inside that merely starts with `---` would close the frontmatter for other markdown tools
  // (front-matter libraries look for the first line starting with `---`), so they would read another split.
  if (lines.slice(1, closeLine).some((l) => l.startsWith('---'))) {
    return fail('frontmatter delimiters are ambiguous; use a line that is exactly `---` to open and to close it', 1, 1);
  }
  const body = lines.slice(closeLine + 1).join('\n');
  // The frontmatter is its lines, each with its line break, as YAML writers end a document: the break
  // before the closing line ends the last value. Without it a keep-chomped block scalar (`|+`) that ends
  // the frontmatter would lose its last blank line. With CRLF that break is the CR and LF.
  const frontmatter = lines
    .slice(1, closeLine)
    .map((l) => `${stripCR(l)}\n`)
    .join('');
  return parseYaml(frontmatter, body, 1);
}

function stripCR(line: string | undefined): string | undefined {
  return line?.endsWith('\r') ? line.slice(0, -1) : line;
}

function fail(message: string, line?: number, col?: number): { ok: false; issues: Issue[] } {
  const issue: Issue = { path: '', message };
  if (line !== undefined) issue.line = line;
  if (col !== undefined) issue.col = col;
  return { ok: false, issues: [issue] };
}

/**
 * Parse YAML text strictly. `lineOffset` is how many file lines precede the
 * YAML text, so positions point into the whole file.
 */
export function parseYaml(yamlText: string, body: string, lineOffset = 0): ParseResult {
  const lineCounter = new LineCounter();
  let doc: Document.Parsed;
  try {
    doc = parseDocument(yamlText, {
      schema: 'core',
      version: '1.2',
      // Duplicate keys are refused in structuralIssues: the library's own check is quadratic in a map's size.
      uniqueKeys: false,
      merge: false,
      strict: true,
      prettyErrors: false,
      lineCounter,
    });
  } catch (e) {
    return fail(`YAML could not be parsed: ${(e as Error).message}`);
  }
  const at = (offset: number | undefined) => {
    if (offset === undefined) return {};
    // An error at the very end (an unclosed quote) names the last line, not the empty one after its line break.
    const p = lineCounter.linePos(Math.min(offset, Math.max(0, yamlText.length - 1)));
    return { line: p.line + lineOffset, col: p.col };
  };
  const issues: Issue[] = [];
  for (const err of [...doc.errors, ...doc.warnings]) {
    const text = err.message.split('\n')[0]?.replace(/ at line \d+, column \d+:?$/, '') ?? '';
    // The parser runs out of stack on absurd nesting before our own depth rule can name it.
    const message = err.code === 'DUPLICATE_KEY' ? 'duplicate key' : text.includes('Maximum call stack size exceeded') ? `nested deeper than ${MAX_DEPTH} levels` : `YAML: ${text}`;
    issues.push({ path: '', message, ...at(err.pos[0]) });
  }
  if (issues.length === 0) issues.push(...structuralIssues(doc, at));
  if (issues.length > 0) return { ok: false, issues };

  let data: unknown;
  try {
    data = toPlain(doc.contents);
  } catch (e) {
    return fail(`YAML could not be read: ${(e as Error).message}`);
  }
  const locate = (path: readonly PathSegment[]) => {
    const node = nodeAt(doc, path);
    const pos = at(node?.range?.[0]);
    return pos.line === undefined ? undefined : { line: pos.line, col: pos.col };
  };
  return { ok: true, value: { data: data ?? null, body, locate } };
}

/** Anchors, aliases, foreign tags, non-string keys and excessive depth. */
function structuralIssues(doc: Document.Parsed, at: (o: number | undefined) => { line?: number; col?: number }): Issue[] {
  const issues: Issue[] = [];
  const where = (node: Node | null | undefined) => at(node?.range?.[0]);
  visit(doc, {
    Node(_key, node, ancestors) {
      if (ancestors.length > MAX_DEPTH * 2) {
        issues.push({ path: '', message: `nested deeper than ${MAX_DEPTH} levels`, ...where(node) });
        return visit.BREAK;
      }
      if (isAlias(node)) {
        issues.push({ path: '', message: `aliases are not allowed (*${node.source})`, ...where(node) });
        return visit.SKIP;
      }
      if (node.anchor) issues.push({ path: '', message: `anchors are not allowed (&${node.anchor})`, ...where(node) });
      if (node.tag && !CORE_TAGS.has(node.tag)) {
        issues.push({ path: '', message: `tag ${node.tag} is not allowed; only the YAML 1.2 core schema is`, ...where(node) });
      }
      if (isMap(node)) {
        const seen = new Set<unknown>();
        for (const pair of node.items) {
          if (!isScalar(pair.key)) continue;
          if (seen.has(pair.key.value)) issues.push({ path: '', message: 'duplicate key', ...where(pair.key) });
          seen.add(pair.key.value);
        }
      }
      return undefined;
    },
    Pair(_key, pair) {
      const k = pair.key;
      if (!isScalar(k) || typeof k.value !== 'string') {
        issues.push({ path: '', message: 'map keys must be plain strings', ...where(isNode(k) ? k : null) });
      }
      return undefined;
    },
  });
  return issues;
}

/** Convert to plain JSON data with own-property objects (no prototype pollution via `__proto__`). */
function toPlain(node: unknown): unknown {
  if (node === null || node === undefined) return null;
  if (isScalar(node)) {
    const v = node.value;
    if (typeof v === 'number' && !Number.isFinite(v)) return v; // kept; validators refuse it where a number is expected
    return v;
  }
  if (isSeq(node)) return node.items.map((i) => toPlain(i));
  if (isMap(node)) {
    const out: Record<string, unknown> = {};
    for (const pair of node.items) {
      if (!isPair(pair) || !isScalar(pair.key)) continue;
      Object.defineProperty(out, String(pair.key.value), {
        value: toPlain(pair.value),
        enumerable: true,
        writable: true,
        configurable: true,
      });
    }
    return out;
  }
  throw new Error('unsupported YAML node');
}

/** Each map's pairs by key (the first of each), built once: locating many issues in a big map stays linear. */
const keyIndexes = new WeakMap<YAMLMap, Map<unknown, Pair>>();
function keyIndex(map: YAMLMap): Map<unknown, Pair> {
  let index = keyIndexes.get(map);
  if (!index) {
    index = new Map();
    for (const p of map.items) if (isScalar(p.key) && !index.has(p.key.value)) index.set(p.key.value, p);
    keyIndexes.set(map, index);
  }
  return index;
}

/** The node at a path, or the nearest ancestor that exists (for a missing key). */
function nodeAt(doc: Document.Parsed, path: readonly PathSegment[]): Node | undefined {
  let node: unknown = doc.contents;
  let last: Node | undefined = isNode(node) ? node : undefined;
  for (const seg of path) {
    if (isMap(node)) {
      const pair = keyIndex(node).get(seg);
      if (!pair) return last;
      node = pair.value ?? pair.key;
      if (node === null && isNode(pair.key)) node = pair.key;
    } else if (isSeq(node) && typeof seg === 'number') {
      node = node.items[seg];
    } else {
      return last;
    }
    if (!isNode(node)) return last;
    last = node;
  }
  return last;
}

/** Attach line and column to issues collected with path segments. */
export function locateIssues(items: readonly { path: readonly PathSegment[]; message: string }[], locate?: ParsedMarkdown['locate']): Issue[] {
  return items.map(({ path, message }) => {
    const issue: Issue = { path: formatPath(path), message };
    const pos = locate?.(path);
    if (pos) {
      issue.line = pos.line;
      issue.col = pos.col;
    }
    return issue;
  });
}
