/**
 * `workboard validate`: every issue printed at once as `file:line:col: path: message`,
 * exit 1 when any file is invalid and 0 when all are valid; `--json` prints exactly
 * one JSON object; `--profiles` decides which profiles count as enabled.
 */
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt, workboard } from '../support/cli-run.js';
import { cleanupTmp, tmpDir } from '../support/tmp-board.js';

beforeAll(ensureBuilt, 120_000);
afterAll(cleanupTmp);

const VALID = `---
name: expense-check
description: Check an expense claim and approve it.
steps:
  - id: review
    agent: Check the receipt against the amount claimed.
  - id: paid
    finish: paid
---
# Expense check
`;

// Two problems: an unknown top-level key on line 4, and a bad step id on line 6.
const INVALID = `---
name: bad-one
description: A process with two problems.
colour: blue
steps:
  - id: Not-An-Id
    agent: Do the thing.
  - id: done
    finish: done
---
`;

const PARALLEL = `---
name: fanout
description: Two halves at once.
steps:
  - id: split
    parallel: [left, right]
    next: done
  - id: left
    agent: Do the left half.
    next: join
  - id: right
    agent: Do the right half.
    next: join
  - id: done
    finish: done
---
`;

async function folder(base: string, name: string, text: string): Promise<string> {
  await fs.mkdir(path.join(base, name), { recursive: true });
  await fs.writeFile(path.join(base, name, 'PROCESS.md'), text);
  return `${name}/PROCESS.md`;
}

const ISSUE_LINE = /^(.+):(\d+):(\d+): (\S+): (.+)$/;

describe('workboard validate', () => {
  it('prints every issue of an invalid file as file:line:col: path: message and exits 1', async () => {
    const cwd = await tmpDir();
    const file = await folder(cwd, 'bad-one', INVALID);
    const r = await workboard(['validate', file], { cwd });
    expect(r.code).toBe(1);
    const lines = r.stdout.trim().split('\n');
    expect(lines.length).toBeGreaterThanOrEqual(2);
    const parsed = lines.map((l) => {
      const m = ISSUE_LINE.exec(l);
      expect(m, `not file:line:col: path: message: ${l}`).not.toBeNull();
      return { file: m![1], line: Number(m![2]), col: Number(m![3]), path: m![4] };
    });
    for (const p of parsed) {
      expect(p.file).toBe(file);
      expect(p.col).toBeGreaterThanOrEqual(1);
    }
    expect(parsed).toEqual(expect.arrayContaining([expect.objectContaining({ path: 'colour', line: 4 }), expect.objectContaining({ path: 'steps[0].id', line: 6 })]));
  });

  it('exits 0 on valid files, given as files or as folders searched for PROCESS.md', async () => {
    const cwd = await tmpDir();
    await folder(cwd, 'procs/expense-check', VALID);
    await folder(cwd, 'procs/fanout', PARALLEL);
    const [byFolder, byFile] = await Promise.all([workboard(['validate', 'procs'], { cwd }), workboard(['validate', 'procs/expense-check/PROCESS.md'], { cwd })]);
    expect(byFolder.code, byFolder.stdout + byFolder.stderr).toBe(0);
    expect(byFolder.stdout).toContain('procs/expense-check/PROCESS.md');
    expect(byFolder.stdout).toContain('procs/fanout/PROCESS.md');
    expect(byFile.code).toBe(0);
  });

  it('exits 1 when one file of several is invalid, still reporting the valid ones', async () => {
    const cwd = await tmpDir();
    await folder(cwd, 'procs/expense-check', VALID);
    await folder(cwd, 'procs/bad-one', INVALID);
    const r = await workboard(['validate', 'procs'], { cwd });
    expect(r.code).toBe(1);
    expect(r.stdout).toContain('procs/expense-check/PROCESS.md');
    expect(r.stdout.split('\n').filter((l) => l.startsWith('procs/bad-one/PROCESS.md:')).length).toBeGreaterThanOrEqual(2);
  });

  it('--json prints exactly one JSON object, for valid and invalid input alike', async () => {
    const cwd = await tmpDir();
    const good = await folder(cwd, 'expense-check', VALID);
    const bad = await folder(cwd, 'bad-one', INVALID);
    const [g, b] = await Promise.all([workboard(['--json', 'validate', good], { cwd }), workboard(['validate', '--json', bad], { cwd })]);
    expect(g.code).toBe(0);
    expect(b.code).toBe(1);
    for (const r of [g, b]) {
      const v = JSON.parse(r.stdout) as unknown; // throws on anything but one JSON value
      expect(typeof v === 'object' && v !== null && !Array.isArray(v)).toBe(true);
    }
    const gv = JSON.parse(g.stdout) as { ok: boolean };
    const bv = JSON.parse(b.stdout) as { ok: boolean; files: { file: string; ok: boolean; issues: { path: string; message: string; line?: number }[] }[] };
    expect(gv.ok).toBe(true);
    expect(bv.ok).toBe(false);
    expect(bv.files).toHaveLength(1);
    expect(bv.files[0]!.ok).toBe(false);
    expect(bv.files[0]!.issues.map((i) => i.path)).toEqual(expect.arrayContaining(['colour', 'steps[0].id']));
  });

  it('--profiles none refuses a process with a parallel step, naming parallel-1; the default accepts it', async () => {
    const cwd = await tmpDir();
    const file = await folder(cwd, 'fanout', PARALLEL);
    const [none, all] = await Promise.all([workboard(['validate', '--profiles', 'none', file], { cwd }), workboard(['validate', file], { cwd })]);
    expect(none.code).toBe(1);
    const issue = none.stdout.split('\n').find((l) => l.includes('parallel-1'));
    expect(issue, none.stdout).toBeDefined();
    expect(issue).toMatch(ISSUE_LINE);
    expect(issue!.startsWith(`${file}:6:`)).toBe(true); // the `parallel:` line
    expect(all.code, all.stdout).toBe(0);
  });

  it('reports a path that does not exist, and exits 1', async () => {
    const cwd = await tmpDir();
    const r = await workboard(['validate', 'no/such/PROCESS.md'], { cwd });
    expect(r.code).toBe(1);
    expect(r.stdout + r.stderr).toContain('no/such/PROCESS.md');
  });
});
