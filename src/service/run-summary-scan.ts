/**
 * A run's index summary read straight off the lines of its RUN.md, without
 * parsing the whole frontmatter: about a fifth of the cost, which is most of a
 * cold index build (one RUN.md per run). It understands only the layout the
 * board itself writes: top-level `key: value` lines, the needed values as
 * single-line scalars, nested blocks indented. Anything else (a hand edit, a
 * flow map, a comment, CRLF) answers null, and the caller reads the file in
 * full. `inputs`, whose values can be anything, are read here when each is a
 * simple scalar on its own line, else through the strict YAML parser. The index is never a source of truth: every read of the run
 * itself parses and checks its files in full.
 *
 * The summary's fields are held to the rules the codec checks them by, taken
 * from the run schema itself (schemas/board/run.schema.json: the state and
 * mode names, the id and process patterns, the least version), so the two
 * cannot drift apart; test/service/run-readers.test.ts holds the two reads
 * to the same answer on every RUN.md of the test boards.
 */
import { parseYaml } from '../core/markdown.js';
import { fieldRule } from '../board/schemas.js';
import { isObj } from '../process/validate/raw.js';
import type { RunRecord } from '../engine/types.js';

/** What the run index keeps of a run: enough to list, filter and sort runs without reading them. */
export type RunSummary = Pick<RunRecord, 'id' | 'process' | 'version' | 'state' | 'outcome' | 'mode' | 'startedAt' | 'updatedAt' | 'inputs'>;

const SCALARS = ['id', 'process', 'version', 'state', 'outcome', 'mode', 'startedAt', 'updatedAt'] as const;
const SCALAR_SET: ReadonlySet<string> = new Set(SCALARS);

