/**
 * Every tool command of the CLI as a real subprocess: `--json` prints exactly
 * the tool's result object (validated against the upstream schemas when
 * ../shared is present), humans get a readable layout, and refusals exit 1,
 * usage errors 2.
 */
import { spawnSync } from 'node:child_process';
import { promises as fs } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { workboardBatch } from '../support/cli-run.js';
import { conformanceIssues } from '../support/svc-harness.js';

const BIN = fileURLToPath(new URL('../../bin/workboard.js', import.meta.url));
let b: string;

function wb(...args: string[]): { code: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [BIN, '--board', b, ...args], { encoding: 'utf8' });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** A --json tool command: exit code, and the result validated against its tool's schema. */
function tool(name: string, ...args: string[]): { ok: boolean; data?: any; error?: any } {
  const r = wb('--json', ...args);
  const result = JSON.parse(r.stdout) as { ok: boolean; data?: any; error?: any };
  expect(conformanceIssues(name, result)).toEqual([]);
  expect(r.code).toBe(result.ok ? 0 : 1);
  return result;
}

beforeAll(async () => {
  const root = await fs.mkdtemp(path.join(tmpdir(), 'wb-cmds-'));
  b = path.join(root, 'b');
  // The board's set-up is a fixture: one process for all of it (workboardBatch); what the tests call runs as its own.
  await workboardBatch(
    [
      ['init', b, '--name', 'cmds'],
      ['person', 'add', 'ana@example.com'],
      ['person', 'add', 'ops@example.com'],
      ['operator', 'add', 'ops@example.com'],
      ['group', 'add', 'approvers', 'ana@example.com'],
      ['agent', 'add', 'helper'],
    ].map((args) => ({ cwd: root, args: ['--board', b, ...args] })),
  );
  await fs.mkdir(path.join(b, 'processes/filing'), { recursive: true });
  await fs.writeFile(
    path.join(b, 'processes/filing/PROCESS.md'),
    '---\nname: filing\ndescription: File a receipt, wait for the books, approve.\ninputs:\n  ref: string\nsteps:\n  - id: attach\n    agent: Attach the receipt.\n    output: { number: string }\n    evidence: [file]\n  - id: booked\n    wait_for: books-closed\n  - id: approve\n    person: approver\n    approve: Looks right.\n    next: filed\n  - id: filed\n    finish: filed\n---\nBody.\n',
  );
  expect(wb('publish', path.join(b, 'processes/filing'), '--role', 'approver=approvers').code).toBe(0);
});

