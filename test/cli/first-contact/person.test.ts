/**
 * Issue 16, the person at the terminal and the operator, through the real
 * binary: inbox and show give the process, the run's inputs, the whole
 * instructions, escalation notes and the command that decides (item 11);
 * decide on a terminal confirms a decision that ends the run (item 11, on a
 * pseudo-terminal through script(1)); validate reports broken steps, bad
 * references and unreachable steps at once (item 12); serve stops at once on
 * SIGTERM while a client holds a half-sent request, and a call sent just
 * before the signal is answered and committed (item 16).
 */
import { spawn } from 'node:child_process';
import { promises as fs } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, ensureBuilt, workboard } from '../../support/cli-run.js';
import { cleanupTmp, tmpDir } from '../../support/tmp-board.js';
import { hasScript, onTerminal } from '../../support/terminal.js';

let root = '';
const wb = (args: string[]) => workboard(args, { cwd: root });

const PAYOUT = `---
name: payout
description: Pay a claim once finance approves.
inputs:
  claimant: string
  amount: number
steps:
  - id: check
    agent: Check the claim.
    output: { fine: boolean }
  - id: approve
    person: approver
    approve: |
      Approve the payout when the check found the claim fine.
      Look at the amount before you approve; anything above 500 needs a second look
      and a note.
    next: paid
  - id: paid
    finish: paid
---
# Claim payout
`;

beforeAll(async () => {
  await ensureBuilt();
  root = path.join(await tmpDir(), 'fin');
  await workboard(['init', root, '--name', 'fin'], { cwd: path.dirname(root) });
  // Ana approves and, as the operator, takes escalations.
  for (const a of [
    ['person', 'add', 'ana@example.com'],
    ['group', 'add', 'approvers', 'ana@example.com'],
    ['operator', 'add', 'ana@example.com'],
    ['agent', 'add', 'bot'],
  ])
    expect((await wb(a)).code).toBe(0);
  await fs.mkdir(path.join(root, 'processes/payout'), { recursive: true });
  await fs.writeFile(path.join(root, 'processes/payout/PROCESS.md'), PAYOUT);
  expect((await wb(['publish', 'processes/payout', '--role', 'approver=approvers'])).code).toBe(0);
}, 180_000);
afterAll(cleanupTmp);

/** A run of payout for `claimant`, worked by the agent up to Ana's approval; `escalate` hands the check to a person instead. */
async function runUpToApproval(claimant: string, amount: number, escalate?: string): Promise<string> {
  const runId = (await wb(['start', 'payout', '--input', `claimant=${claimant}`, '--input', `amount=${amount}`, '--as', 'bot'])).stdout.trim();
  const token = (await wb(['claim', runId, 'check', '--as', 'bot'])).stdout.trim();
  const r = escalate ? await wb(['escalate', token, '--note', escalate, '--as', 'bot']) : await wb(['submit', token, '--output', 'fine=true', '--summary', 'Checked.', '--as', 'bot']);
  expect(r.code, r.stderr).toBe(0);
  return runId;
}

describe('item 11: what a person sees', () => {
  it('inbox tells two items of one process apart: title, inputs, whole text, escalation notes, the decide command', async () => {
    const a = await runUpToApproval('Kim', 120);
    const b = await runUpToApproval('Lee', 900);
    const c = await runUpToApproval('Max', 40, 'The receipt is a photo of a photo; I cannot read the total.');
    const r = await wb(['inbox', '--as', 'ana@example.com', '--limit', '100']);
    expect(r.code, r.stderr).toBe(0);
    // Items are separated by a blank line; each ends with the command that decides it, naming its run.
    const block = (runId: string) => r.stdout.split('\n\n').find((x) => x.includes(`workboard decide ${runId} `)) ?? '';
    expect(block(a)).toMatch(/^Claim payout · Kim · 120\n/);
    expect(block(a)).toContain('Claimant: Kim');
    expect(block(a)).toContain('Amount: 120');
    expect(block(a)).toContain('found    Fine: Yes');
    expect(block(b)).toContain('Amount: 900');
    expect(block(a)).toContain('and a note.');
    expect(block(c)).toContain('escalated by bot');
    expect(block(c)).toContain('I cannot read the total.');
    expect(block(a)).toMatch(new RegExp(`workboard decide ${a} w-[0-9a-f]+ approved\\|rejected\\|failed --snapshot [0-9a-f]{64}`));
    const show = await wb(['show', b]);
    expect(show.stdout).toContain('inputs   Claimant: Lee  ·  Amount: 900');
    expect(show.stdout).toMatch(/--snapshot [0-9a-f]{64}/);
  });

  it.skipIf(!hasScript)(
    'decide on a terminal shows readable fields and asks before a decision that ends the run; no keeps everything',
    async () => {
      const runId = await runUpToApproval('Nia', 75);
      const item = (await wb(['inbox', '--decide-args', '--as', 'ana@example.com', '--limit', '100'])).stdout
        .split('\n')
        .find((l) => l.startsWith(runId))!
        .split(' ')[1]!;
      const decideOnTerminal = (input: string) =>
        onTerminal([process.execPath, BIN, '--as', 'ana@example.com', 'decide', runId, item], { prompt: 'Decision (', input, cwd: root, env: { ...process.env, NO_COLOR: '1' } });
      const declined = await decideOnTerminal('failed\nWrong claimant.\nn\n');
      expect(declined.out).toContain('Claimant: Nia  ·  Amount: 75');
      expect(declined.out).toMatch(/Check the claim +Fine: Yes  ·  Summary: Checked\./);
      expect(declined.out).toContain('This ends the run (outcome failed)');
      expect(declined.code).toBe(1);
      expect(JSON.parse((await wb(['--json', 'show', runId])).stdout).data.run).toMatchObject({ state: 'waiting', outcome: null });
      const approved = await decideOnTerminal('approved\ny\n');
      expect(approved.out).toContain('This ends the run (outcome paid)');
      expect(approved.code).toBe(0);
      expect(JSON.parse((await wb(['--json', 'show', runId])).stdout).data.run).toMatchObject({ state: 'ended', outcome: 'paid' });
    },
    60_000,
  );
});

