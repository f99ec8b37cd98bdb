/**
 * Removing and renaming identities (issue 17), through the real CLI against
 * a running `serve --http`: each change is an audited WORK.md transaction
 * recording the OS user; a removed identity's tokens stop working at once;
 * a renamed person's tokens follow them; work still naming what was removed
 * is listed as a warning, never silently, and doctor shows work assigned to
 * a removed person personally. Bad input changes nothing.
 */
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chainEvents, cleanupTmp } from '../support/tmp-board.js';
import { boardWith, rpc, serveHttp, type Serving } from './support.js';

const SIGNOFF = `---
name: signoff
description: An agent drafts a note, the person named at the start signs it off, finance approves.
inputs:
  owner: person
steps:
  - id: draft
    agent: Write the note.
    output: { text: string }
    next: sign
  - id: sign
    person: inputs.owner
    approve: Sign the note off.
    next: finance
  - id: finance
    person: approver
    approve: Approve the note.
    next: done
  - id: done
    finish: done
---
A process of our own for the removal tests.
`;

let dir: string;
let wb: Awaited<ReturnType<typeof boardWith>>['wb'];
let serving: Serving;
let signing: string; // a run waiting for jon's personal sign-off
let drafting: string; // a run whose draft helper has claimed

const json = async (...args: string[]) => {
  const r = await wb('--json', ...args);
  if (r.code !== 0) throw new Error(`workboard ${args.join(' ')}: ${r.stdout}${r.stderr}`);
  return JSON.parse(r.stdout).data;
};
const workFile = () => fs.readFile(path.join(dir, 'WORK.md'), 'utf8');
const lastEvent = async () => (await chainEvents(path.join(dir, 'audit/board.jsonl'))).at(-1)!;

beforeAll(async () => {
  ({ dir, wb } = await boardWith({ people: ['mira@example.com', 'jon@example.com', 'ana@example.com'], agents: ['helper', 'spare'] }));
  await json('group', 'add', 'finance', 'mira@example.com');
  await fs.mkdir(path.join(dir, 'processes/signoff'), { recursive: true });
  await fs.writeFile(path.join(dir, 'processes/signoff/PROCESS.md'), SIGNOFF);
  await json('publish', path.join(dir, 'processes/signoff'), '--role', 'approver=finance');
  signing = (await json('--as', 'helper', 'start', 'signoff', '--input', 'owner=jon@example.com')).run.id;
  const claim = await json('--as', 'helper', 'claim', signing, 'draft');
  await json('--as', 'helper', 'submit', claim.token, '--output', 'text=Hello', '--summary', 'Drafted.');
  drafting = (await json('--as', 'ana@example.com', 'start', 'signoff', '--input', 'owner=ana@example.com')).run.id;
  const held = await json('--as', 'helper', 'claim', drafting, 'draft');
  await json('--as', 'helper', 'renew', held.token, '--progress', 'Outline written.');
  serving = await serveHttp(dir);
}, 120_000);
afterAll(async () => {
  await serving?.stop();
  await cleanupTmp();
});

describe('person remove', () => {
  it("ends the person's tokens at once, lists the work still naming them, and doctor shows their personal work item", async () => {
    const jon = await json('token', 'create', 'jon@example.com');
    const mira = await json('token', 'create', 'mira@example.com');
    expect((await rpc(serving.url, jon.token)).status).toBe(200);

    const r = await wb('--json', 'person', 'remove', 'jon@example.com');
    expect(r.code).toBe(0);
    const data = JSON.parse(r.stdout).data;
    expect(data).toMatchObject({ changed: true, change: 'person jon@example.com removed', tokens: [jon.id] });
    expect(data.warnings).toEqual(
      expect.arrayContaining([expect.stringMatching(new RegExp(`^${signing}/sign: work item w-\\S+ is assigned to them personally$`)), `${signing}: its input owner names them`]),
    );
    expect(data.warnings.some((w: string) => w.includes(drafting))).toBe(false);

    expect((await rpc(serving.url, jon.token)).status).toBe(401);
    expect((await rpc(serving.url, mira.token)).status).toBe(200);
    expect(await workFile()).not.toContain('jon@example.com');

    const ev = await lastEvent();
    expect(ev).toMatchObject({ action: 'person.removed', input: { changes: { change: 'person jon@example.com removed', tokensEnded: [jon.id] } } });
    expect(typeof ev.input.osUser).toBe('string');

    const doctor = await wb('--json', 'doctor');
    const findings = JSON.parse(doctor.stdout).data.findings as { kind: string; where: string; detail: string }[];
    expect(findings).toContainEqual({ kind: 'nobody', where: `${signing}/sign`, detail: expect.stringContaining('assigned personally to jon@example.com, who is not a person on this board') });
  });

  it('refuses someone who is not on the board, changing nothing', async () => {
    const before = await workFile();
    const r = await wb('person', 'remove', 'nobody@example.com');
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('no person nobody@example.com on this board');
    expect(await workFile()).toBe(before);
  });
});

