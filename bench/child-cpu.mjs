// A node child process timed by the CPU it used (user + system, all its threads, from its own
// process.cpuUsage() at exit) beside its wall time. On a machine other work loads, wall time
// measures the load as much as the child; CPU time mostly does not.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

const AT_EXIT = `data:text/javascript,${encodeURIComponent(
  "import { writeFileSync } from 'node:fs'; process.on('exit', () => writeFileSync(process.env.WB_BENCH_CPU_OUT, JSON.stringify(process.cpuUsage())));",
)}`;

/** Run `node <args>`; fails on a non-zero exit. Returns wall and CPU in ms. */
export function timedNode(args, options = {}) {
  const dir = mkdtempSync(path.join(tmpdir(), 'wb-bench-cpu-'));
  const out = path.join(dir, 'cpu.json');
  try {
    const t = performance.now();
    const r = spawnSync(process.execPath, ['--import', AT_EXIT, ...args], { encoding: 'utf8', maxBuffer: 1 << 28, ...options, env: { ...process.env, ...options.env, WB_BENCH_CPU_OUT: out } });
    const wallMs = performance.now() - t;
    if (r.status !== 0) throw new Error(`node ${args.join(' ')} exited ${r.status}: ${r.stderr}`);
    const cpu = JSON.parse(readFileSync(out, 'utf8'));
    return { wallMs, cpuMs: (cpu.user + cpu.system) / 1000 };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
