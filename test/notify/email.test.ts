/**
 * Email over real SMTP on loopback (smtp-server), sent by a daemon on a fake
 * clock as `serve` opens one: the right recipients, subject and link (from
 * WORK.md's baseUrl) in both the text and the HTML part; a person who chose
 * none gets nothing; a person removed before delivery gets nothing; a digest
 * person gets one message listing several events after digestMinutes; a test
 * run sends nothing on any channel and is recorded.
 */
import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { editManifest, removePerson } from '../../src/board/people.js';
import { allEntries, type OutboxEntry } from '../../src/notify/outbox.js';
import { cleanupHarnesses, REPO } from '../support/svc-harness.js';
import { until } from '../support/until.js';
import { BASE_URL, CAST, daemonOn, notifyBoard, smtpServer, toApproval, webhookReceiver, type Clocks, type Receiver, type Smtp } from './support.js';

const FAY = 'fay@example.com'; // chose none
const DEE = 'dee@example.com'; // chose a digest
const LEO = 'leo@example.com'; // removed before delivery
const FROM = 'workboard@example.com';

const open: (Receiver | Clocks | Smtp)[] = [];
afterEach(async () => {
  for (const x of open.splice(0).reverse()) await ('daemon' in x ? x.stop() : x.close());
  await cleanupHarnesses();
});

async function setup(finance: string[], extra: Record<string, unknown> = {}, notifyCommand?: string[]) {
  const smtp = await smtpServer();
  open.push(smtp);
  const h = await notifyBoard({
    finance,
    prefs: { [FAY]: 'none', [DEE]: 'digest' },
    notifications: { email: { from: FROM, smtp: { host: '127.0.0.1', port: smtp.port } }, digestMinutes: 5, ...extra },
  });
  if (notifyCommand) {
    await editManifest(h.board, CAST.operator, 'notify.set', (m) => {
      m.notify = { command: process.execPath, args: notifyCommand };
      return 'notify';
    });
  }
  const d = await daemonOn(h);
  open.push(d);
  return { smtp, h, d };
}

const link = (runId: string, wi: string) => `${BASE_URL}/work/${runId}/${wi}`;

