/**
 * How the web app is served, from the public address (src/core/public-url.ts):
 * with `WORKBOARD_PUBLIC_URL`, the `Origin` of every form post must be it, and
 * over https the session cookie is `Secure` (as `__Host-wb_session`). Without
 * it, the app is served as plain http on the address `serve --http` binds, and
 * the origin must be the request's own `Host`.
 */
import { publicUrlFromEnv } from '../core/public-url.js';

export interface WebConfig {
  /** The public origin (`https://host[:port]`), or null to use the request's Host. */
  publicOrigin: string | null;
  secure: boolean;
}

export function webConfig(env: NodeJS.ProcessEnv = process.env): WebConfig {
  const url = publicUrlFromEnv(env);
  return url ? { publicOrigin: url.origin, secure: url.secure } : { publicOrigin: null, secure: false };
}
