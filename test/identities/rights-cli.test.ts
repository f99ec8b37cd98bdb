/**
 * Issue 25 through the real binary, on boards made by the CLI: an agent's
 * scope holds on every write (item 9), and four eyes follows a person
 * through `person rename` (item 10). WORK.md's scope and four-eyes settings
 * have no command; they are edited by hand, as a team would.
 */
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { ensureBuilt } from '../support/cli-run.js';
import { cleanupTmp } from '../support/tmp-board.js';
import { boardWith } from './support.js';

// A stale dist/ is rebuilt once here, not inside a test's own time limit.
beforeAll(ensureBuilt, 300_000);
afterAll(cleanupTmp);

/** Edit WORK.md's frontmatter by hand. */
async function editWork(dir: string, edit: (d: Record<string, any>) => void): Promise<void> {
  const file = path.join(dir, 'WORK.md');
  const [, front, body] = /^---\n([\s\S]*?)\n---\n([\s\S]*)$/.exec(await fs.readFile(file, 'utf8'))!;
  const data = parse(front!) as Record<string, any>;
  edit(data);
  await fs.writeFile(file, `---\n${stringify(data)}---\n${body}`);
}

async function publish(dir: string, wb: (...a: string[]) => Promise<{ code: number; stderr: string }>, name: string, text: string, ...roles: string[]): Promise<void> {
  await fs.mkdir(path.join(dir, 'processes', name), { recursive: true });
  await fs.writeFile(path.join(dir, 'processes', name, 'PROCESS.md'), text);
  const r = await wb('publish', path.join(dir, 'processes', name), ...roles.flatMap((r) => ['--role', r]));
  expect(r.code, r.stderr).toBe(0);
}

const waits = (name: string) => `---\nname: ${name}\ndescription: Wait for a ping.\nsteps:\n  - id: hold\n    wait_for: ping\n  - id: done\n    finish: done\n---\nBody.\n`;

describe('item 9: a scoped agent and events', () => {
  it('workboard event into a run of a process outside the agent’s scope exits 1, forbidden; inside it exits 0', async () => {
    const { dir, wb } = await boardWith({ people: ['ops@example.com'], agents: ['a4', 'starter'] });
    expect((await wb('operator', 'add', 'ops@example.com')).code).toBe(0);
    await publish(dir, wb, 'theirs', waits('theirs'));
    await publish(dir, wb, 'mine', waits('mine'));
    await editWork(dir, (d) => (d.agents.find((a: { id: string }) => a.id === 'a4').processes = ['mine']));
    const theirs = (await wb('start', 'theirs', '--as', 'starter')).stdout.trim();
    const mine = (await wb('start', 'mine', '--as', 'starter')).stdout.trim();
    const refused = await wb('event', theirs, 'ping', '--as', 'a4');
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/^forbidden: agent a4 may not work on theirs/);
    expect(JSON.parse((await wb('--json', 'show', theirs, '--as', 'ops@example.com')).stdout).data.run.state).toBe('waiting');
    const sent = await wb('event', mine, 'ping', '--as', 'a4');
    expect(sent.code, sent.stderr).toBe(0);
  });
});

const APPROVAL = `---\nname: spend\ndescription: Approve a spend.\ninputs:\n  amount: number\nsteps:\n  - id: approve\n    person: approver\n    approve: Approve the spend.\n    next: done\n  - id: done\n    finish: approved\n---\nBody.\n`;

describe('item 10: four eyes and person rename', () => {
  it('the initiator renamed is still the initiator: their approval exits 1, four eyes; WORK.md keeps the former email', async () => {
    const { dir, wb } = await boardWith({ people: ['p1@example.com', 'p2@example.com'] });
    expect((await wb('group', 'add', 'finance', 'p1@example.com', 'p2@example.com')).code).toBe(0);
    await publish(dir, wb, 'spend', APPROVAL, 'approver=finance');
    await editWork(dir, (d) => (d.fourEyes = true));
    const runId = (await wb('start', 'spend', '--input', 'amount=90', '--as', 'p1@example.com')).stdout.trim();
    const renamed = await wb('person', 'rename', 'p1@example.com', 'p1.renamed@example.com');
    expect(renamed.code, renamed.stderr).toBe(0);
    expect(parse(/^---\n([\s\S]*?)\n---\n/.exec(await fs.readFile(path.join(dir, 'WORK.md'), 'utf8'))![1]!).people).toContainEqual({
      email: 'p1.renamed@example.com',
      formerEmails: ['p1@example.com'],
    });
    expect((await wb('inbox', '--as', 'p1.renamed@example.com')).stdout).not.toContain(runId);
    const item = (await wb('inbox', '--limit', '1', '--decide-args', '--as', 'p2@example.com')).stdout.trim().split(/\s+/);
    expect(item[0]).toBe(runId);
    const refused = await wb('decide', ...item, 'approved', '--as', 'p1.renamed@example.com');
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/^forbidden: four eyes: p1\.renamed@example\.com started this run \(as p1@example\.com\)/);
    expect(refused.stderr).toContain('\n  four_eyes');
    const approved = await wb('decide', ...item, 'approved', '--as', 'p2@example.com');
    expect(approved.code, approved.stderr).toBe(0);
  });
});
