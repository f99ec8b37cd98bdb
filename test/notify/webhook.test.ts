/**
 * The webhook, end to end on loopback: a daemon on a fake clock (as `serve`
 * opens one) posts to a real HTTP receiver; the signature verifies with the
 * secret from the environment or from a file under `.work/`; a 500 is tried
 * again after its backoff with the same id; after the board's maxAttempts
 * the notification is parked, shown by `workboard notifications --failed`
 * and `doctor`, and `notifications retry` sends it again.
 */
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt, workboard } from '../support/cli-run.js';
import { cleanupHarnesses } from '../support/svc-harness.js';
import { editManifest } from '../../src/board/people.js';
import { BASE_URL, CAST, daemonOn, expectedSignature, notifyBoard, toApproval, webhookReceiver, type Clocks, type Receiver } from './support.js';

const SECRET_ENV = 'WB_NOTIFY_TEST_SECRET';
const SECRET = 'a shared secret for the webhook test';
const open: (Receiver | Clocks)[] = [];
beforeAll(() => ensureBuilt(), 120_000);
afterEach(async () => {
  for (const x of open.splice(0).reverse()) await ('daemon' in x ? x.stop() : x.close());
  delete process.env[SECRET_ENV];
  await cleanupHarnesses();
});

async function setup(webhook: Record<string, unknown>, extra: Record<string, unknown> = {}) {
  const rx = await webhookReceiver();
  open.push(rx);
  const h = await notifyBoard({ notifications: { webhook: { url: rx.url, ...webhook }, ...extra } });
  const d = await daemonOn(h);
  open.push(d);
  return { rx, h, d };
}

