/**
 * A value as a person reads it, from its field's declaration: amounts with
 * their unit, Yes/No, people by name, times in words, lists joined, web
 * addresses as links. Pure: people and the time zone are given.
 */
import type { FieldSpec } from '../process/model.js';
import { isDate, isDateTime, isPerson } from '../process/values.js';
import { fieldLabel } from './titles.js';
import { humanize } from './humanize.js';
import { linkHref, webHref } from './links.js';
import { personName, type PersonLike } from './people.js';
import { dateWords, exactTime } from './time.js';

export interface WordsContext {
  people: readonly PersonLike[];
  /** The IANA zone times are shown in ("Europe/Berlin"); UTC when absent. */
  timeZone?: string;
}

export interface ValueText {
  text: string;
  href?: string;
  /** The value reads as a warning: a false boolean or a "no". */
  warning?: boolean;
}

const CURRENCIES: ReadonlySet<string> = new Set(Intl.supportedValuesOf('currency'));

/** Units a description may name after a final "in" or in brackets; a percent is shown as a sign. */
const UNITS = new Set([
  'seconds',
  'minutes',
  'hours',
  'days',
  'weeks',
  'months',
  'years',
  'nights',
  'km',
  'm',
  'cm',
  'mm',
  'kg',
  'g',
  't',
  'l',
  'ml',
  'kb',
  'mb',
  'gb',
  'tb',
  'kwh',
  'people',
  'pages',
  'items',
  'units',
]);
const PERCENT = new Set(['percent', '%']);

/**
 * The unit a description gives a number: a currency code ("Amount claimed in EUR"), or the word after a final
 * "in" or inside brackets ("Distance in km", "Duration (days)").
 */
export function unitOf(description: string | undefined): { unit: string; currency: boolean } | null {
  if (!description) return null;
  const code = description.match(/\b[A-Z]{3}\b/g)?.find((c) => CURRENCIES.has(c));
  if (code) return { unit: code, currency: true };
  const m = /\bin\s+([A-Za-z%]+)\s*\.?\s*$/.exec(description) ?? /\(([A-Za-z%]+)\)/.exec(description);
  const unit = m?.[1];
  return unit && (UNITS.has(unit.toLowerCase()) || PERCENT.has(unit.toLowerCase())) ? { unit, currency: false } : null;
}

/**
 * `x` (finite, from 0 to 1e21) with exactly `places` decimals, rounded half
 * away from zero on its shortest decimal form, as Intl rounds ("1.005" to
 * 2 places is "1.01", where toFixed's exact binary value gives "1.00").
 */
function fixed(x: number, places: number): { whole: string; fraction: string } {
  const [, int = '0', decimals = '', exponent = '0'] = /^(\d+)(?:\.(\d+))?(?:e([+-]\d+))?$/.exec(String(x)) ?? [];
  let digits = `${int}${decimals}`;
  let point = int.length + Number(exponent);
  if (point < 0) [digits, point] = [`${'0'.repeat(-point)}${digits}`, 0];
  const keep = point + places;
  if (digits.length <= keep) digits = digits.padEnd(keep, '0');
  else {
    const kept = [...digits.slice(0, keep)].map(Number);
    if ((digits[keep] ?? '0') >= '5') {
      let i = kept.length - 1;
      while (i >= 0 && kept[i] === 9) kept[i--] = 0;
      if (i >= 0) kept[i] = (kept[i] ?? 0) + 1;
      else {
        kept.unshift(1);
        point += 1;
      }
    }
    digits = kept.join('');
  }
  return { whole: digits.slice(0, point).replace(/^0+(?=\d)/, '') || '0', fraction: digits.slice(point) };
}

/**
 * A number as en-US writes it: thousands grouped with commas, `decimals`
 * places, else at most six with trailing zeros dropped ("1,234.5"). By hand:
 * the first Intl.NumberFormat a process builds loads ICU's data, 20 ms of
 * every CLI call that shows an amount. Past 1e21, Intl writes it.
 */
export function grouped(n: number, decimals?: number): string {
  if (!Number.isFinite(n) || Math.abs(n) >= 1e21) return n.toLocaleString('en-US', { maximumFractionDigits: decimals ?? 6, minimumFractionDigits: decimals ?? 0 });
  const { whole, fraction } = fixed(Math.abs(n), decimals ?? 6);
  const shown = decimals === undefined ? fraction.replace(/0+$/, '') : fraction;
  return `${n < 0 || Object.is(n, -0) ? '-' : ''}${whole.replace(/\B(?=(\d{3})+$)/g, ',')}${shown === '' ? '' : `.${shown}`}`;
}

function numberText(n: number, description: string | undefined): string {
  const unit = unitOf(description);
  if (!unit) return grouped(n);
  if (unit.currency) return `${grouped(n, 2)} ${unit.unit}`;
  return PERCENT.has(unit.unit.toLowerCase()) ? `${grouped(n)}%` : `${grouped(n)} ${unit.unit}`;
}

/** A "no" written as text (a one_of answer, a yes/no string) reads as a warning like a false boolean. */
const isNo = (s: string): boolean => /^no$/i.test(s.trim());

/** A one_of value written as an identifier ("needs_review") reads as words; free text is left as written. */
const choiceText = (s: string): string => (/^[a-z][a-zA-Z0-9]*([_-][a-zA-Z0-9]+)*$/.test(s) ? humanize(s) : s);

function stringValue(field: FieldSpec | undefined, s: string, ctx: WordsContext): ValueText {
  if (field?.type === 'person' || isPerson(s)) {
    const name = personName(ctx.people, s);
    return name === s ? { text: s, ...hrefOf(`mailto:${s}`) } : { text: name };
  }
  if (isDateTime(s)) return { text: exactTime(s, ctx.timeZone ?? 'UTC') };
  if (isDate(s)) return { text: dateWords(s) };
  const href = webHref(s);
  if (href) return { text: s.trim(), href };
  const text = field?.oneOf ? choiceText(s) : s;
  return isNo(s) ? { text, warning: true } : { text };
}

const hrefOf = (ref: string): { href?: string } => {
  const href = linkHref(ref);
  return href ? { href } : {};
};

/** The value as text (and a link, and whether it warns), read through its field's declaration when there is one. */
export function formatValue(field: FieldSpec | undefined, value: unknown, ctx: WordsContext): ValueText {
  if (value === null || value === undefined) return { text: '—' };
  if (typeof value === 'boolean') return value ? { text: 'Yes' } : { text: 'No', warning: true };
  if (typeof value === 'number') return { text: numberText(value, field?.description) };
  if (typeof value === 'string') return stringValue(field, value, ctx);
  if (Array.isArray(value)) {
    const items = value.map((v) => formatValue(field?.items, v, ctx));
    const one = items.length === 1 ? items[0]! : null;
    return {
      text: items.map((i) => i.text).join(', '),
      ...(one?.href ? { href: one.href } : {}),
      ...(items.some((i) => i.warning) ? { warning: true } : {}),
    };
  }
  if (typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).map(([k, v]) => ({ k, t: formatValue(undefined, v, ctx) }));
    return {
      text: entries.map(({ k, t }) => `${fieldLabel(k)}: ${t.text}`).join('; '),
      ...(entries.some(({ t }) => t.warning) ? { warning: true } : {}),
    };
  }
  // eslint-disable-next-line @typescript-eslint/no-base-to-string -- only a bigint, symbol or function is left, and each has its own text
  return { text: String(value) };
}