describe('email', () => {
  it('reaches the group with the subject and the link in the text and the HTML; the run end reaches its starter', async () => {
    const { smtp, h, d } = await setup([CAST.fin, CAST.bob]);
    const view = await toApproval(h);
    const wi = h.item(view, 'approve');
    await d.plan();
    expect(smtp.mails.map((m) => m.to).sort()).toEqual([[CAST.bob], [CAST.fin]]);
    const [entry] = await allEntries(h.board.state);
    for (const m of smtp.mails) {
      expect(m.from).toBe(FROM);
      expect(m.subject).toBe(entry!.subject);
      // The run by its title and key inputs, the step by its first sentence, cut at a word.
      expect(m.subject).toBe('Claim review · ann@example.com · 120: approve the payout when the check found the claim…');
      const text = m.text.replace(/\r\n/g, '\n');
      expect(text).toContain('Claimant: ann@example.com · Amount: 120\n');
      expect(text).toContain('What was found:\n- Within policy: Yes\n- Risk: Low\n- Notes: Fine.\n');
      expect(text).toMatch(/\nDue \w{3} \d{1,2} \w{3} \d{4}, \d\d:\d\d UTC\.\n/);
      expect(m.text).toContain(link(view.run.id, wi.id));
      expect(m.html).toContain(`href="${link(view.run.id, wi.id)}"`);
      // Signed with the board's title, not its id (issue 42, slip 5).
      expect(text).toContain('\n— workboard (Service test board)\n');
      expect(text).not.toContain('(svc-board)');
    }

    await h.decide(view, 'approve', 'approved', CAST.fin);
    await d.plan();
    expect(smtp.mails).toHaveLength(3);
    const end = smtp.mails[2]!;
    expect(end.to).toEqual([CAST.ann]);
    expect(end.subject).toBe('Claim review · ann@example.com · 120: your run ended: paid');
    expect(end.text).toContain(`${BASE_URL}/runs/${view.run.id}`);
    expect(end.html).toContain(`${BASE_URL}/runs/${view.run.id}`);
  });

  it('a person who chose none gets nothing; a person removed before delivery gets nothing (skipped)', async () => {
    const { smtp, h, d } = await setup([CAST.fin, FAY, LEO]);
    await toApproval(h);
    // The notification is staged with the approval; Leo leaves before the daemon delivers it.
    await removePerson(h.board, CAST.operator, LEO);
    await d.plan();
    expect(smtp.mails.map((m) => m.to)).toEqual([[CAST.fin]]);
    const [entry] = await allEntries(h.board.state);
    expect(entry!.recipients.sort()).toEqual([CAST.fin, FAY, LEO].sort());
    expect(entry!.deliveries![`email:${FAY}`]).toMatchObject({ skipped: expect.any(String) });
    expect(entry!.deliveries![`email:${LEO}`]).toMatchObject({ skipped: expect.any(String) });
    expect(entry!.deliveries![`email:${CAST.fin}`]).toMatchObject({ doneAt: expect.any(String) });
  });

  it('a person removed, or who chose none, after a failed first attempt gets nothing on the retry', async () => {
    const { smtp, h, d } = await setup([CAST.fin, LEO, CAST.bob]);
    smtp.refuse = (to) => to !== CAST.fin; // the first attempt to Leo and to Bob fails
    await toApproval(h);
    await d.plan();
    const tried = (e: OutboxEntry | undefined, who: string) => e?.deliveries?.[`email:${who}`];
    const [first] = await allEntries(h.board.state);
    expect(tried(first, CAST.fin)).toMatchObject({ attempts: 1, doneAt: expect.any(String) });
    for (const who of [LEO, CAST.bob]) expect(tried(first, who)).toMatchObject({ attempts: 1, nextAt: expect.any(String), lastError: expect.any(String) });
    // Before the retry: Leo leaves the board, Bob chooses no notifications.
    await removePerson(h.board, CAST.operator, LEO);
    await editManifest(h.board, CAST.operator, 'notifications.set', (m) => {
      (m.people as { email: string; notify?: string }[]).find((p) => p.email === CAST.bob)!.notify = 'none';
      return 'bob chose none';
    });
    smtp.refuse = () => false;
    await d.advance(17_000); // past the first backoff (15 s, jitter up to 10%)
    const [after] = await allEntries(h.board.state);
    expect(tried(after, LEO)).toMatchObject({ attempts: 1, skipped: 'no longer on the board' });
    expect(tried(after, CAST.bob)).toMatchObject({ attempts: 1, skipped: 'chose no notifications' });
    expect(smtp.mails.map((m) => m.to)).toEqual([[CAST.fin]]);
  });

  it('a digest person gets one message listing several events after digestMinutes, and nothing before', async () => {
    const { smtp, h, d } = await setup([CAST.fin, DEE]);
    const views = [];
    for (let i = 0; i < 3; i++) {
      views.push(await toApproval(h, 'live', 100 + i));
      await d.plan();
      await d.advance(30_000);
    }
    // Fin is told of each at once; Dee of none yet.
    expect(smtp.mails.filter((m) => m.to.includes(DEE))).toEqual([]);
    expect(smtp.mails.filter((m) => m.to.includes(CAST.fin))).toHaveLength(3);
    await d.advance(5 * 60_000);
    // The digest goes out on its own schedule: wait until all three are recorded as in it.
    await until(async () => ((await allEntries(h.board.state)).every((e) => e.deliveries?.[`digest:${DEE}`]?.doneAt) ? true : undefined), 10_000);
    const digests = smtp.mails.filter((m) => m.to.includes(DEE));
    expect(digests).toHaveLength(1);
    const digest = digests[0]!;
    expect(digest.to).toEqual([DEE]);
    for (const v of views) {
      const l = link(v.run.id, h.item(v, 'approve').id);
      expect(digest.text).toContain(l);
      expect(digest.html).toContain(l);
    }
    // Sent once: a later interval with nothing new sends no other digest.
    await d.advance(30 * 60_000);
    expect(smtp.mails.filter((m) => m.to.includes(DEE))).toHaveLength(1);
  });
});

