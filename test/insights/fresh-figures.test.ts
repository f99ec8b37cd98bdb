/**
 * `workboard stats` keeps the facts it read in `.work/insights.json` for the
 * next process; the chains stay the record. A chain git replaces and a chain
 * edited by hand in place (longer, or the same size) must show in the very
 * next `stats`, each a fresh CLI process on real files.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync, appendFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { ensureBuilt, workboard } from '../support/cli-run.js';

let dir: string;

async function stats(): Promise<any> {
  const r = await workboard(['--board', dir, 'stats', '--json', '--tests'], { cwd: dir });
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.stdout).data;
}

const git = (...args: string[]) => execFileSync('git', ['-c', 'user.name=Test', '-c', 'user.email=test@example.com', ...args], { cwd: dir, stdio: 'pipe' });
const chainOf = (id: string) => path.join(dir, 'runs', id, 'audit.jsonl');
const linesOf = (id: string) =>
  readFileSync(chainOf(id), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l));
const runIds = () =>
  readdirSync(path.join(dir, 'runs'))
    .filter((n) => n.startsWith('r-'))
    .sort();
const endedBy = (id: string) => linesOf(id).find((l) => l.action === 'run.ended' || l.action === 'run.cancelled');

beforeAll(async () => {
  await ensureBuilt();
  const mod = await import('../../bench/gen-insights.mjs');
  dir = mkdtempSync(path.join(os.tmpdir(), 'wb-insights-fresh-'));
  await mod.generateInsightsBoard(dir, { runs: 12 });
  git('init', '-q', '-b', 'main');
  git('add', '-A');
  git('commit', '-q', '-m', 'the board as generated');
}, 300_000);

afterAll(() => rmSync(dir, { recursive: true, force: true }));

it('a chain git brings in is counted by the next stats, not the kept facts', async () => {
  const paid = runIds().find((id) => endedBy(id)?.input?.changes?.outcome === 'paid')!;
  expect(paid).toBeDefined();
  // On another branch the run has not ended yet: its chain without the run.ended line.
  git('checkout', '-q', '-b', 'earlier');
  writeFileSync(
    chainOf(paid),
    linesOf(paid)
      .filter((l) => l.action !== 'run.ended')
      .map((l) => `${JSON.stringify(l)}\n`)
      .join(''),
  );
  git('commit', '-q', '-am', 'the run before it ended');
  git('checkout', '-q', 'main');

  const before = await stats();
  expect(existsSync(path.join(dir, '.work', 'insights.json'))).toBe(true);
  expect(await stats()).toMatchObject({ runs: before.runs }); // a warm one, from the kept facts, agrees

  git('checkout', '-q', 'earlier');
  const after = await stats();
  expect(after.runs.ended).toBe(before.runs.ended - 1);
  expect(after.runs.open).toBe(before.runs.open + 1);
  expect(after.runs.byOutcome.paid).toBe(before.runs.byOutcome.paid - 1);
  git('checkout', '-q', 'main');
  expect((await stats()).runs).toEqual(before.runs);
}, 120_000);

it('a chain edited by hand in place is counted by the next stats, a same-size edit included', async () => {
  const before = await stats();
  const open = runIds().find((id) => endedBy(id) === undefined)!;
  expect(open).toBeDefined();
  const last = linesOf(open).at(-1);
  const cancelled = { ts: new Date(Date.parse(last.ts) + 60_000).toISOString(), actor: 'mira@example.com', action: 'run.cancelled', entity: `run:${open}` };
  appendFileSync(chainOf(open), `${JSON.stringify(cancelled)}\n`);
  const after = await stats();
  expect(after.runs.open).toBe(before.runs.open - 1);
  expect(after.runs.byOutcome.cancelled ?? 0).toBe((before.runs.byOutcome.cancelled ?? 0) + 1);

  // A rejection's note changed to another of the same length: same size, same inode.
  const rejected = runIds().find((id) => linesOf(id).some((l) => l.action === 'step.rejected' && l.input?.changes?.note === 'The receipt is missing.'))!;
  expect(rejected).toBeDefined();
  const text = readFileSync(chainOf(rejected), 'utf8');
  const edited = text.replace('The receipt is missing.', 'The receipt is MISSING.');
  expect(edited.length).toBe(text.length);
  writeFileSync(chainOf(rejected), edited);
  const notes = (await stats()).rework.flatMap((r: any) => r.topNotes);
  expect(notes).toContainEqual({ note: 'The receipt is MISSING.', count: 1 });
}, 120_000);
