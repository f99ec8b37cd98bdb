/**
 * Spare files (spares.ts): a lock file or journal this process is done with is
 * kept and written again, rather than deleted and created anew. What must hold:
 * a recycled file appears whole and only where nothing is (exclusive, like
 * O_EXCL); a spare with a second name is never written (it could be someone's
 * file); a process removes its spares at exit, and recovery removes those of a
 * process killed before it could. Real files; real OS processes for exit and kill.
 */
import { spawn } from 'node:child_process';
import { promises as fs, statSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Spares } from '../../src/board/spares.js';
import { ensureBuilt, ROOT, workboard } from '../support/cli-run.js';
import { cleanupTmp, tmpDir } from '../support/tmp-board.js';

beforeAll(ensureBuilt, 300_000);
afterAll(cleanupTmp);

const spareNames = async (root: string) => (await fs.readdir(path.join(root, '.work', 'spare')).catch(() => [] as string[])).sort();

describe('spare files', () => {
  it('gives a removed file back as the next one created: same inode, only the new bytes, and nothing left in the spare folder', async () => {
    const root = await tmpDir();
    const spares = Spares.of(root);
    const a = path.join(root, '.work', 'locks', 'a.lock');
    const b = path.join(root, '.work', 'locks', 'b.lock');
    expect(await spares.create(a, 'a much longer first content than the second')).toBe(true);
    const ino = statSync(a).ino;
    expect(await spares.remove(a)).toBe(true);
    expect(await fs.stat(a).catch(() => null)).toBeNull();
    expect((await spareNames(root)).length).toBe(1);
    expect(await spares.create(b, 'second')).toBe(true);
    expect(statSync(b).ino).toBe(ino);
    expect(await fs.readFile(b, 'utf8')).toBe('second');
    expect(statSync(b).nlink).toBe(1);
    expect(await spareNames(root)).toEqual([]);
    expect(await spares.remove(a)).toBe(false);
  });

  it('is exclusive: creating where a file is fails and leaves that file as it was, and the spare serves the next create', async () => {
    const root = await tmpDir();
    const spares = Spares.of(root);
    const taken = path.join(root, '.work', 'locks', 'taken.lock');
    const spare = path.join(root, '.work', 'locks', 'spare.lock');
    await fs.mkdir(path.dirname(taken), { recursive: true });
    await fs.writeFile(taken, 'held by someone else');
    await fs.writeFile(spare, 'x');
    await spares.remove(spare);
    expect(await spares.create(taken, 'mine')).toBe(false);
    expect(await fs.readFile(taken, 'utf8')).toBe('held by someone else');
    const next = path.join(root, '.work', 'journal', 'run-x.json');
    expect(await spares.create(next, '{"v":2}\n')).toBe(true);
    expect(await fs.readFile(next, 'utf8')).toBe('{"v":2}\n');
    expect(await spareNames(root)).toEqual([]);
  });

  it('never writes a spare that has another name: that name keeps its bytes and the create makes a new file', async () => {
    const root = await tmpDir();
    const spares = Spares.of(root);
    const f = path.join(root, '.work', 'locks', 'f.lock');
    await fs.mkdir(path.dirname(f), { recursive: true });
    await fs.writeFile(f, 'precious');
    await spares.remove(f);
    const [name] = await spareNames(root);
    const other = path.join(root, 'elsewhere.txt');
    await fs.link(path.join(root, '.work', 'spare', name!), other);
    const g = path.join(root, '.work', 'locks', 'g.lock');
    expect(await spares.create(g, 'new')).toBe(true);
    expect(await fs.readFile(other, 'utf8')).toBe('precious');
    expect(await fs.readFile(g, 'utf8')).toBe('new');
    expect(statSync(g).ino).not.toBe(statSync(other).ino);
  });

  it('leaves no spare behind when a process exits, and recovery removes those of a process killed with its spares', async () => {
    const root = await tmpDir();
    const child = (mode: 'exit' | 'hang') =>
      spawn(
        process.execPath,
        [
          '--input-type=module',
          '-e',
          `
        const { Spares } = await import(${JSON.stringify(path.join(ROOT, 'dist/board/spares.js'))});
        const { writeFileSync, mkdirSync } = await import('node:fs');
        const root = ${JSON.stringify(root)};
        mkdirSync(root + '/.work/locks', { recursive: true });
        const s = Spares.of(root);
        for (let i = 0; i < 3; i++) { const f = root + '/.work/locks/' + process.pid + '-' + i + '.lock'; writeFileSync(f, 'x'); await s.remove(f); }
        process.stdout.write('parked\\n');
        if (${JSON.stringify(mode)} === 'hang') setInterval(() => {}, 1000);
      `,
        ],
        { stdio: ['ignore', 'pipe', 'inherit'] },
      );
    const parked = (c: ReturnType<typeof child>) => new Promise<void>((resolve) => c.stdout.on('data', (d: Buffer) => d.toString().includes('parked') && resolve()));
    const exits = (c: ReturnType<typeof child>) => new Promise<void>((resolve) => c.on('exit', () => resolve()));

    const clean = child('exit');
    await parked(clean);
    await exits(clean);
    expect(await spareNames(root)).toEqual([]);

    const killed = child('hang');
    await parked(killed);
    expect((await spareNames(root)).length).toBe(3);
    killed.kill('SIGKILL');
    await exits(killed);
    expect((await spareNames(root)).length).toBe(3);
    const init = await workboard(['init'], { cwd: root });
    expect(init.code, init.stderr).toBe(0);
    const doctor = await workboard(['doctor'], { cwd: root });
    expect(doctor.code, doctor.stdout + doctor.stderr).toBe(0);
    expect(await spareNames(root)).toEqual([]);
  }, 60_000);
});
