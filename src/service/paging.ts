/** Keyset paging for every list a tool returns: items sorted by key; the cursor is the last key returned. */
import { ToolError } from '../protocol/errors.js';

export function page<T>(items: T[], key: (t: T) => string, limit: number, cursor?: string, descending = false): { items: T[]; nextCursor: string | null } {
  let start = 0;
  if (cursor !== undefined) {
    let after: string;
    try {
      after = Buffer.from(cursor, 'base64url').toString('utf8');
    } catch {
      throw new ToolError('invalid', 'the cursor is not one this server returned', ['cursor: unknown']);
    }
    start = items.findIndex((i) => (descending ? key(i) < after : key(i) > after));
    if (start < 0) start = items.length;
  }
  const slice = items.slice(start, start + limit);
  const more = start + limit < items.length;
  return { items: slice, nextCursor: more && slice.length > 0 ? Buffer.from(key(slice[slice.length - 1]!)).toString('base64url') : null };
}
