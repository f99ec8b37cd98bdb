/**
 * Issue 25 through the real binary, on boards made by the CLI: an agent's
 * scope holds on every write (item 9), and four eyes follows a person
 * through `person rename` (item 10). WORK.md's scope and four-eyes settings
 * have no command; they are edited by hand, as a team would.
 */
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { cleanupTmp } from '../support/tmp-board.js';
import { boardWith } from './support.js';

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
