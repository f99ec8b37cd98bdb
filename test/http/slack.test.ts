/**
 * Deciding in Slack, end to end: a real `workboard serve --http` posts an
 * approval to a local server that speaks Slack's Web API, and clicks come
 * back signed exactly as Slack signs them. A wrong secret, a replayed
 * timestamp older than 5 minutes and a body changed after signing are
 * refused and decide nothing; a Slack user declared for nobody is refused
 * and told so; a button on data that changed since answers with the fresh
 * item; two clicks of one button decide once; a rejection needs its note;
 * a decision made on the web updates the message in place; the audit says
 * which decisions came through Slack; with four eyes on, the person who
 * started the run is refused in words and nothing changes.
 */
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { editManifest } from '../../src/board/people.js';
import { ensureBuilt } from '../support/cli-run.js';
import { buttonClick, modalSubmit, postInteraction, type FakeSlack } from '../support/slack-api.js';
import { until } from '../support/until.js';
import { cleanupTmp } from '../support/tmp-board.js';
import { agentDoes, HELPER, PEOPLE, person, rid, runView, type WebBoard } from '../web/web-support.js';
import { approvalPosted as posted, CHANNEL, SECRET, slackBoard, TOKEN, USERS, type SlackBoard } from '../web/slack-support.js';

let sb: SlackBoard;
let wb: WebBoard;
let slack: FakeSlack;
let base: string;

beforeAll(async () => {
  await ensureBuilt();
  sb = await slackBoard();
  wb = sb.wb;
  slack = sb.slack;
  base = wb.base;
}, 180_000);

afterAll(async () => {
  await sb?.stop();
  await cleanupTmp();
});

const approvalPosted = (payee: string) => posted(sb, payee);
const approveStep = async (runId: string) => (await runView(wb, runId)).data.steps.approve;
const auditOf = async (runId: string) =>
  (await fs.readFile(path.join(wb.root, 'runs', runId, 'audit.jsonl'), 'utf8'))
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l));
const updatesOf = (ts: string, from = 0) => slack.calls.slice(from).filter((c) => c.method === 'chat.update' && c.args.ts === ts);

