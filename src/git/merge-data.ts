/**
 * A three-way merge of YAML data (WORK.md's frontmatter): what each side
 * changed since the base is kept, so identities added on two clones both
 * survive. Maps merge key by key; lists of records merge by their identity
 * (`email`, `id` or `name`), lists of plain values as sets; where both sides
 * changed one value differently, `prefer` decides. The result does not depend
 * on which side is "ours" when `prefer` names the same side either way round.
 * Pure.
 */
import { isDeepStrictEqual } from 'node:util';

type Data = unknown;

const isMap = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const same = (a: unknown, b: unknown): boolean => isDeepStrictEqual(a, b);
const ID_KEYS = ['email', 'id', 'name'] as const;

/** The key a list's records are known by, when every record on every side has a distinct one. */
function recordKey(...lists: unknown[][]): string | null {
  for (const k of ID_KEYS) {
    const ok = lists.every((l) => l.every((v) => isMap(v) && typeof v[k] === 'string') && new Set(l.map((v) => (v as Record<string, string>)[k])).size === l.length);
    if (ok) return k;
  }
  return null;
}

/** `a` when prefer is 'a': the two sides in the order of preference. */
function ordered<T>(ours: T, theirs: T, prefer: 'ours' | 'theirs'): [T, T] {
  return prefer === 'ours' ? [ours, theirs] : [theirs, ours];
}

function mergeList(base: unknown[], ours: unknown[], theirs: unknown[], prefer: 'ours' | 'theirs'): unknown[] {
  const [first, second] = ordered(ours, theirs, prefer);
  const key = recordKey(base, ours, theirs);
  const id = (v: unknown): string => (key ? String((v as Record<string, unknown>)[key]) : JSON.stringify(v));
  const index = (l: unknown[]) => new Map(l.map((v) => [id(v), v]));
  const [b, f, s] = [index(base), index(first), index(second)];
  const out: unknown[] = [];
  for (const k of [...f.keys(), ...[...s.keys()].filter((k) => !f.has(k))]) {
    const inBase = b.has(k);
    // Gone from a side that had it at the base: removed there, unless the other side changed it since.
    if (inBase && (!f.has(k) || !s.has(k))) {
      const kept = f.get(k) ?? s.get(k);
      if (same(kept, b.get(k))) continue;
    }
    const merged = key
      ? mergeValue(
          b.get(k),
          ours.find((v) => id(v) === k),
          theirs.find((v) => id(v) === k),
          prefer,
        )
      : (f.get(k) ?? s.get(k));
    if (merged !== undefined) out.push(merged);
  }
  return out;
}

/** Merge one value; undefined stands for "absent". */
export function mergeValue(base: Data, ours: Data, theirs: Data, prefer: 'ours' | 'theirs'): Data {
  if (same(ours, theirs)) return ours;
  if (same(base, ours)) return theirs;
  if (same(base, theirs)) return ours;
  if (isMap(ours) && isMap(theirs)) {
    const b = isMap(base) ? base : {};
    const [first, second] = ordered(ours, theirs, prefer);
    const out: Record<string, unknown> = {};
    for (const k of [...Object.keys(first), ...Object.keys(second).filter((k) => !(k in first))]) {
      const v = mergeValue(b[k], ours[k], theirs[k], prefer);
      if (v !== undefined) out[k] = v;
    }
    return out;
  }
  if (Array.isArray(ours) && Array.isArray(theirs)) return mergeList(Array.isArray(base) ? base : [], ours, theirs, prefer);
  return prefer === 'ours' ? ours : theirs;
}
