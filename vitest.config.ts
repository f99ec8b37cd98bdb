import { defineConfig } from 'vitest/config';
import LongestFirst from './test/support/longest-first.js';

/**
 * Files that need a module graph of their own: two replace modules with
 * `vi.mock`, which a shared graph would have loaded already or would keep
 * for the next file; two count this process's fsyncs (`fsyncCount`), which
 * whatever an earlier file left running in a shared graph (a commit log's
 * idle checkpoint, say) can add to: commit-log-room once counted 40 for 39.
 */
export const ISOLATED = ['test/board/byte-identity.test.ts', 'test/notify/courier-again.test.ts', 'test/board/commit-log-room.test.ts', 'test/board/group-commit.test.ts'];

// Node reads and parses the whole bundle NODE_EXTRA_CA_CERTS names at every start (about 40 ms on a 2-core
// machine), and the suite starts some 1,500 node processes (CLI calls, serves, MCP servers). None of them
// makes a TLS connection: the tests talk plain HTTP on loopback. So the workers, and what they start, go without.
delete process.env.NODE_EXTRA_CA_CERTS;

// WB_CPU_TSV=<file>: each file's CPU, its own and its children's, appended to <file> (CONTRIBUTING.md "Test").
const cpu = process.env.WB_CPU_TSV ? ['./test/support/cpu-per-file.ts'] : [];

/**
 * The two projects every run is made of: most files share one module graph
 * per worker, which saves each file importing the source afresh (a fifth of
 * the suite's CPU); the files in ISOLATED get their own. `include`: the files
 * to run (vitest.quick.config.ts runs fewer); `isolated`: those of ISOLATED
 * among them.
 */
export function projects(include: string[], isolated: string[]) {
  return [
    { extends: true as const, test: { name: 'shared', include, exclude: ISOLATED, isolate: false, setupFiles: ['./test/support/shared-worker.ts', ...cpu] } },
    { extends: true as const, test: { name: 'isolated', include: isolated, setupFiles: cpu } },
  ];
}

export default defineConfig({
  test: {
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // Two files at a time: most tests wait on child processes, git and fsync rather than
    // on a core, so two overlap well on CI's 2 cores (vitest's default there is one).
    // WB_TEST_WORKERS=<n> tries another count (the command line's --maxWorkers does not reach the projects).
    maxWorkers: Number(process.env.WB_TEST_WORKERS) || 2,
    // The longest files first, by measured durations, so both workers end together.
    sequence: { sequencer: LongestFirst },
    reporters: ['default', './test/support/summary-reporter.ts'],
    projects: projects(['test/**/*.test.ts'], ISOLATED),
  },
});