describe('tool commands', () => {
  it('processes and map', () => {
    const p = tool('list_processes', 'processes');
    expect(p.data.items.map((i: { name: string }) => i.name)).toEqual(['filing']);
    const svg = wb('map', 'filing', '--format', 'svg');
    expect(svg.code).toBe(0);
    expect(svg.stdout.startsWith('<svg')).toBe(true);
    expect(wb('map', 'filing').stdout.startsWith('flowchart LR')).toBe(true);
    expect(wb('map', 'nope').code).toBe(1);
    expect(wb('map', 'filing', '--format', 'png').code).toBe(2);
  });

  it('the agent loop: start, work, claim, renew, upload, submit, event, inbox, decide, show, runs, log', async () => {
    const started = tool('start_run', '--as', 'helper', 'start', 'filing', '--input', 'ref=A-1');
    const runId = started.data.run.id as string;
    const work = tool('get_work', '--as', 'helper', 'work');
    expect(work.data.items.map((i: { runId: string }) => i.runId)).toContain(runId);
    const claim = tool('claim', '--as', 'helper', 'claim', runId, 'attach');
    const renewed = tool('renew', '--as', 'helper', 'renew', claim.data.token, '--progress', 'found it');
    expect(tool('renew', '--as', 'helper', 'renew', claim.data.token).error.code).toBe('stale');
    const file = path.join(b, '..', 'receipt.txt');
    await fs.writeFile(file, 'receipt A-1');
    const up = tool('upload', '--as', 'helper', 'upload', file, '--content-type', 'text/plain');
    const refused = tool('submit', '--as', 'helper', 'submit', renewed.data.token, '--summary', 'x');
    expect(refused.error.code).toBe('not_accepted');
    expect(refused.error.issues).toEqual(expect.arrayContaining(['output.number: missing', 'evidence: file required']));
    // A local path is uploaded first, typed by its name: the same bytes, name and type give the same upload id.
    const done = tool('submit', '--as', 'helper', 'submit', renewed.data.token, '--output', 'number="A-1"', '--evidence', `file:${file}`, '--summary', 'Attached.');
    expect(done.data.data.steps.attach.evidence[0]).toMatchObject({ kind: 'file', ref: up.data.id, sha256: up.data.sha256 });
    expect(done.data.steps.find((s: { id: string }) => s.id === 'booked').state).toBe('waiting');
    expect(tool('send_event', '--as', 'helper', 'event', runId, 'books-closed').data).toEqual({ consumedBy: 'booked' });
    const inbox = tool('get_work', '--as', 'ana@example.com', 'inbox');
    const wi = inbox.data.items.find((i: { runId: string }) => i.runId === runId).workItem;
    // Without a terminal, decide names the snapshot the decider saw (issue 16, item 10).
    expect(tool('decide', '--as', 'helper', 'decide', runId, wi.id, 'approved', '--snapshot', wi.snapshot).error.code).toBe('forbidden');
    expect(tool('decide', '--as', 'ana@example.com', 'decide', runId, wi.id, 'approved', '--snapshot', wi.snapshot).data.run).toMatchObject({ state: 'ended', outcome: 'filed' });
    expect(tool('get_run', '--as', 'ana@example.com', 'show', runId).data.run.outcome).toBe('filed');
    const runs = tool('list_runs', '--as', 'ana@example.com', 'runs', '--state', 'ended');
    expect(runs.data.items.map((r: { id: string }) => r.id)).toContain(runId);
    const human = wb('--as', 'ana@example.com', 'show', runId);
    expect(human.stdout).toContain('ended (filed)');
    expect(human.stdout).toContain('Number: A-1');
    expect(human.stdout).toContain(`evidence: file ${up.data.id} sha256:${up.data.sha256}`);
    const log = wb('log', runId);
    expect(log.code).toBe(0);
    expect(log.stdout).toMatch(
      /helper started Filing v1\n[\s\S]*helper claimed “Attach the receipt” [\s\S]*helper submitted “Attach the receipt”\n[\s\S]*ana@example\.com approved “Looks right”\n[\s\S]*the run ended: filed\n/,
    );
  });

  it('escalate and cancel; refusals exit 1 with the code and each issue on its own line', () => {
    const runId = tool('start_run', '--as', 'helper', 'start', 'filing', '--input', 'ref=B-2').data.run.id as string;
    const claim = tool('claim', '--as', 'helper', 'claim', runId, 'attach');
    const esc = tool('escalate', '--as', 'helper', 'escalate', claim.data.token, '--note', 'No receipt exists.');
    expect(esc.data.workItems[0].escalation.note).toBe('No receipt exists.');
    expect(tool('cancel', '--as', 'ana@example.com', 'cancel', runId, '--reason', 'dup').error.code).toBe('forbidden');
    expect(tool('cancel', '--as', 'ops@example.com', 'cancel', runId, '--reason', 'Duplicate').data.run.state).toBe('cancelled');
    const again = wb('--as', 'ops@example.com', 'cancel', runId, '--reason', 'again');
    expect(again.code).toBe(1);
    expect(again.stderr.split('\n')[0]).toMatch(/^conflict: /);
    expect(again.stderr).toContain('\n  run_ended');
    const badInput = wb('--as', 'helper', 'start', 'filing', '--input', 'nokey');
    expect(badInput.code).toBe(2);
    expect(wb('--as', 'nobody@example.com', 'inbox').code).toBe(1);
  });

  it('token create prints a token once; doctor reports a healthy board', () => {
    const t = wb('--json', 'token', 'create', 'helper');
    expect(t.code).toBe(0);
    expect(JSON.parse(t.stdout).data.token).toMatch(/^wb_/);
    expect(wb('token', 'create', 'nobody').code).toBe(1);
    const d = wb('--json', 'doctor');
    expect(JSON.parse(d.stdout)).toEqual({ ok: true, data: { findings: [] } });
    expect(d.code).toBe(0);
  });
});
