/**
 * `workboard decide` with no decision on a terminal asks for it, showing the
 * step and the run data, and re-asks until the answer is an allowed one. Run
 * on a real pseudo-terminal through script(1).
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { promises as fs } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { hasScript, onTerminal } from '../support/terminal.js';

const BIN = fileURLToPath(new URL('../../bin/workboard.js', import.meta.url));
const wb = (cwd: string, ...args: string[]) => execFileSync(process.execPath, [BIN, ...args], { cwd, encoding: 'utf8' });

describe.skipIf(!hasScript)('decide on a terminal', () => {
  it('shows the step and run data, re-asks a wrong answer, and records the rejection with its note', async () => {
    const root = await fs.mkdtemp(path.join(tmpdir(), 'wb-tty-'));
    wb(root, 'init', 'b', '--name', 'b');
    const b = path.join(root, 'b');
    wb(b, 'person', 'add', 'ana@example.com');
    wb(b, 'group', 'add', 'approvers', 'ana@example.com');
    wb(b, 'agent', 'add', 'helper');
    await fs.mkdir(path.join(b, 'processes/hello'), { recursive: true });
    await fs.writeFile(
      path.join(b, 'processes/hello/PROCESS.md'),
      '---\nname: hello\ndescription: Draft and approve.\ninputs:\n  to: string\nsteps:\n  - id: draft\n    agent: Greet.\n    output: { greeting: string }\n  - id: approve\n    person: approver\n    approve: Friendly and spelled right.\n    next: sent\n  - id: sent\n    finish: sent\n---\nBody.\n',
    );
    wb(b, 'publish', 'processes/hello', '--role', 'approver=approvers');
    const runId = JSON.parse(wb(b, '--json', '--as', 'helper', 'start', 'hello', '--input', 'to=Kim')).data.run.id as string;
    const token = JSON.parse(wb(b, '--json', '--as', 'helper', 'claim', runId, 'draft')).data.token as string;
    wb(b, '--as', 'helper', 'submit', token, '--output', 'greeting=Hi Kim', '--summary', 'Wrote it.');
    const wi = JSON.parse(wb(b, '--json', '--as', 'ana@example.com', 'inbox')).data.items[0].workItem.id as string;

    // Rejecting ends this run (no on_reject), so it is confirmed first (issue 16, item 11).
    const { code, out } = await onTerminal([process.execPath, BIN, '--as', 'ana@example.com', 'decide', runId, wi], {
      prompt: 'Decision (approved, rejected, failed)',
      input: 'maybe\nrejected\nToo short.\ny\n',
      cwd: b,
    });
    expect(code).toBe(0);
    expect(out).toContain('Friendly and spelled right.');
    // The earlier step by its title, its output by label (the label dimmed on a terminal).
    // eslint-disable-next-line no-control-regex -- the escape that dims the label
    expect(out).toMatch(/Greet +(\u001b\[0m)?Greeting: Hi Kim  ·  Summary: Wrote it\./);
    expect(out).toContain('This ends the run (outcome rejected)');
    expect(out.match(/Decision \(approved, rejected, failed\)/g)?.length).toBe(2);
    const view = JSON.parse(wb(b, '--json', '--as', 'ana@example.com', 'show', runId)).data;
    expect(view.run).toMatchObject({ state: 'ended', outcome: 'rejected', ended: { by: 'ana@example.com', note: 'Too short.' } });
    await fs.rm(root, { recursive: true, force: true });
  }, 60_000);

  it('without a terminal, a missing decision is a usage error and nothing changes', async () => {
    const r = spawnSync(process.execPath, [BIN, '--board', tmpdir(), 'decide', 'r-x', 'w-x'], { encoding: 'utf8', input: '' });
    expect(r.status).toBe(2);
  });
});
