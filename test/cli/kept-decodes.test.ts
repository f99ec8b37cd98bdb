/**
 * Decodes kept across CLI calls (src/board/kept-decodes.ts,
 * docs/architecture.md "Decodes kept across processes"), through the real
 * binary: what a call reads is always what WORK.md and the published
 * processes say now. A hand edit, valid or not, is read afresh; a torn or
 * hand-edited record is decoded again; a record git brought is never
 * believed, even with the right hash and build.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt, workboard } from '../support/cli-run.js';
import { cleanupTmp, tmpDir } from '../support/tmp-board.js';

beforeAll(ensureBuilt, 120_000);
afterAll(cleanupTmp);

const RECORD = '.work/decoded/WORK.md.json';
const EXAMPLE = fileURLToPath(new URL('../../examples/board', import.meta.url));
const git = (cwd: string, ...args: string[]) => execFileSync('git', ['-c', 'user.email=t@example.com', '-c', 'user.name=T', ...args], { cwd, encoding: 'utf8' });

async function board(): Promise<string> {
  const dir = path.join(await tmpDir(), 'ops');
  expect((await workboard(['init', dir, '--git'], { cwd: path.dirname(dir) })).code).toBe(0);
  expect((await workboard(['person', 'add', 'ana@example.com', '--as', 'ana@example.com'], { cwd: dir })).code).toBe(0);
  return dir;
}

/** Who may act, as the refusal of an unknown identity lists them. */
async function known(dir: string): Promise<string> {
  const r = await workboard(['--as', 'nobody@example.com', 'inbox'], { cwd: dir });
  expect(r.code).toBe(1);
  return /known: ([^)]*)\)/.exec(r.stderr)?.[1] ?? r.stderr;
}

interface Kept<T> {
  build: string;
  sha256: string;
  variant: string;
  sum: string;
  answer: T;
}
/** A kept record: of WORK.md's decode unless another record and answer are named. */
const kept = async <T = { sha256: string; data: { people: { email: string }[] } }>(dir: string, record = RECORD) => JSON.parse(await fs.readFile(path.join(dir, record), 'utf8')) as Kept<T>;
/** A record with another answer and that answer's checksum: what only a deliberate forger writes. */
const withAnswer = <T>(k: Kept<T>, answer: T): Kept<T> => ({ ...k, answer, sum: createHash('sha256').update(JSON.stringify(answer)).digest('hex') });
const sha256 = async (file: string) =>
  createHash('sha256')
    .update(await fs.readFile(file))
    .digest('hex');

