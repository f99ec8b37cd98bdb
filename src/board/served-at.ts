/**
 * Where this board's `serve --http` really listens, kept in `.work/serve.json`
 * while it runs, so that links for people (sign-in links from `login-link`,
 * emails, the demo's links) point at the server that is there when no public
 * address is configured (docs/operators.md, "Where people's links point").
 * A record whose process is gone is ignored: a link to a server that stopped
 * is no better than the default.
 */
import { SERVED_AT } from './layout.js';
import type { WorkState } from './state.js';

interface Record {
  url: string;
  pid: number;
}

const isAlive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    // EPERM: alive, another user's.
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
};

function parse(text: string | null): Record | null {
  if (text === null) return null;
  try {
    const r = JSON.parse(text) as Partial<Record>;
    return typeof r.url === 'string' && URL.canParse(r.url) && Number.isInteger(r.pid) ? { url: r.url, pid: r.pid! } : null;
  } catch {
    return null;
  }
}

/** Record that this process serves the board's web app at `url` (an origin). */
export async function recordServedAt(state: WorkState, url: string): Promise<void> {
  await state.replace(SERVED_AT, `${JSON.stringify({ url, pid: process.pid })}\n`);
}

/** Forget the record, when it is this process's own. */
export async function clearServedAt(state: WorkState): Promise<void> {
  if (parse(state.readTextNow(SERVED_AT))?.pid === process.pid) await state.remove(SERVED_AT);
}

/** The origin a live `serve --http` of this board listens on, or null when none runs. */
export function servedAt(state: WorkState): string | null {
  const r = parse(state.readTextNow(SERVED_AT));
  return r && isAlive(r.pid) ? r.url : null;
}