describe('after a send-back', () => {
  it("the approval's email names each review's finding by its step, once, with the agent's notes and the claimant's answer", async () => {
    const smtp = await smtpServer();
    open.push(smtp);
    const h = await notifyBoard({
      finance: [CAST.fin],
      notifications: { email: { from: FROM, smtp: { host: '127.0.0.1', port: smtp.port } } },
      spec: { processes: [{ folder: path.join(REPO, 'examples/board/processes/expense-approval'), roles: { 'finance-approver': 'finance' } }] },
    });
    const d = await daemonOn(h);
    open.push(d);
    const run = await h.start('expense-approval', { claimant: CAST.bob, amount: 184.5, receiptUrl: 'https://receipts.example.com/r/184' }, CAST.ann);
    const runId: string = run.run.id;
    const evidence = [{ kind: 'link', ref: 'https://policy.example.com/travel' }];
    const first = await h.claim(runId, 'review_claim');
    await h.ok(
      'submit',
      {
        token: first.token,
        output: { withinPolicy: false, notes: 'The hotel bill shows two nights; the trip was one.' },
        evidence,
        summary: 'Reviewed.',
        next: 'ask_claimant',
        reason: 'A night too many.',
      },
      CAST.agent,
    );
    await h.decide(await h.view(runId), 'ask_claimant', 'completed', CAST.bob, { output: { answer: 'The second night was a late checkout; the receipt is attached again.' } });
    const again = await h.claim(runId, 'review_claim_again');
    await h.ok('submit', { token: again.token, output: { withinPolicy: true, notes: 'One night and a late checkout: within policy.' }, summary: 'Reviewed again.' }, CAST.agent);
    await d.plan();
    const mail = smtp.mails.find((m) => m.to.includes(CAST.fin) && m.subject.includes('approve the payout'));
    expect(mail, JSON.stringify(smtp.mails.map((m) => m.subject))).toBeDefined();
    const text = mail!.text.replace(/\r\n/g, '\n');
    const found = text.split('What was found:\n')[1]!.split('\n\n')[0]!.split('\n');
    process.stdout.write(`the approval's email after the answer, what was found:\n${found.join('\n')}\n`);
    // Each line once; the finding both reviews made is named by the step that made it.
    expect(new Set(found).size).toBe(found.length);
    const labels = found.map((l) => l.replace(/^[-⚠] /, '').split(': ')[0]);
    expect(new Set(labels).size).toBe(labels.length);
    expect(labels.filter((l) => l!.startsWith('Within policy'))).toEqual([
      'Within policy (Read the receipt and compare the claim with the travel policy)',
      "Within policy (Review the claim once more with the claimant's answer)",
    ]);
    // The agent's notes and the claimant's answer are there, as on the page.
    for (const said of [
      'The hotel bill shows two nights; the trip was one.',
      'The second night was a late checkout; the receipt is attached again.',
      'One night and a late checkout: within policy.',
    ]) {
      expect(found.filter((l) => l.includes(said))).toHaveLength(1);
    }
  });
});

describe('test runs', () => {
  it('send nothing on any channel, yet are recorded in the outbox', async () => {
    const rx = await webhookReceiver();
    open.push(rx);
    const out = path.join(await fs.mkdtemp(path.join(os.tmpdir(), 'wb-notify-cmd-')), 'called');
    const { smtp, h, d } = await setup([CAST.fin, DEE], { webhook: { url: rx.url } }, ['-e', `require('fs').appendFileSync(${JSON.stringify(out)}, 'x')`]);
    const view = await toApproval(h, 'test');
    await h.decide(view, 'approve', 'approved', CAST.fin);
    await d.plan();
    await d.advance(10 * 60_000); // past the digest interval too
    expect(smtp.mails).toEqual([]);
    expect(rx.hooks).toEqual([]);
    expect(await fs.readFile(out, 'utf8').catch(() => '')).toBe('');
    const entries = (await allEntries(h.board.state)).filter((e) => e.runId === view.run.id);
    expect(entries.map((e) => e.kind).sort()).toEqual(['run_ended', 'work_item']);
    for (const e of entries) {
      expect(e.mode).toBe('test');
      expect(Object.keys(e.deliveries ?? {}).length).toBeGreaterThan(0);
      for (const dl of Object.values(e.deliveries!)) expect(dl).toEqual({ attempts: 0, skipped: 'test run' });
    }
    // The same channels do carry a live run's notification.
    await toApproval(h, 'live');
    await d.plan();
    expect(rx.hooks).toHaveLength(1);
    expect(smtp.mails.map((m) => m.to)).toEqual([[CAST.fin]]);
    expect(await fs.readFile(out, 'utf8')).toBe('x');
    await fs.rm(path.dirname(out), { recursive: true, force: true });
  });
});
