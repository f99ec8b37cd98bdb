/**
 * Who the client is, when a reverse proxy stands between: by default the
 * socket's peer, and X-Forwarded-For is ignored (anybody can write it). With
 * WORKBOARD_TRUST_PROXY (comma-separated addresses, or `loopback`), a request
 * whose peer is one of those proxies is from the last address X-Forwarded-For
 * names that is not itself a trusted proxy: the one the proxy appended, not
 * what the client wrote before it. Pure.
 */

/** The proxies whose X-Forwarded-For is believed; null when none is. */
export type TrustedProxies = ReadonlySet<string> | null;

const LOOPBACK = ['127.0.0.1', '::1', '::ffff:127.0.0.1'];

export function trustedProxies(env: NodeJS.ProcessEnv = process.env): TrustedProxies {
  const raw = env.WORKBOARD_TRUST_PROXY?.trim();
  if (!raw) return null;
  return new Set(
    raw
      .split(',')
      .map((a) => a.trim())
      .filter(Boolean)
      .flatMap((a) => (a === 'loopback' ? LOOPBACK : [a])),
  );
}

export function clientAddress(peer: string, forwardedFor: string | string[] | undefined, trusted: TrustedProxies): string {
  if (trusted === null || !trusted.has(peer)) return peer;
  const hops = [forwardedFor ?? []]
    .flat()
    .join(',')
    .split(',')
    .map((a) => a.trim())
    .filter(Boolean);
  for (let i = hops.length - 1; i >= 0; i--) if (!trusted.has(hops[i]!)) return hops[i]!;
  return peer;
}