describe('person rename', () => {
  it('changes the email everywhere WORK.md names it; their tokens follow them and keep working', async () => {
    await json('group', 'add', 'finance', 'ana@example.com');
    const ana = await json('token', 'create', 'ana@example.com', '--name', 'ana-laptop');
    const r = await json('person', 'rename', 'ana@example.com', 'ana.b@example.com');
    expect(r).toMatchObject({ changed: true, change: 'person ana@example.com is now ana.b@example.com', tokens: [ana.id] });
    expect(r.warnings).toContain(`${drafting}: started by them (steps for the initiator go to them)`);
    const work = await workFile();
    // The old email stays only as a former one: four eyes still counts work done under it (issue 25, item 10).
    expect(work).toContain('  - email: ana.b@example.com\n    formerEmails:\n      - ana@example.com\n');
    expect(work.match(/ana@example\.com/g)).toHaveLength(1);
    expect(work.match(/ana\.b@example\.com/g)).toHaveLength(2); // people and the finance group
    expect((await json('token', 'list')).tokens.find((t: { id: string }) => t.id === ana.id).identity).toBe('ana.b@example.com');
    expect((await rpc(serving.url, ana.token)).status).toBe(200);
  });

  it('refuses a bad rename with every problem at once, changing nothing', async () => {
    const before = await workFile();
    const r = await wb('person', 'rename', 'ghost@example.com', 'mira@example.com');
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/no person ghost@example.com[\s\S]*mira@example.com is already a person/);
    expect(await workFile()).toBe(before);
  });
});

describe('groups', () => {
  it('remove-member refuses non-members; emptying a group and removing it warn with the role maps naming it', async () => {
    const before = await workFile();
    const bad = await wb('group', 'remove-member', 'finance', 'mira@example.com', 'nobody@example.com');
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('not members of group finance: nobody@example.com');
    expect(await workFile()).toBe(before);

    const one = await json('group', 'remove-member', 'finance', 'ana.b@example.com');
    expect(one).toMatchObject({ changed: true, change: 'group finance - ana.b@example.com', warnings: [] });
    const last = await json('group', 'remove-member', 'finance', 'mira@example.com');
    expect(last.warnings).toEqual(['signoff v1: role approver goes to group finance (the group now has no one)']);
    const gone = await json('group', 'remove', 'finance');
    expect(gone).toMatchObject({ changed: true, change: 'group finance removed', warnings: ['signoff v1: role approver goes to group finance'] });
    expect(await workFile()).not.toMatch(/finance/);
    expect((await lastEvent()).action).toBe('group.removed');
  });
});

describe('agent remove', () => {
  it("ends the agent's tokens and claims at once (the step is ready again with a handoff) and lists the runs it started", async () => {
    const helper = await json('token', 'create', 'helper');
    const spare = await json('token', 'create', 'spare');
    expect((await json('--as', 'spare', 'work')).items ?? []).not.toContainEqual(expect.objectContaining({ runId: drafting }));
    const r = await json('agent', 'remove', 'helper');
    expect(r).toMatchObject({ changed: true, change: 'agent helper removed', tokens: [helper.id], claimsEnded: [`${drafting}/draft`] });
    expect(r.warnings).toEqual([`${signing}: started by it`]);

    const run = await json('show', drafting);
    expect(run.steps.find((x: { id: string }) => x.id === 'draft').state).toBe('ready');
    const ended = (await chainEvents(path.join(dir, `runs/${drafting}/audit.jsonl`))).filter((e) => e.action === 'claim.ended');
    expect(ended).toEqual([
      expect.objectContaining({
        actor: expect.stringMatching(/^user:/),
        entity: `${drafting}/draft`,
        input: expect.objectContaining({ changes: { agent: 'helper', reason: 'the agent was removed from the board' } }),
      }),
    ]);
    // Another agent takes the step over, with the handoff of the claim that ended.
    const taken = await json('--as', 'spare', 'claim', drafting, 'draft');
    expect(taken.handoff).toEqual({ progress: 'Outline written.' });

    expect((await rpc(serving.url, helper.token)).status).toBe(401);
    expect((await rpc(serving.url, spare.token)).status).toBe(200);
    const again = await wb('agent', 'remove', 'helper');
    expect(again.code).toBe(1);
    expect(again.stderr).toContain('no agent helper on this board (agents: spare)');
  });

  it('leaves a board whose audit chains verify', async () => {
    expect((await wb('audit', 'verify')).code).toBe(0);
  });
});
