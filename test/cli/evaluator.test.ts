/**
 * Setting up check-1 from the command line: `workboard evaluator` tries the
 * evaluator WORK.md names, publish refuses a checked process while none is
 * configured, and doctor names checked processes an evaluator no longer serves.
 */
import { spawnSync } from 'node:child_process';
import { promises as fs } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt } from '../support/cli-run.js';

const BIN = fileURLToPath(new URL('../../bin/workboard.js', import.meta.url));
const AGREEABLE = fileURLToPath(new URL('../support/evaluators/agreeable.mjs', import.meta.url));
const PRESS_NOTE = fileURLToPath(new URL('../../fixtures/service/press-note', import.meta.url));
let b: string;

function wb(...args: string[]) {
  const r = spawnSync(process.execPath, [BIN, '--board', b, '--as', 'ops@example.com', ...args], { encoding: 'utf8' });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** Edit WORK.md by hand, as a person would: the board adopts it on its next write. */
async function setEvaluator(yaml: string | null): Promise<void> {
  const file = path.join(b, 'WORK.md');
  const text = await fs.readFile(file, 'utf8');
  const end = text.indexOf('\n---\n', 4);
  const front = text.slice(0, end).replace(/\nevaluator:[\s\S]*$/, '');
  await fs.writeFile(file, `${front}${yaml ? `\n${yaml}` : ''}${text.slice(end)}`);
}

beforeAll(async () => {
  await ensureBuilt();
  const root = await fs.mkdtemp(path.join(tmpdir(), 'wb-eval-cli-'));
  b = path.join(root, 'b');
  expect(spawnSync(process.execPath, [BIN, 'init', b, '--name', 'evals']).status).toBe(0);
  for (const args of [
    ['person', 'add', 'ops@example.com'],
    ['operator', 'add', 'ops@example.com'],
    ['group', 'add', 'signers', 'ops@example.com'],
  ])
    expect(wb(...args).code).toBe(0);
  await fs.cp(PRESS_NOTE, path.join(b, 'processes', 'press-note'), { recursive: true });
});

describe('check-1 from the command line', () => {
  it('without an evaluator: `evaluator` says how to configure one, and publish refuses a checked process naming check-1', () => {
    const e = wb('evaluator');
    expect(e.code).toBe(1);
    expect(e.stderr).toContain('no evaluator is configured');
    // validate inside the board agrees with publish; --profiles says what to count instead
    const v = wb('validate', path.join(b, 'processes', 'press-note'));
    expect(v.code).toBe(1);
    expect(v.stdout).toContain('steps[0].check: needs profile check-1, not enabled');
    expect(wb('validate', '--profiles', 'all', path.join(b, 'processes', 'press-note')).code).toBe(0);
    const p = wb('publish', path.join(b, 'processes', 'press-note'), '--role', 'signer=signers');
    expect(p.code).toBe(1);
    expect(p.stdout + p.stderr).toContain('steps[0].check: needs profile check-1, not enabled');
  });

  it('with a command evaluator: `evaluator` shows its answers, describe offers check-1, publish succeeds', async () => {
    await setEvaluator(`evaluator:\n  command: ${JSON.stringify(process.execPath)}\n  args: [${JSON.stringify(AGREEABLE)}]\n  timeoutSeconds: 10`);
    const e = wb('--json', 'evaluator');
    expect(e.code).toBe(0);
    const out = JSON.parse(e.stdout);
    expect(out.data.model).toBe('agreeable-1');
    expect(out.data.answers).toEqual([{ yes: 1 }, { choice: 'one', confidence: 0.95 }, { level: 2, confidence: 0.95 }]);
    expect(wb('publish', path.join(b, 'processes', 'press-note'), '--role', 'signer=signers').code).toBe(0);
    const d = JSON.parse(wb('--json', 'describe').stdout);
    expect(d.data.profiles).toContain('check-1');
  });

  it('an evaluator that fails: `evaluator` reports no answer and exits 3; once removed, doctor names the checked process', async () => {
    await setEvaluator(`evaluator:\n  command: ${JSON.stringify(path.join(b, 'no-such-evaluator'))}\n  timeoutSeconds: 5`);
    const e = wb('evaluator');
    expect(e.code).toBe(3);
    expect(e.stdout).toContain('no answer');
    await setEvaluator(null);
    const doc = wb('--json', 'doctor');
    const findings = JSON.parse(doc.stdout).data.findings as { kind: string; where: string; detail: string }[];
    expect(findings).toContainEqual({ kind: 'no-evaluator', where: 'press-note v1', detail: expect.stringContaining('steps draft, sign_off have a check') });
  });
});