describe("WORK.md's decode kept across CLI calls", () => {
  it('is kept for the bytes WORK.md has, and a hand edit is read afresh, valid or not', async () => {
    const dir = await board();
    const work = path.join(dir, 'WORK.md');
    expect(await known(dir)).toBe('ana@example.com');
    expect((await kept(dir)).answer.sha256).toBe(await sha256(work));

    const before = await fs.readFile(work, 'utf8');
    await fs.writeFile(work, before.replace('  - email: ana@example.com\n', '  - email: ana@example.com\n  - email: bo@example.com\n'));
    expect(await known(dir)).toBe('ana@example.com, bo@example.com');
    expect((await kept(dir)).answer.sha256).toBe(await sha256(work));

    const valid = await kept(dir);
    await fs.writeFile(work, (await fs.readFile(work, 'utf8')).replace('leaseSeconds: 600', 'leaseSeconds: soon'));
    const r = await workboard(['--as', 'ana@example.com', 'inbox'], { cwd: dir });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/WORK\.md: coordination\.leaseSeconds/);
    expect(await kept(dir), 'an invalid WORK.md is never kept').toEqual(valid);
  });

  it('decodes again over a torn record, one another build wrote, or one cut short by hand', async () => {
    const dir = await board();
    await known(dir);
    await fs.writeFile(path.join(dir, RECORD), '{"build":"');
    expect(await known(dir)).toBe('ana@example.com');
    const whole = await kept(dir);
    expect(whole.answer.sha256).toBe(await sha256(path.join(dir, 'WORK.md')));

    // Another build's record, claiming someone WORK.md does not name: not read.
    const forged = withAnswer({ ...whole, build: 'another build' }, { ...whole.answer, data: { ...whole.answer.data, people: [{ email: 'mallory@example.com' }] } });
    await fs.writeFile(path.join(dir, RECORD), JSON.stringify(forged));
    expect(await known(dir)).toBe('ana@example.com');
    expect((await kept(dir)).build).toBe(whole.build);

    // This build's record for these bytes, with its data cut out by hand, or edited and its checksum not: decoded again, not a crash.
    const { data: _data, ...cut } = whole.answer;
    for (const answer of [cut, { ...whole.answer, data: { ...whole.answer.data, people: [{ email: 'mallory@example.com' }] } }]) {
      await fs.writeFile(path.join(dir, RECORD), JSON.stringify({ ...whole, answer }));
      expect(await known(dir)).toBe('ana@example.com');
      expect(await kept(dir)).toEqual(whole);
    }
  });

  it('never believes a record git brought, though its hash and build match', async () => {
    const dir = await board();
    await known(dir);
    const whole = await kept(dir);
    const forged = withAnswer(whole, { ...whole.answer, data: { ...whole.answer.data, people: [{ email: 'mallory@example.com' }] } });
    await fs.writeFile(path.join(dir, RECORD), JSON.stringify(forged));
    // As a collaborator's `git add -f` would bring it: the bytes git has for it are the bytes on disk.
    git(dir, 'add', '-f', '--sparse', RECORD);
    git(dir, 'commit', '-qm', 'planted');
    expect(await known(dir)).toBe('ana@example.com');
    // Once git no longer has it, it is this coordinator's own record: the one it writes again over the forged one.
    git(dir, 'rm', '-q', '--cached', '--sparse', RECORD);
    git(dir, 'commit', '-qm', 'unplanted');
    expect(await known(dir)).toBe('ana@example.com');
  });

  it('keeps a published process as checked at publication, and still refuses its PROCESS.md once changed by hand', async () => {
    const dir = path.join(await tmpDir(), 'board');
    await fs.cp(EXAMPLE, dir, { recursive: true });
    const version = 'processes/expense-approval/v3';
    const processes = () => workboard(['--as', 'mira@example.com', 'processes'], { cwd: dir });
    const listed = await processes();
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stdout).toContain('expense-approval v3');

    // Kept: the load whose hash VERSION.md records, and VERSION.md's decode.
    const record = (rel: string) => `.work/decoded/${encodeURIComponent(rel)}.json`;
    const published = /^hash: ([0-9a-f]{64})$/m.exec(await fs.readFile(path.join(dir, version, 'VERSION.md'), 'utf8'))?.[1];
    const load = await kept<{ hash: string; process: { description: string } }>(dir, record(`${version}/PROCESS.md`));
    expect(load.answer.hash).toBe(published);
    expect(load.sha256).toBe(await sha256(path.join(dir, version, 'PROCESS.md')));
    expect((await kept(dir, record(`${version}/VERSION.md`))).answer.sha256).toBe(await sha256(path.join(dir, version, 'VERSION.md')));
    expect(await processes()).toEqual(listed);

    // A record for these bytes and this build, checked against another offer: not this call's answer.
    const other = withAnswer({ ...load, variant: `${load.variant}|another offer` }, { ...load.answer, process: { ...load.answer.process, description: 'Forged.' } });
    await fs.writeFile(path.join(dir, record(`${version}/PROCESS.md`)), JSON.stringify(other));
    expect(await processes()).toEqual(listed);
    expect(await kept(dir, record(`${version}/PROCESS.md`))).toEqual(load);

    // PROCESS.md changed after publication: its kept load is for other bytes, so the change is found as without one.
    await fs.appendFile(path.join(dir, version, 'PROCESS.md'), 'One more line.\n');
    const start = await workboard(
      ['--as', 'mira@example.com', 'start', 'expense-approval', '--input', 'claimant=mira@example.com', '--input', 'amount=12', '--input', 'receiptUrl=https://example.com/r'],
      { cwd: dir },
    );
    expect(start.code).toBe(1);
    expect(start.stdout + start.stderr).toContain(`${version}/PROCESS.md was changed after publication`);
    expect((await processes()).stdout).not.toContain('expense-approval v3');
  });
});
