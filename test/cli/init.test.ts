/**
 * `workboard init`, `--version` and usage errors, through the real binary.
 * Exit codes (src/cli/output.ts, docs/cli.md "Exit codes"): 0 ok, 1 refused, 2 usage.
 */
import { promises as fs, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseMarkdown } from '../../src/core/markdown.js';
import { ensureBuilt, ROOT, workboard } from '../support/cli-run.js';
import { cleanupTmp, snapshotDir, tmpDir } from '../support/tmp-board.js';

beforeAll(ensureBuilt, 120_000);
afterAll(cleanupTmp);

describe('workboard init', () => {
  it('creates WORK.md and a .gitignore that excludes .work/', async () => {
    const dir = path.join(await tmpDir(), 'acme-ops');
    await fs.mkdir(dir);
    const r = await workboard(['init'], { cwd: dir });
    expect(r.code, r.stderr).toBe(0);
    const work = await fs.readFile(path.join(dir, 'WORK.md'), 'utf8');
    const parsed = parseMarkdown(work);
    expect(parsed.ok).toBe(true);
    if (parsed.ok) expect(parsed.value.data).toMatchObject({ schema: 'workboard/v1', name: 'acme-ops', rev: 1 });
    const gitignore = (await fs.readFile(path.join(dir, '.gitignore'), 'utf8')).split('\n').map((l) => l.trim());
    expect(gitignore).toContain('.work/');
    // The new board verifies.
    const v = await workboard(['audit', 'verify'], { cwd: dir });
    expect(v.code, v.stdout + v.stderr).toBe(0);
  });

  it('creates the board in a named folder with --name and --title, and --json prints one object', async () => {
    const base = await tmpDir();
    const r = await workboard(['--json', 'init', 'work', '--name', 'finance', '--title', 'Finance runs'], { cwd: base });
    expect(r.code, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout) as { ok: boolean; data: { name: string; root: string } };
    expect(out.ok).toBe(true);
    expect(out.data.name).toBe('finance');
    expect(await fs.realpath(out.data.root)).toBe(await fs.realpath(path.join(base, 'work')));
    const work = await fs.readFile(path.join(base, 'work', 'WORK.md'), 'utf8');
    expect(work).toMatch(/^title: Finance runs$/m);
  });

  it('refuses a folder that already has a board (exit 1) and changes nothing', async () => {
    const dir = await tmpDir();
    expect((await workboard(['init', '--name', 'b'], { cwd: dir })).code).toBe(0);
    const before = await snapshotDir(dir);
    const r = await workboard(['init', '--name', 'b'], { cwd: dir });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/error/);
    expect(await snapshotDir(dir)).toEqual(before);
  });

  it('refuses a board name that is not lowercase words joined by hyphens (exit 1), writing no WORK.md', async () => {
    const dir = await tmpDir();
    const r = await workboard(['init', '--name', 'Not A Name'], { cwd: dir });
    expect(r.code).toBe(1);
    await expect(fs.stat(path.join(dir, 'WORK.md'))).rejects.toThrow();
  });
});

describe('version and usage', () => {
  it('--version prints the package version', async () => {
    const pkg = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { version: string };
    const r = await workboard(['--version'], { cwd: await tmpDir() });
    expect(r.code).toBe(0);
    expect(r.stdout.trim()).toBe(pkg.version);
  });

  it('exits 2 on an unknown command, an unknown option, a missing argument or a bad option value, changing nothing', async () => {
    const cwd = await tmpDir();
    await fs.mkdir(path.join(cwd, 'p'));
    await fs.writeFile(path.join(cwd, 'p', 'PROCESS.md'), '---\nname: p\ndescription: d\nsteps:\n  - id: done\n    finish: done\n---\n');
    const before = await snapshotDir(cwd);
    const cases = [['frobnicate'], ['--bogus', 'init'], ['validate', '--bogus', 'p'], ['publish'], ['validate', '--profiles', 'no-such-profile', 'p'], ['publish', 'p', '--role', 'no-equals-sign']];
    const results = await Promise.all(cases.map((args) => workboard(args, { cwd })));
    results.forEach((r, i) => expect(r.code, `workboard ${cases[i]!.join(' ')}: ${r.stderr}`).toBe(2));
    expect(results[0]!.stderr).toContain('frobnicate');
    expect(await snapshotDir(cwd)).toEqual(before);
  });

  it('a command that needs a board, run outside any board, exits 1 with one clear error line', async () => {
    const dir = await tmpDir();
    const r = await workboard(['audit', 'verify'], { cwd: dir });
    expect(r.code).toBe(1);
    expect(r.stderr.trim().split('\n')[0]).toMatch(/no board/i);
  });

  it('finds the board through --board and WORKBOARD_DIR from outside it', async () => {
    const base = await tmpDir();
    expect((await workboard(['init', 'b', '--name', 'b'], { cwd: base })).code).toBe(0);
    const elsewhere = path.join(base, 'elsewhere');
    await fs.mkdir(elsewhere);
    const [viaFlag, viaEnv] = await Promise.all([
      workboard(['--board', '../b', 'audit', 'verify'], { cwd: elsewhere }),
      workboard(['audit', 'verify'], { cwd: elsewhere, env: { WORKBOARD_DIR: path.join(base, 'b') } }),
    ]);
    expect(viaFlag.code, viaFlag.stderr).toBe(0);
    expect(viaEnv.code, viaEnv.stderr).toBe(0);
  });
});
