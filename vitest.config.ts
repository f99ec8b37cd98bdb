import { defineConfig } from 'vitest/config';
import LongestFirst from './test/support/longest-first.js';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // Two files at a time: most tests wait on child processes, git and fsync rather than
    // on a core, so two overlap well on CI's 2 cores (vitest's default there is one).
    maxWorkers: 2,
    // The longest files first, by measured durations, so both workers end together.
    sequence: { sequencer: LongestFirst },
    reporters: ['default', './test/support/summary-reporter.ts'],
    // WB_CPU_TSV=<file>: each file's CPU, its own and its children's, appended to <file> (CONTRIBUTING.md "Test").
    setupFiles: process.env.WB_CPU_TSV ? ['./test/support/cpu-per-file.ts'] : [],
  },
});
