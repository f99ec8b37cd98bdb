/**
 * Board format versions (docs/operations.md): a board made by the first
 * workboard that ran processes (fixtures/boards/first-release, built from
 * commit ca6b0ce) opens with this one, and `workboard upgrade` records its
 * format in WORK.md as one audited commit, after which it verifies and a
 * second upgrade changes nothing. A board of a newer format is refused by
 * every command with one line, and not a byte of it (nor of `.work/`)
 * changes; serve refuses a WORK.md edit to a newer format. Doctor names a
 * signing key on record that `.work/` lost.
 */
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { stripVTControlCharacters } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { doctorFindings } from '../../src/service/doctor.js';
import { ensureBuilt, ROOT, workboard } from '../support/cli-run.js';
import { cleanupHarnesses, Harness } from '../support/svc-harness.js';
import { cleanupTmp, snapshotDir, tmpDir } from '../support/tmp-board.js';
import { until } from '../support/until.js';
import { serveOps } from '../ops/support.js';

const FIRST = path.join(ROOT, 'fixtures/boards/first-release');
const RUNS = { active: 'r-01m92ma5hg7exavctzrvf2jqms', cancelled: 'r-01m92maa4cv7yk883tdcm3bw9d' };

beforeAll(() => ensureBuilt(), 180_000);
afterAll(async () => {
  await cleanupTmp();
  await cleanupHarnesses();
});

async function copyOfFirst(): Promise<{ dir: string; wb: (...args: string[]) => ReturnType<typeof workboard> }> {
  const dir = path.join(await tmpDir('wb-format-'), 'board');
  await fs.cp(FIRST, dir, { recursive: true });
  return { dir, wb: (...args) => workboard(['--board', dir, '--as', 'mira@example.com', ...args], { cwd: path.dirname(dir) }) };
}

describe('a board of the first release', () => {
  it('opens as it is: its runs listed and shown, its chains verified', async () => {
    const { wb } = await copyOfFirst();
    const runs = await wb('--json', 'runs');
    expect(runs.code).toBe(0);
    expect(
      JSON.parse(runs.stdout)
        .data.items.map((r: { id: string; state: string }) => [r.id, r.state])
        .sort(),
    ).toEqual([
      [RUNS.active, 'active'],
      [RUNS.cancelled, 'cancelled'],
    ]);
    expect((await wb('show', RUNS.active)).code).toBe(0);
    const verify = await wb('audit', 'verify');
    expect(verify.code).toBe(0);
    expect(verify.stdout).toContain('3 chain(s) verified');
  }, 60_000);

  it('workboard upgrade records its format in WORK.md as one audited commit; it still verifies; a second upgrade changes nothing', async () => {
    const { dir, wb } = await copyOfFirst();
    const workBefore = await fs.readFile(path.join(dir, 'WORK.md'), 'utf8');
    expect(workBefore).not.toMatch(/^format:/m);
    const linesBefore = (await fs.readFile(path.join(dir, 'audit/board.jsonl'), 'utf8')).trim().split('\n').length;

    const up = await wb('upgrade');
    expect(up.code).toBe(0);
    expect(up.stdout).toMatch(/^upgraded board example from format 1 \(not recorded: written before boards recorded their format\) to format 1; /);
    const work = await fs.readFile(path.join(dir, 'WORK.md'), 'utf8');
    // Right after `schema`, and the rest of WORK.md as it was but its rev.
    expect(work.split('\n').slice(0, 3)).toEqual(['---', 'schema: workboard/v1', 'format: 1']);
    expect(work.replace('format: 1\n', '').replace(/^rev: \d+$/m, 'rev: N')).toBe(workBefore.replace(/^rev: \d+$/m, 'rev: N'));
    const lines = (await fs.readFile(path.join(dir, 'audit/board.jsonl'), 'utf8'))
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines).toHaveLength(linesBefore + 1);
    expect(lines.at(-1)).toMatchObject({ actor: 'mira@example.com', action: 'board.upgraded', entity: 'WORK.md', input: { changes: { change: 'format 1', from: 1, to: 1 } } });
    expect((await wb('audit', 'verify')).code).toBe(0);
    expect((await wb('show', RUNS.active)).code).toBe(0);

    const before = await snapshotDir(dir);
    const again = await wb('upgrade');
    expect(again.code).toBe(0);
    expect(again.stdout).toBe('board example is format 1, the newest this workboard writes; nothing changed\n');
    expect(await snapshotDir(dir)).toEqual(before);
  }, 60_000);
});