describe('item 12: validate reports every problem in one round', () => {
  it('broken steps, references to missing steps and unreachable steps together', async () => {
    const file = path.join(await tmpDir(), 'PROCESS.md');
    await fs.writeFile(
      file,
      '---\nname: expense\ndescription: x\nsteps:\n  - id: Draft\n    agent: Write.\n    next: aprove\n  - id: review\n    agent: Review.\n    task: Also.\n    next: approve\n  - id: approve\n    person: approver\n    approve: ok\n    on_reject: drfat\n    next: done\n  - id: lonely\n    agent: Nobody comes here.\n    next: done\n  - id: done\n    finish: done\n---\n',
    );
    const r = await workboard(['validate', file, '--profiles', 'none'], { cwd: path.dirname(file) });
    expect(r.code).toBe(1);
    const issues = r.stdout
      .trim()
      .split('\n')
      .map((l) => l.replace(`${file}:`, ''));
    expect(issues).toEqual([
      '5:9: steps[0].id: must match ^[a-z][a-z0-9_-]{0,63}$: a lowercase letter, then letters, digits, _ or -',
      '8:5: steps[1]: has 2 kind keys (agent, task); a step has exactly one',
      '7:11: steps[0].next: no step "aprove"',
      '15:16: steps[2].on_reject: no step "drfat"',
      '8:5: steps[1]: step "review" is not reachable from the first step',
      '12:5: steps[2]: step "approve" is not reachable from the first step',
      '17:5: steps[3]: step "lonely" is not reachable from the first step',
      '20:5: steps[4]: step "done" is not reachable from the first step',
    ]);
  });
});

/** `p`, or a failure naming what never happened (so a hang says where it hung). */
function named<T>(p: Promise<T>, what: string): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const t = setTimeout(() => reject(new Error(`${what} did not happen`)), 25_000);
    p.then(
      (v) => (clearTimeout(t), resolve(v)),
      (e: unknown) => (clearTimeout(t), reject(e)),
    );
  });
}

describe('item 16: serve stops at once on SIGTERM', () => {
  it('closes a half-sent request at once and answers a call sent just before the signal', async () => {
    const token = (await wb(['token', 'create', 'bot'])).stdout.split('\n')[0]!;
    const child = spawn(process.execPath, [BIN, '--board', root, 'serve', '--http', '127.0.0.1:0'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    const exited = new Promise<number | null>((r) => child.on('exit', (c) => r(c)));
    const port = await named(
      new Promise<number>((resolve) => {
        const t = setInterval(() => {
          const m = /MCP over HTTP at http:\/\/127\.0\.0\.1:(\d+)\/mcp/.exec(out);
          if (m) {
            clearInterval(t);
            resolve(Number(m[1]));
          }
        }, 20);
      }),
      'serve listening',
    );
    // A client that stopped halfway through its headers.
    const half = net.connect(port, '127.0.0.1');
    await new Promise((r) => half.once('connect', r));
    half.write('POST /mcp HTTP/1.1\r\nHost: x\r\n');
    const halfClosed = new Promise<string>((r) => {
      let got = '';
      half.on('data', (d) => (got += String(d)));
      half.once('close', () => r(got));
    });
    // A whole start_run, written just before the signal.
    const body = JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'start_run', arguments: { process: 'payout', inputs: { claimant: 'Oz', amount: 1 }, requestId: 'sigterm-1' } },
    });
    const call = net.connect(port, '127.0.0.1');
    await new Promise((r) => call.once('connect', r));
    let answer = '';
    call.on('data', (d) => (answer += String(d)));
    const answered = new Promise<void>((r) => call.once('close', () => r()));
    call.write(
      `POST /mcp HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${token}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
    );
    await new Promise((r) => setTimeout(r, 30));
    child.kill('SIGTERM');
    expect(await named(halfClosed, 'the half-sent request closed')).toBe('');
    expect(await named(exited, `serve exited (output: ${out})`)).toBe(0);
    await named(answered, 'the call connection closed');
    const runs = JSON.parse((await wb(['--json', 'runs', '--input', 'claimant=Oz'])).stdout).data.items as unknown[];
    // The call either ran whole and was answered, or never started; never half.
    if (answer.includes(' 200 ')) {
      expect(answer).toContain('"ok":true');
      expect(runs).toHaveLength(1);
    } else expect(runs).toHaveLength(0);
    expect((await wb(['audit', 'verify'])).code).toBe(0);
  }, 60_000);
});