describe('decide in Slack', () => {
  it('posts an approval with Approve, Reject and Open buttons, naming the run and who it is for', async () => {
    const { runId, post } = await approvalPosted('Sam');
    expect(post.token).toBe(TOKEN);
    expect(post.args.channel).toBe(CHANNEL);
    const blocks = post.args.blocks;
    const buttons = blocks.flatMap((b: any) => (b.type === 'actions' ? b.elements : []));
    expect(buttons.map((b: any) => b.text.text)).toEqual(['Approve', 'Reject', 'Open']);
    const item = (await runView(wb, runId)).workItems[0];
    expect(JSON.parse(buttons[0].value)).toEqual({ r: runId, w: item.id, t: 'approve', s: item.snapshot });
    expect(buttons[0].confirm.title.text).toBe('Approve?');
    expect(buttons[2].url).toMatch(new RegExp(`/work/${runId}/${item.id}$`));
    expect(JSON.stringify(blocks)).toContain('Approve the payout when the memo explains it');
    expect(JSON.stringify(blocks)).toContain(`<@${USERS.ana}>, <@${USERS.ben}>`);
  });

  it('refuses a wrong secret, a replayed timestamp older than 5 minutes and a body changed after signing: nothing decided', async () => {
    const { runId, message } = await approvalPosted('Tove');
    const click = buttonClick(USERS.ana, message, 'wb.approve');
    const wrong = await postInteraction(base, click, 'not-the-secret');
    const old = await postInteraction(base, click, SECRET, { timestamp: Math.floor(Date.now() / 1000) - 5 * 60 - 30 });
    const changed = await postInteraction(base, click, SECRET, { body: (b) => b.replace(encodeURIComponent(USERS.ana), encodeURIComponent(USERS.ben)) });
    const unsigned = await fetch(`${base}/slack/interactions`, { method: 'POST', body: 'payload=%7B%7D' });
    expect([wrong.status, old.status, changed.status, unsigned.status]).toEqual([401, 401, 401, 401]);
    expect((await runView(wb, runId)).workItems).toHaveLength(1);
    expect((await approveStep(runId))?.decision).toBeUndefined();
    expect(sb.out()).toContain('slack: a request was refused: the signature does not match');
    expect(sb.out()).toMatch(/slack: a request was refused: signed 3\d\d s from now/);
    expect(sb.out()).not.toContain(SECRET);
    expect(sb.out()).not.toContain(TOKEN);
  });

  it('refuses a Slack user declared for nobody, and tells them so in Slack', async () => {
    const { runId, message } = await approvalPosted('Ulla');
    const from = slack.calls.length;
    const r = await postInteraction(base, buttonClick(USERS.nobody, message, 'wb.approve'), SECRET);
    expect(r.status).toBe(200);
    const told = await slack.next((c) => c.method === 'chat.postEphemeral', from);
    expect(told.args).toMatchObject({ channel: CHANNEL, user: USERS.nobody });
    expect(told.args.text).toContain('not declared on this board');
    expect(told.args.text).toContain(`slack: ${USERS.nobody}`);
    expect((await runView(wb, runId)).workItems).toHaveLength(1);
  });

  it('two clicks of one Approve button decide once, the audit says Slack, and the message shows who approved', async () => {
    const { runId, message } = await approvalPosted('Vera');
    const from = slack.calls.length;
    const click = buttonClick(USERS.ana, message, 'wb.approve');
    const [a, b] = await Promise.all([postInteraction(base, click, SECRET), postInteraction(base, click, SECRET)]);
    expect([a.status, b.status]).toEqual([200, 200]);
    const view = await runView(wb, runId);
    expect(view.run.outcome).toBe('paid');
    const completed = (await auditOf(runId)).filter((l) => l.action === 'step.completed' && l.entity.endsWith('/approve'));
    expect(completed).toHaveLength(1);
    expect(completed[0].actor).toBe(PEOPLE.ana);
    expect(completed[0].input.changes.via).toBe('slack');
    const update = await slack.next((c) => c.method === 'chat.update' && c.args.ts === message.ts && JSON.stringify(c.args.blocks).includes('Approved by Ana Silva in Slack'), from);
    expect(update.args.blocks.flatMap((x: any) => (x.type === 'actions' ? x.elements : [])).map((e: any) => e.text.text)).toEqual(['Open']);
    // No ephemeral "not decided" to either click: the second was the same call, answered the same.
    expect(slack.calls.slice(from).filter((c) => c.method === 'chat.postEphemeral' && c.args.user === USERS.ana)).toEqual([]);
  });

  it('a button on data that changed since answers with the fresh item, and decides nothing', async () => {
    // A split run: the sign-off waits while the agent's fetch, beside it, changes the run data.
    const from = slack.calls.length;
    const start = await wb.service.call('start_run', { process: 'split', inputs: {}, requestId: rid() }, HELPER);
    if (!start.ok) throw new Error(JSON.stringify(start));
    const runId = start.data.run.id;
    const post = await slack.next((c) => c.method === 'chat.postMessage' && JSON.stringify(c.args.blocks ?? '').includes(runId), from);
    const ts = post.answer!.ts;
    const message = { channel: CHANNEL, ts, blocks: post.args.blocks };
    const before = (await runView(wb, runId)).workItems[0].snapshot;
    await agentDoes(wb, runId, 'fetch', { count: 3 });
    const fresh = (await runView(wb, runId)).workItems[0];
    expect(fresh.snapshot).not.toBe(before);
    const clicked = slack.calls.length;
    const r = await postInteraction(base, buttonClick(USERS.ana, message, 'wb.approve'), SECRET);
    expect(r.status).toBe(200);
    const told = await slack.next((c) => c.method === 'chat.postEphemeral' && c.args.user === USERS.ana, clicked);
    expect(told.args.text).toContain('changed since this message was posted');
    // The message now carries the fresh snapshot (updated when the data changed, or at the click) and says what the run found.
    const update = await until(() => updatesOf(ts, from).find((u) => JSON.stringify(u.args.blocks).includes(fresh.snapshot)), 20_000);
    expect(JSON.stringify(update.args.blocks)).toContain('Count: 3');
    expect((await runView(wb, runId)).workItems.map((w: any) => w.id)).toEqual([fresh.id]);
    // The fresh button decides.
    await postInteraction(base, buttonClick(USERS.ana, { ...message, blocks: update.args.blocks }, 'wb.approve'), SECRET);
    await until(async () => ((await runView(wb, runId)).run.state === 'ended' ? true : undefined), 20_000);
  });

  it('Reject asks for a note in a modal, refuses an empty one, and sends the payout back with it', async () => {
    const { runId, message } = await approvalPosted('Wim');
    const from = slack.calls.length;
    expect((await postInteraction(base, buttonClick(USERS.ben, message, 'wb.reject'), SECRET)).status).toBe(200);
    const opened = await slack.next((c) => c.method === 'views.open', from);
    expect(opened.args.trigger_id).toBe(`trigger-${USERS.ben}-1`);
    const view = opened.args.view;
    expect(view.callback_id).toBe('wb.reject');
    const empty = await postInteraction(base, modalSubmit(USERS.ben, view, '   '), SECRET);
    expect(empty.json).toEqual({ response_action: 'errors', errors: { 'wb.note': expect.stringContaining('A note is required') } });
    expect((await runView(wb, runId)).workItems).toHaveLength(1);
    const done = await postInteraction(base, modalSubmit(USERS.ben, view, 'The memo does not say what the payout is for.'), SECRET);
    expect(done.status).toBe(200);
    expect(done.text).toBe('');
    const rejected = (await auditOf(runId)).filter((l) => l.action === 'step.rejected');
    expect(rejected).toHaveLength(1);
    expect(rejected[0].input.changes).toMatchObject({ note: 'The memo does not say what the payout is for.', via: 'slack', to: 'draft' });
    await slack.next((c) => c.method === 'chat.update' && c.args.ts === message.ts && JSON.stringify(c.args.blocks).includes('Rejected by ben@example.com in Slack'), from);
    // The same modal submitted again is the same call: still one rejection.
    await postInteraction(base, modalSubmit(USERS.ben, view, 'The memo does not say what the payout is for.'), SECRET);
    expect((await auditOf(runId)).filter((l) => l.action === 'step.rejected')).toHaveLength(1);
  });

  it('a decision made on the web updates the message in place, and a later click is told it was already decided', async () => {
    const { runId, message } = await approvalPosted('Xena');
    const from = slack.calls.length;
    const item = (await runView(wb, runId)).workItems[0];
    const r = await wb.service.call('decide', { runId, workItemId: item.id, snapshot: item.snapshot, decision: 'approved', requestId: rid() }, person(PEOPLE.ben), 'web');
    expect(r.ok).toBe(true);
    const update = await slack.next((c) => c.method === 'chat.update' && c.args.ts === message.ts, from);
    expect(JSON.stringify(update.args.blocks)).toContain('Approved by ben@example.com,');
    expect(JSON.stringify(update.args.blocks)).not.toContain('in Slack');
    const clicked = slack.calls.length;
    await postInteraction(base, buttonClick(USERS.ana, message, 'wb.approve'), SECRET);
    const told = await slack.next((c) => c.method === 'chat.postEphemeral' && c.args.user === USERS.ana, clicked);
    expect(told.args.text).toContain('already decided');
    expect((await auditOf(runId)).filter((l) => l.action === 'step.completed' && l.entity.endsWith('/approve'))).toHaveLength(1);
  });
});

