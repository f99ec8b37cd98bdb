/**
 * How many live-update streams may be open: a few tabs per session, a few
 * more per person (several browsers), and a total well below the server's
 * 256 sockets, so streams never take the ones MCP calls and sign-in need.
 * Past a cap the oldest stream goes: a forgotten tab gives way to the one
 * just opened. Pure.
 */
export const MAX_STREAMS_PER_SESSION = 4;
export const MAX_STREAMS_PER_PERSON = 8;
export const MAX_STREAMS = 64;

export interface Holder {
  /** Null for a bearer token, which has no session: only the person's and the total cap apply. */
  session: string | null;
  person: string;
}

/** The open streams (oldest first) to close so that one more, of `next`, fits every cap. */
export function toClose<T extends Holder>(open: readonly T[], next: Holder): T[] {
  const going = new Set<T>();
  const trim = (mine: (s: T) => boolean, cap: number) => {
    const kept = open.filter((s) => !going.has(s) && mine(s));
    for (const s of kept.slice(0, Math.max(0, kept.length - cap + 1))) going.add(s);
  };
  if (next.session !== null) trim((s) => s.session === next.session, MAX_STREAMS_PER_SESSION);
  trim((s) => s.person === next.person, MAX_STREAMS_PER_PERSON);
  trim(() => true, MAX_STREAMS);
  return open.filter((s) => going.has(s));
}
