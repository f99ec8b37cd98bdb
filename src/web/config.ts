/**
 * How the web app is reached, from the environment: `WORKBOARD_PUBLIC_URL`
 * is the address people use (set it behind a reverse proxy, e.g.
 * `https://work.example.com`). With it, sign-in links point there, the
 * `Origin` of every form post must be it, and over https the session cookie
 * is `Secure` (as `__Host-wb_session`). Without it, the app is served as
 * plain http on the address `serve --http` binds, and the origin must be the
 * request's own `Host`.
 */
export const DEFAULT_BASE_URL = 'http://127.0.0.1:7420';

export interface WebConfig {
  /** The public origin (`https://host[:port]`), or null to use the request's Host. */
  publicOrigin: string | null;
  secure: boolean;
}

export function webConfig(env: NodeJS.ProcessEnv = process.env): WebConfig {
  const raw = env.WORKBOARD_PUBLIC_URL?.trim();
  if (!raw) return { publicOrigin: null, secure: false };
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    throw new Error(`WORKBOARD_PUBLIC_URL is not a URL: "${raw}"`);
  }
  if (u.protocol !== 'https:' && u.protocol !== 'http:') throw new Error(`WORKBOARD_PUBLIC_URL must be http or https, got "${raw}"`);
  return { publicOrigin: u.origin, secure: u.protocol === 'https:' };
}

/** Where a login link points: --base-url, else WORKBOARD_PUBLIC_URL, else the default serve address. */
export function baseUrlFor(explicit: string | undefined, env: NodeJS.ProcessEnv = process.env): string {
  return explicit ?? webConfig(env).publicOrigin ?? DEFAULT_BASE_URL;
}
