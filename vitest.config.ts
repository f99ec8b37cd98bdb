import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // Two files at a time: most tests wait on child processes, git and fsync rather than
    // on a core, so two overlap well on CI's 2 cores (vitest's default there is one).
    maxWorkers: 2,
    reporters: ['default', './test/support/summary-reporter.ts'],
  },
});
