/**
 * A setup file, loaded only when WB_CPU_TSV names a file (vitest.config.ts):
 * after each test file it appends one line to that file with the CPU seconds
 * the file's worker used and the CPU seconds of the children it reaped (CLI
 * calls, serves, git, chromium), read from /proc/self/stat. CPU, unlike wall
 * time, stays the same when other work shares the machine, so a whole run
 * on a busy machine still says what each file costs (CONTRIBUTING.md "Test").
 * Lines: path, own CPU s, children's CPU s, wall s, all tab-separated.
 */
import { appendFileSync, readFileSync } from 'node:fs';
import { afterAll, expect } from 'vitest';

const CLOCK_TICKS = 100;

/** [own, reaped children's] CPU ticks of this process so far (utime+stime, cutime+cstime). */
function ticks(): [number, number] {
  const stat = readFileSync('/proc/self/stat', 'utf8');
  // The fields after the command name, which is in parentheses and may hold spaces: utime is the 12th.
  const f = stat
    .slice(stat.lastIndexOf(')') + 2)
    .split(' ')
    .map(Number);
  return [(f[11] ?? 0) + (f[12] ?? 0), (f[13] ?? 0) + (f[14] ?? 0)];
}

const out = process.env.WB_CPU_TSV;
const [own0, children0] = ticks();
const started = Date.now();

if (out) {
  afterAll(() => {
    const [own, children] = ticks();
    const file = path(expect.getState().testPath ?? 'unknown');
    appendFileSync(out, `${file}\t${(own - own0) / CLOCK_TICKS}\t${(children - children0) / CLOCK_TICKS}\t${(Date.now() - started) / 1000}\n`);
  });
}

function path(abs: string): string {
  const root = `${process.cwd()}/`;
  return abs.startsWith(root) ? abs.slice(root.length) : abs;
}
