/**
 * The front matter most board files hold (ids, states, people, quoted
 * timestamps, numbers, short lists and maps of those) written straight to
 * text, byte for byte as the yaml library writes it with codec.ts's options.
 * Building the library's Document and stringifying it was a tenth of a
 * transition's CPU. Anything this does not know to be plain (a multi-line
 * text, a string that needs escaping, a key that is not a word) gives null,
 * and codec.ts renders the whole document with the library as before.
 * test/board/plain-yaml.test.ts holds the two to the same bytes.
 */

/** A key the library writes as it is. */
const PLAIN_KEY = /^[A-Za-z_][A-Za-z0-9_-]*$/;

/**
 * A string the library writes unquoted under the core schema: begins with a
 * letter, digit, `_` or `/`, holds no `#`, quote, bracket or other indicator, no `:` but between two word characters (a web address),
 * no leading, trailing or doubled space, and is not one the core schema reads as
 * anything but a string (numbers, and words like `true`: `ambiguous` catches
 * them all but YAML 1.2's octal `0o17`).
 */
const PLAIN_STRING = /^[A-Za-z0-9_/][A-Za-z0-9_./@+=?&%-]*(:[A-Za-z0-9_./@+=?&%-]+)*( [A-Za-z0-9_./@+=()?&%-]+(:[A-Za-z0-9_./@+=()?&%-]+)*)*$/;

/** A string the library double-quotes without escaping anything: printable ASCII, no `"` or `\`. */
const QUOTABLE = /^[\x20-\x21\x23-\x5b\x5d-\x7e]*$/;

type Out = string[];

/** `data` as YAML lines, or null when something in it is not plain. `ambiguous` says which strings codec.ts double-quotes. */
export function plainYaml(data: Record<string, unknown>, ambiguous: RegExp): string | null {
  const out: Out = [];
  return map(data, '', out, ambiguous) && out.length > 0 ? out.join('') : null;
}

function scalar(v: unknown, ambiguous: RegExp): string | null {
  if (v === null) return 'null';
  if (typeof v === 'boolean') return v ? 'true' : 'false';
  if (typeof v === 'number') return Number.isFinite(v) && !Object.is(v, -0) ? JSON.stringify(v) : null;
  if (typeof v !== 'string') return null;
  if (ambiguous.test(v)) return QUOTABLE.test(v) ? `"${v}"` : null;
  // YAML 1.2's octal, which the core schema reads as a number and `ambiguous` (YAML 1.1's words) does not name.
  return PLAIN_STRING.test(v) && !/^0o[0-7]+$/.test(v) ? v : null;
}

function isMap(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v) && Object.getPrototypeOf(v) === Object.prototype;
}

/** A map's entries at `indent`; the first line's indent is the caller's when it continues a `- `. */
function map(m: Record<string, unknown>, indent: string, out: Out, ambiguous: RegExp, first = indent): boolean {
  let lead = first;
  for (const [k, v] of Object.entries(m)) {
    if (v === undefined) continue;
    if (!PLAIN_KEY.test(k) || ambiguous.test(k)) return false;
    if (!entry(`${lead}${k}:`, v, indent, out, ambiguous)) return false;
    lead = indent;
  }
  if (lead === first && first !== indent) return false; // an empty map as a list item: the library writes `- {}`
  return true;
}

/** `head` (`key:` or `-`) and its value: inline when a scalar or empty, else on the lines below. */
function entry(head: string, v: unknown, indent: string, out: Out, ambiguous: RegExp): boolean {
  if (Array.isArray(v)) {
    if (v.length === 0) {
      out.push(`${head} []\n`);
      return true;
    }
    out.push(`${head}\n`);
    return seq(v, `${indent}  `, out, ambiguous);
  }
  if (isMap(v)) {
    if (Object.values(v).every((x) => x === undefined)) {
      out.push(`${head} {}\n`);
      return true;
    }
    out.push(`${head}\n`);
    return map(v, `${indent}  `, out, ambiguous);
  }
  const s = scalar(v, ambiguous);
  if (s === null) return false;
  out.push(`${head} ${s}\n`);
  return true;
}

function seq(items: unknown[], indent: string, out: Out, ambiguous: RegExp): boolean {
  for (const item of items) {
    if (isMap(item)) {
      if (!map(item, `${indent}  `, out, ambiguous, `${indent}- `)) return false;
      continue;
    }
    // A list in a list, or a hole, is left to the library.
    if (Array.isArray(item) || item === undefined) return false;
    const s = scalar(item, ambiguous);
    if (s === null) return false;
    out.push(`${indent}- ${s}\n`);
  }
  return true;
}
