/**
 * What changed in a run's data between two reads, as paths with their values
 * before and after (`steps.review.output.amount`), for the page that says a
 * decision was refused as stale. Pure.
 */
import { canonicalJson } from '../core/hash.js';

export interface DataChange {
  path: string;
  before: string;
  after: string;
}

const show = (v: unknown) => (v === undefined ? '–' : typeof v === 'string' ? v : canonicalJson(v));
const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

export function dataChanges(before: unknown, after: unknown, path = '', max = 50): DataChange[] {
  const out: DataChange[] = [];
  const walk = (a: unknown, b: unknown, p: string) => {
    if (out.length >= max) return;
    if (isObj(a) && isObj(b)) {
      for (const k of new Set([...Object.keys(a), ...Object.keys(b)])) walk(a[k], b[k], p ? `${p}.${k}` : k);
      return;
    }
    if (canonicalJson(a ?? null) !== canonicalJson(b ?? null)) out.push({ path: p || '(all)', before: show(a), after: show(b) });
  };
  walk(before, after, path);
  return out;
}
