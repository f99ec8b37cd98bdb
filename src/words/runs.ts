/**
 * A run in words: its name ("Expense approval · Jon Berg · 184.50 EUR") and
 * what its steps found so far, booleans and choices first. The spec has no
 * way to mark an output as key, so the kinds of value decide. Pure.
 */
import type { Fields, FieldSpec, Process } from '../process/model.js';
import { isPerson } from '../process/values.js';
import type { RunData } from '../protocol/views.js';
import { fieldLabel, processTitle, stepTitle } from './titles.js';
import { cutAtWord } from './text.js';
import { formatValue, unitOf, type WordsContext } from './values.js';
import type { PersonLike } from './people.js';

/** Text longer than this is the body of the work, not a name or a finding. */
const SHORT = 40;
const SHORT_FINDING = 80;
const RUN_TITLE_INPUTS = 3;
export const TITLE_SEPARATOR = ' · ';

/**
 * Text a browser or mail client would read as an address with a scheme (javascript:, data:, mailto:, or any
 * "word:rest"), by the same WHATWG parser links are checked with; a name never carries one, even as text.
 */
const hasScheme = (s: string): boolean => URL.canParse(s.trim());

/** Control and direction-override characters would break the line or reorder what a person reads. */
const HIDDEN = /[\p{Cc}\u202A-\u202E\u2066-\u2069]/u;

/** Short, one line, nothing hidden and no scheme: a string a name can hold as written. */
const isPlainName = (s: string): boolean => s.trim() !== '' && s.length <= SHORT && !HIDDEN.test(s) && !hasScheme(s);

/**
 * How a run input ranks as part of the run's name: people (a valid address, shown by name), then amounts with
 * a unit, then short plain text (dates included), then plain numbers. Anything else stays out.
 */
function nameRank(field: FieldSpec | undefined, value: unknown): number | null {
  if (typeof value === 'string') {
    if (isPerson(value)) return 0;
    return field?.type !== 'person' && isPlainName(value) ? 2 : null;
  }
  if (typeof value === 'number') return unitOf(field?.description) ? 1 : 3;
  return null;
}

/** The process title and up to three key inputs, joined by " · ". */
export function runTitle(process: Pick<Process, 'name' | 'body'> & { inputs: Fields }, inputs: Record<string, unknown>, people: readonly PersonLike[]): string {
  const ctx: WordsContext = { people };
  const ranked = Object.entries(inputs)
    .map(([key, value], order) => ({ field: process.inputs[key], value, order, rank: nameRank(process.inputs[key], value) }))
    .filter((x): x is typeof x & { rank: number } => x.rank !== null)
    .sort((a, b) => a.rank - b.rank || a.order - b.order)
    .slice(0, RUN_TITLE_INPUTS);
  return [processTitle(process), ...ranked.map((x) => formatValue(x.field, x.value, ctx).text)].join(TITLE_SEPARATOR);
}

export interface Finding {
  /** The step's title, in words. */
  step: string;
  stepId: string;
  label: string;
  text: string;
  href?: string;
  warning: boolean;
}

/**
 * Booleans and choices say what was decided, so they come first; other short values follow. Long text and
 * structures are left out, unless `longText` lets text in, on one line and cut near that many characters.
 */
function findingRank(field: FieldSpec | undefined, value: unknown, text: string, longText: number | undefined): number | null {
  if (typeof value === 'boolean' || (field?.oneOf && typeof value !== 'object')) return 0;
  if (typeof value === 'string' || typeof value === 'number') {
    if (text.length <= SHORT_FINDING && !text.includes('\n')) return 1;
    return longText !== undefined && typeof value === 'string' ? 2 : null;
  }
  return null;
}

/**
 * The outputs of the steps done so far, in the process's step order, booleans and one_of values first. Where two
 * steps found a value under the same label (a review and its second round), each says which step it came from.
 */
export function findings(
  process: Pick<Process, 'steps'>,
  run: { data: { steps: Record<string, Pick<RunData['steps'][string], 'output'> | undefined> } },
  ctx: WordsContext = { people: [] },
  opts: { longText?: number } = {},
): Finding[] {
  const out: (Finding & { rank: number; order: number })[] = [];
  for (const step of process.steps) {
    const output = run.data.steps[step.id]?.output;
    if (!output) continue;
    for (const [key, value] of Object.entries(output)) {
      // A subprocess step's `run` is its child's id; people read the child by its title, in the run's lineage (docs/profile-flow-1.md "7. Lineage and rollup").
      if (step.kind === 'subprocess' && key === 'run') continue;
      const field = step.output?.[key];
      const v = formatValue(field, value, ctx);
      const rank = findingRank(field, value, v.text, opts.longText);
      if (rank === null) continue;
      const text = rank === 2 ? cutAtWord(v.text.replace(/\s+/g, ' ').trim(), opts.longText) : v.text;
      out.push({ step: stepTitle(step), stepId: step.id, label: fieldLabel(key, field), text, ...(v.href ? { href: v.href } : {}), warning: v.warning === true, rank, order: out.length });
    }
  }
  const stepsOf = new Map<string, Set<string>>();
  for (const f of out) stepsOf.set(f.label, (stepsOf.get(f.label) ?? new Set()).add(f.stepId));
  return out.sort((a, b) => a.rank - b.rank || a.order - b.order).map(({ rank: _r, order: _o, ...f }) => (stepsOf.get(f.label)!.size > 1 ? { ...f, label: `${f.label} (${f.step})` } : f));
}
