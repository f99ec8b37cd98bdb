/**
 * Where people reach the web app, one rule for the web app, notifications
 * and the CLI: `WORKBOARD_PUBLIC_URL` is the address people use (set it
 * behind a reverse proxy, e.g. `https://work.example.com`); WORK.md's
 * `notifications.baseUrl`, when the board sets one, is where links in
 * messages and sign-in links point; without either, the address a running
 * `serve --http` of the board listens on, else the one it binds by default.
 */
export const DEFAULT_BASE_URL = 'http://127.0.0.1:7420';

/** The origin of `WORKBOARD_PUBLIC_URL` and whether it is https, or null when unset; a value that is no http(s) URL is refused. */
export function publicUrlFromEnv(env: NodeJS.ProcessEnv = process.env): { origin: string; secure: boolean } | null {
  const raw = env.WORKBOARD_PUBLIC_URL?.trim();
  if (!raw) return null;
  if (!URL.canParse(raw)) throw new Error(`WORKBOARD_PUBLIC_URL is not a URL: "${raw}"`);
  const u = new URL(raw);
  if (u.protocol !== 'https:' && u.protocol !== 'http:') throw new Error(`WORKBOARD_PUBLIC_URL must be http or https, got "${raw}"`);
  return { origin: u.origin, secure: u.protocol === 'https:' };
}

/**
 * Where a link for people to a board points: `explicit` (e.g. --base-url), else WORK.md's
 * `notifications.baseUrl`, else WORKBOARD_PUBLIC_URL, else `served` (where its serve listens now),
 * else the default serve address.
 */
export function boardBaseUrl(manifest: { notifications: { baseUrl: string | null } }, opts: { explicit?: string | undefined; served?: string | null; env?: NodeJS.ProcessEnv } = {}): string {
  return opts.explicit ?? manifest.notifications.baseUrl ?? publicUrlFromEnv(opts.env ?? process.env)?.origin ?? opts.served ?? DEFAULT_BASE_URL;
}
