/** Keyset paging for every list a tool returns: items in key order; the cursor is the last key returned. */
import { ToolError } from '../protocol/errors.js';

export interface Paged<T> {
  items: T[];
  nextCursor: string | null;
}

/** The key a cursor this server returned stands for. */
function keyOf(cursor: string): string {
  try {
    return Buffer.from(cursor, 'base64url').toString('utf8');
  } catch {
    throw new ToolError('invalid', 'the cursor is not one this server returned', ['cursor: unknown']);
  }
}

function cursorAfter<T>(slice: T[], more: boolean, key: (t: T) => string): string | null {
  return more && slice.length > 0 ? Buffer.from(key(slice[slice.length - 1]!)).toString('base64url') : null;
}

/** A page of `items`, which are sorted by key already (descending: largest first). */
export function page<T>(items: T[], key: (t: T) => string, limit: number, cursor?: string, descending = false): Paged<T> {
  let start = 0;
  if (cursor !== undefined) {
    const after = keyOf(cursor);
    start = items.findIndex((i) => (descending ? key(i) < after : key(i) > after));
    if (start < 0) start = items.length;
  }
  const slice = items.slice(start, start + limit);
  return { items: slice, nextCursor: cursorAfter(slice, start + limit < items.length, key) };
}

/**
 * The same page of items in no order, smallest keys first: only the page is
 * kept and sorted, not all of them (get_work walks every open run for a page
 * of 20). Keys are unique.
 */
export function pageUnsorted<T extends { key: string }>(items: Iterable<T>, limit: number, cursor?: string): Paged<T> {
  const after = cursor === undefined ? null : keyOf(cursor);
  // The `limit + 1` smallest keys past the cursor, kept sorted: one more than the page says whether more follow.
  const keep: T[] = [];
  for (const item of items) {
    if (after !== null && item.key <= after) continue;
    if (keep.length > limit && item.key >= keep[keep.length - 1]!.key) continue;
    let lo = 0;
    let hi = keep.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (keep[mid]!.key < item.key) lo = mid + 1;
      else hi = mid;
    }
    keep.splice(lo, 0, item);
    if (keep.length > limit + 1) keep.pop();
  }
  const slice = keep.slice(0, limit);
  return { items: slice, nextCursor: cursorAfter(slice, keep.length > limit, (i) => i.key) };
}