describe('four eyes in Slack', () => {
  /** Every file of a run's folder, by name, as bytes: what "nothing changed" is checked against. */
  const runFiles = async (runId: string) => {
    const dir = path.join(wb.root, 'runs', runId);
    const out: Record<string, string> = {};
    for (const name of (await fs.readdir(dir)).sort()) out[name] = await fs.readFile(path.join(dir, name), 'utf8');
    return out;
  };

  it('the person who started the run is refused in words, by Approve and by Reject, and nothing changes; another approver decides', async () => {
    await editManifest(wb.board, 'test', 'fourEyes.set', (d) => {
      d.fourEyes = true;
      return 'four eyes';
    });
    try {
      // Ana starts the payout herself; the agent drafts it; the approval goes to Ana and Ben.
      const from = slack.calls.length;
      const start = await wb.service.call('start_run', { process: 'payout', inputs: { payee: 'Yusuf', amount: 120 }, requestId: rid() }, person(PEOPLE.ana));
      if (!start.ok) throw new Error(JSON.stringify(start));
      const runId = start.data.run.id;
      await agentDoes(wb, runId, 'draft', { memo: 'Payout for Yusuf' });
      const post = await slack.next((c) => c.method === 'chat.postMessage' && JSON.stringify(c.args.blocks ?? '').includes(runId), from);
      const message = { channel: CHANNEL, ts: post.answer!.ts, blocks: post.args.blocks };
      const before = await runFiles(runId);

      // Approve, signed as Slack signs it: answered, refused in words, seen by Ana alone.
      const clicked = slack.calls.length;
      expect((await postInteraction(base, buttonClick(USERS.ana, message, 'wb.approve'), SECRET)).status).toBe(200);
      const told = await slack.next((c) => c.method === 'chat.postEphemeral' && c.args.user === USERS.ana, clicked);
      expect(told.args.channel).toBe(CHANNEL);
      expect(told.args.text).toBe(
        'Not decided. Four eyes: you started this run or did one of its earlier steps (or the person you stand in for did), so another approver decides it. Nothing was changed.',
      );
      for (const id of [PEOPLE.ana, runId, (await runView(wb, runId)).workItems[0].id]) expect(told.args.text).not.toContain(id);

      // Reject: the note's modal opens (the item is open and current), and its submission is refused in the modal, in the same words.
      const rejecting = slack.calls.length;
      await postInteraction(base, buttonClick(USERS.ana, message, 'wb.reject'), SECRET);
      const opened = await slack.next((c) => c.method === 'views.open' && c.args.trigger_id?.startsWith(`trigger-${USERS.ana}`), rejecting);
      const modal = await postInteraction(base, modalSubmit(USERS.ana, opened.args.view, 'I would rather not pay this.', 'V0FOUREYES'), SECRET);
      expect(modal.json).toEqual({ response_action: 'errors', errors: { 'wb.note': expect.stringMatching(/^Not decided\. Four eyes: you started this run/) } });

      // Nothing changed: the run's files byte for byte, its approval still open and undecided.
      expect(await runFiles(runId)).toEqual(before);
      expect((await runView(wb, runId)).workItems).toHaveLength(1);
      expect((await approveStep(runId))?.decision).toBeUndefined();

      // Ben may decide it: his click approves, in his name, through Slack.
      await postInteraction(base, buttonClick(USERS.ben, message, 'wb.approve'), SECRET);
      const completed = (await auditOf(runId)).filter((l) => l.action === 'step.completed' && l.entity.endsWith('/approve'));
      expect(completed).toHaveLength(1);
      expect(completed[0]).toMatchObject({ actor: PEOPLE.ben, input: { changes: { via: 'slack' } } });
      expect((await runView(wb, runId)).run.outcome).toBe('paid');
    } finally {
      await editManifest(wb.board, 'test', 'fourEyes.set', (d) => {
        delete d.fourEyes;
        return 'four eyes off';
      });
    }
  });
});