describe('the webhook', () => {
  it('posts a signed body with id, at, text and link (secret from the environment)', async () => {
    process.env[SECRET_ENV] = SECRET;
    const { rx, h, d } = await setup({ secretEnv: SECRET_ENV });
    const view = await toApproval(h);
    const wi = h.item(view, 'approve');
    await d.plan();
    await rx.received(1);
    const [hook] = rx.hooks;
    expect(hook!.signature).toBe(expectedSignature(SECRET, hook!.raw));
    expect(hook!.body).toMatchObject({ id: hook!.id, kind: 'work_item', run: { id: view.run.id }, step: { id: 'approve' }, recipients: [{ email: CAST.fin }] });
    expect(hook!.id).toMatch(/^n-/);
    expect(Date.parse(hook!.body.at)).toBe(h.clock); // the transition's moment
    const link = `${BASE_URL}/work/${view.run.id}/${wi.id}`;
    expect(hook!.body.link).toBe(link);
    expect(hook!.body.text).toContain(link);
    expect(hook!.body.text).toContain('approve');
  });

  it("holds only what a receiver needs, in words beside the ids: never the outbox's delivery state", async () => {
    const { rx, h, d } = await setup({});
    await editManifest(h.board, CAST.operator, 'people.named', (m) => {
      for (const p of m.people as { email: string; name?: string }[]) if (p.email === CAST.fin) p.name = 'Fin Nordqvist';
      for (const p of m.people as { email: string; name?: string }[]) if (p.email === CAST.ann) p.name = 'Ann Lind';
      (m.notifications as Record<string, unknown>).timeZone = 'Europe/Berlin';
      return 'names';
    });
    const view = await toApproval(h);
    const wi = h.item(view, 'approve');
    await d.plan();
    await rx.received(1);
    const body = rx.hooks[0]!.body;
    expect(Object.keys(body)).toEqual(['kind', 'id', 'at', 'board', 'run', 'step', 'workItem', 'due', 'recipients', 'subject', 'text', 'details', 'link']);
    expect(body.run).toEqual({ id: view.run.id, title: 'Claim review · Ann Lind · 120', process: 'claim-review' });
    expect(body.step).toEqual({ id: 'approve', title: 'Approve the payout when the check found the claim within policy' });
    expect(body.workItem).toBe(wi.id);
    expect(body.due).toBe(wi.due);
    expect(body.recipients).toEqual([{ email: CAST.fin, name: 'Fin Nordqvist' }]);
    expect(body.subject).toBe('Claim review · Ann Lind · 120: approve the payout when the check found the claim…');
    expect(body.details).toContain('What was found:\n- Within policy: Yes\n- Risk: Low\n- Notes: Fine.');
    expect(body.details).toMatch(/Due \w{3} \d{1,2} \w{3} \d{4}, \d\d:\d\d CES?T\./);
    expect(rx.hooks[0]!.raw).not.toMatch(/deliveries|attempts|nextAt/);
  });

  it('signs with the secret from a file under .work/, and a wrong secret does not verify', async () => {
    const { rx, h, d } = await setup({ secretFile: '.work/webhook.secret' });
    await fs.writeFile(path.join(h.root, '.work/webhook.secret'), `${SECRET}-from-a-file\n`);
    await toApproval(h);
    await d.plan();
    await rx.received(1);
    const hook = rx.hooks[0]!;
    expect(hook.signature).toBe(expectedSignature(`${SECRET}-from-a-file`, hook.raw));
    expect(hook.signature).not.toBe(expectedSignature(SECRET, hook.raw));
  });

  it('a 500 is tried again after the backoff with the same id, then succeeds once', async () => {
    process.env[SECRET_ENV] = SECRET;
    const { rx, h, d } = await setup({ secretEnv: SECRET_ENV });
    rx.answer = () => (rx.hooks.length === 1 ? 500 : 200);
    await toApproval(h);
    await d.plan();
    await rx.received(1);
    // Not before the first backoff (15 s, jitter up to 10%): nothing more yet.
    await d.advance(14_000);
    expect(rx.hooks).toHaveLength(1);
    await d.advance(3_000);
    await rx.received(2);
    expect(rx.hooks.map((x) => x.status)).toEqual([500, 200]);
    expect(rx.hooks[1]!.id).toBe(rx.hooks[0]!.id);
    expect(rx.hooks[1]!.body.id).toBe(rx.hooks[0]!.id);
    expect(rx.hooks[1]!.signature).toBe(expectedSignature(SECRET, rx.hooks[1]!.raw));
    // Delivered: an hour later nothing is sent again.
    await d.advance(3_600_000);
    expect(rx.hooks).toHaveLength(2);
    const list = await workboard(['--board', h.root, '--json', 'notifications'], { cwd: h.root });
    expect(list.code).toBe(0);
    const items = JSON.parse(list.stdout).data.items as { id: string; status: string; deliveries: Record<string, { attempts: number; doneAt?: string }> }[];
    expect(items.map((i) => [i.id, i.status])).toEqual([[rx.hooks[0]!.id, 'sent']]);
    expect(items[0]!.deliveries.webhook).toMatchObject({ attempts: 2 });
  });

  it('parks after maxAttempts failures: shown by notifications --failed and doctor; retry sends it again', async () => {
    const { rx, h, d } = await setup({ secretEnv: SECRET_ENV }, { maxAttempts: 3 });
    rx.answer = () => 500;
    await toApproval(h);
    await d.plan();
    await rx.received(1);
    await d.advance(17_000); // after the 1st failure: 15 s (+ up to 10%)
    await rx.received(2);
    await d.advance(34_000); // after the 2nd: 30 s (+ up to 10%)
    await rx.received(3);
    // A third try would come a minute on: an hour later there has been none (the approval is due in 2 days, so nothing else is told).
    await d.advance(3_600_000);
    expect(rx.hooks).toHaveLength(3);
    const id = rx.hooks[0]!.id!;
    expect(new Set(rx.hooks.map((x) => x.id))).toEqual(new Set([id]));

    const failed = await workboard(['--board', h.root, 'notifications', '--failed'], { cwd: h.root });
    expect(failed.code).toBe(0);
    expect(failed.stdout).toContain(id);
    expect(failed.stdout).toContain('parked');
    expect(failed.stdout).toContain('500');
    const doctor = await workboard(['--board', h.root, '--json', 'doctor'], { cwd: h.root });
    const findings = (JSON.parse(doctor.stdout).data?.findings ?? JSON.parse(doctor.stdout).error?.findings ?? []) as { kind: string; where: string }[];
    expect(
      findings.filter((f) => f.kind === 'notification').map((f) => f.where),
      doctor.stdout.slice(0, 600),
    ).toEqual([id]);

    rx.answer = () => 200;
    const retry = await workboard(['--board', h.root, 'notifications', 'retry', id], { cwd: h.root });
    expect(retry.code, retry.stderr).toBe(0);
    // The retry is due at the CLI's own time: bring the fake clock there, and let the daemon look.
    await d.advance(Math.max(0, Date.now() - d.clock.now().getTime()) + 1000);
    await d.plan();
    await rx.received(4);
    expect(rx.hooks[3]).toMatchObject({ id, status: 200 });
    const after = await workboard(['--board', h.root, 'notifications', '--failed'], { cwd: h.root });
    expect(after.stdout).not.toContain(id);
    const again = await workboard(['--board', h.root, 'notifications', 'retry', id], { cwd: h.root });
    expect(again.code).not.toBe(0); // nothing parked any more
    expect(again.stderr).toContain(id);
  });
});