/** A double-quoted YAML string that is also a JSON string (the escapes they share). */
// eslint-disable-next-line no-control-regex -- YAML and JSON both refuse raw control characters in a quoted string
const QUOTED = /^"(?:[^"\\\u0000-\u001f]|\\["\\/bfnrt]|\\u[0-9a-fA-F]{4})*"$/;
/**
 * A plain scalar made only of characters that never mean anything else in YAML
 * where they stand (a colon only before another such character: `https://…`).
 */
const PLAIN = /^[A-Za-z0-9][A-Za-z0-9_.@+\-/?=&%~]*(:[A-Za-z0-9_.@+\-/?=&%~]+)*$/;
const INTEGER = /^-?(0|[1-9][0-9]{0,14})$/;
const DECIMAL = /^-?(0|[1-9][0-9]{0,14})\.[0-9]{1,17}$/;
/** What the YAML 1.2 core schema reads as a number, a boolean or null rather than a string. */
const NOT_A_STRING = /^([-+]?[0-9]+|0o[0-7]+|0x[0-9a-fA-F]+|[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?|[-+]?\.(inf|Inf|INF)|\.(nan|NaN|NAN)|true|True|TRUE|false|False|FALSE|null|Null|NULL)$/;

/** The run schema's rules for the summary's fields, read from it once, when first needed. */
interface SummaryRules {
  states: ReadonlySet<unknown>;
  modes: ReadonlySet<unknown>;
  id: RegExp;
  process: RegExp;
  minVersion: number;
}
let rules: SummaryRules | null = null;

function summaryRules(): SummaryRules {
  if (rules === null) {
    const pattern = (key: string) => new RegExp(fieldRule('run', key).pattern ?? '', 'u');
    rules = {
      states: new Set(fieldRule('run', 'state').enum),
      modes: new Set(fieldRule('run', 'mode').enum),
      id: pattern('id'),
      process: pattern('process'),
      minVersion: fieldRule('run', 'version').minimum ?? 1,
    };
  }
  return rules;
}

const isState = (s: string): s is RunSummary['state'] => summaryRules().states.has(s);
const isMode = (s: string): s is RunSummary['mode'] => summaryRules().modes.has(s);
/** A map key the board writes plain. */
const KEY = /^[A-Za-z_][A-Za-z0-9_-]*$/;

type Scalar = string | number | boolean | null;

/** A value written on its key's line, as YAML reads it; undefined when it is not one of the simple forms. */
function scalar(raw: string): Scalar | undefined {
  if (raw === 'null') return null;
  if (raw === 'true' || raw === 'false') return raw === 'true';
  if (QUOTED.test(raw)) return JSON.parse(raw) as string;
  if (INTEGER.test(raw) || DECIMAL.test(raw)) return Number(raw);
  if (PLAIN.test(raw) && !NOT_A_STRING.test(raw)) return raw;
  return undefined;
}

/**
 * The inputs block: one `  key: scalar` line per input, read here; anything
 * else (nested values, lists, quoted keys) through the strict YAML parser.
 */
function inputsOf(block: readonly string[]): Record<string, unknown> | null {
  const first = block[0]!;
  if (first === 'inputs: {}' && block.length === 1) return {};
  if (first === 'inputs:') {
    const out: Record<string, unknown> = {};
    let simple = block.length > 1;
    for (const line of block.slice(1)) {
      const m = /^ {2}([^ :][^:]*): (.+)$/.exec(line);
      const v = m && KEY.test(m[1]!) && !Object.hasOwn(out, m[1]!) ? scalar(m[2]!) : undefined;
      if (v === undefined) {
        simple = false;
        break;
      }
      out[m![1]!] = v;
    }
    if (simple) return out;
  }
  const parsed = parseYaml(`${block.join('\n')}\n`, '');
  if (!parsed.ok) return null;
  const data = parsed.value.data;
  const value = isObj(data) ? data.inputs : undefined;
  return isObj(value) ? value : null;
}

export function scanRunSummary(text: string): RunSummary | null {
  if (!text.startsWith('---\n')) return null;
  const close = text.indexOf('\n---\n', 3);
  if (close < 0) return null;
  const lines = text.slice(4, close).split('\n');
  const found = new Map<string, Scalar>();
  let inputs: string[] | null = null;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    // Inside a nested block (ended, events, inputs), or a blank line: a block
    // scalar's empty lines are not indented, and at the top level YAML skips them.
    if (line.startsWith('  ') || line === '') continue;
    const m = /^([A-Za-z][A-Za-z0-9_]*):(?: (.+))?$/.exec(line);
    if (!m || line.includes('\r') || line.includes('\t')) return null;
    // The key's group always takes part in a match: the default is never used.
    const [, key = '', raw] = m;
    if (found.has(key) || (key === 'inputs' && inputs !== null)) return null; // a duplicate: the full read refuses it
    if (key === 'inputs') {
      let end = i + 1;
      while (end < lines.length && (lines[end]!.startsWith('  ') || lines[end] === '')) end++;
      inputs = lines.slice(i, end);
      i = end - 1;
    } else if (SCALAR_SET.has(key)) {
      const v = raw === undefined ? undefined : scalar(raw);
      if (v === undefined) return null;
      found.set(key, v);
    }
  }
  const str = (k: string) => {
    const v = found.get(k);
    return typeof v === 'string' ? v : null;
  };
  const [id, process, state, mode, startedAt, updatedAt] = ['id', 'process', 'state', 'mode', 'startedAt', 'updatedAt'].map(str);
  const version = found.get('version');
  const outcome = found.get('outcome') ?? null;
  const r = summaryRules();
  if (!id || !r.id.test(id) || !process || !r.process.test(process) || !state || !isState(state) || !mode || !isMode(mode) || !startedAt || !updatedAt) return null;
  if (typeof version !== 'number' || !Number.isInteger(version) || version < r.minVersion || (outcome !== null && typeof outcome !== 'string')) return null;
  const value = inputs === null ? null : inputsOf(inputs);
  if (value === null) return null;
  return { id, process, version, state, outcome, mode, startedAt, updatedAt, inputs: value };
}