describe('a board of a newer format', () => {
  it('is refused by every command in one line, and nothing of it changes', async () => {
    const { dir, wb } = await copyOfFirst();
    // What a later workboard might write: a newer format, and a setting this one has never heard of.
    const work = await fs.readFile(path.join(dir, 'WORK.md'), 'utf8');
    await fs.writeFile(path.join(dir, 'WORK.md'), work.replace('schema: workboard/v1\n', 'schema: workboard/v1\nformat: 2\nreplicas: 3\n'));
    await fs.mkdir(path.join(dir, '.work'), { recursive: true });
    const before = await snapshotDir(dir, { includeState: true });
    const line = 'error (invalid): this board is format 2, written by a newer workboard; this workboard reads formats up to 1: install a newer workboard (nothing was changed)\n';
    for (const args of [
      ['runs'],
      ['show', RUNS.active],
      ['upgrade'],
      ['doctor'],
      ['start', 'expense-approval', '--input', 'claimant=mira@example.com', '--input', 'amount=5', '--input', 'receiptUrl=https://example.com/x'],
      ['serve'],
    ]) {
      const r = await wb(...args);
      expect({ args, code: r.code === 0, stderr: stripVTControlCharacters(r.stderr) }).toEqual({ args, code: false, stderr: line });
    }
    expect(await snapshotDir(dir, { includeState: true })).toEqual(before);
  }, 90_000);
});

describe('a newer format arriving while serve runs', () => {
  it('a hand edit (or a pull) of WORK.md to a newer format is refused and logged; the board keeps its format', async () => {
    const { dir } = await copyOfFirst();
    const s = await serveOps(dir);
    try {
      const work = await fs.readFile(path.join(dir, 'WORK.md'), 'utf8');
      const chain = await fs.readFile(path.join(dir, 'audit/board.jsonl'), 'utf8');
      await fs.writeFile(path.join(dir, 'WORK.md'), work.replace('schema: workboard/v1\n', 'schema: workboard/v1\nformat: 2\n'));
      await until(() => (s.lines().some((l) => l.includes('refused an edit') && l.includes('format 2, written by a newer workboard')) ? true : undefined), 30_000);
      // Not adopted: the board's chain has no new line.
      expect(await fs.readFile(path.join(dir, 'audit/board.jsonl'), 'utf8')).toBe(chain);
    } finally {
      await s.stop();
    }
  }, 60_000);
});

describe('doctor and the signing key', () => {
  it('names the signing key on record for this machine once .work/ has lost it, and is quiet while it is there', async () => {
    const h = await Harness.open({ groups: { finance: ['fin@example.com'] }, processes: [{ folder: 'claim-review', roles: { 'finance-approver': 'finance' } }] });
    await h.start('claim-review', { claimant: 'ann@example.com', amount: 3 });
    const kinds = async () => (await doctorFindings(h.board, h.service)).filter((f) => f.kind === 'signing-key');
    expect(await kinds()).toEqual([]);
    await fs.rm(path.join(h.root, '.work/audit-key.pem'));
    const found = await kinds();
    expect(found).toHaveLength(1);
    expect(found[0]!.where).toBe('.work/audit-key.pem');
    expect(found[0]!.detail).toMatch(/^missing: this machine \(.+\) signed audit lines with key [0-9a-f]+ \(on record in audit\/keys\/\), but its private key is gone; restore/);
  }, 60_000);
});
