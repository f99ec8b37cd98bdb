/**
 * The webhook: a POST of the notification as JSON, signed with HMAC-SHA256
 * over the exact body (`X-Workboard-Signature: sha256=<hex>`), with the
 * notification's id (`X-Workboard-Id`, stable across retries, for
 * de-duplication) and time. Any 2xx answer means delivered.
 */
import { createHmac } from 'node:crypto';
import type { WorkState } from '../../board/state.js';

export function signature(secret: string, body: string): string {
  return `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
}

/**
 * The shared secret, from the named environment variable or the file under
 * `.work/`, as docs/operators.md "Notifications" says (a path elsewhere fails the attempt, naming it).
 */
export async function webhookSecret(cfg: { secretEnv?: string; secretFile?: string }, state: WorkState): Promise<string | null> {
  if (cfg.secretEnv) {
    const v = process.env[cfg.secretEnv];
    if (v) return v;
  }
  if (cfg.secretFile) {
    const v = ((await state.readText(cfg.secretFile)) ?? '').trim();
    if (v) return v;
  }
  return null;
}

/** Post, giving up when `signal` fires. */
export async function postWebhook(url: string, body: string, headers: { id: string; at: string; secret: string | null }, signal: AbortSignal): Promise<void> {
  const res = await fetch(url, {
    method: 'POST',
    body,
    signal,
    headers: {
      'content-type': 'application/json',
      'user-agent': 'workboard',
      'x-workboard-id': headers.id,
      'x-workboard-timestamp': headers.at,
      ...(headers.secret ? { 'x-workboard-signature': signature(headers.secret, body) } : {}),
    },
  }).catch((e: unknown) => {
    throw new Error(`the webhook did not answer: ${e instanceof Error ? e.message : String(e)}`);
  });
  await res.arrayBuffer().catch(() => undefined);
  if (res.status < 200 || res.status > 299) throw new Error(`the webhook answered ${res.status}`);
}
