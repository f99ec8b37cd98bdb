/**
 * `npm run test:quick`, the inner loop: the pure modules and the fast
 * in-process board tests, chosen by measured duration (CONTRIBUTING.md,
 * "Test"). `npm test` runs these and everything else.
 */
import { defineConfig } from 'vitest/config';
import base, { ISOLATED, projects } from './vitest.config.js';

// A file of ISOLATED is named whole here, so that it is found in this list and runs in its own project.
const QUICK = [
  'test/architecture/*.test.ts',
  'test/core/*.test.ts',
  'test/engine/*.test.ts',
  'test/evaluator/*.test.ts',
  'test/words/*.test.ts',
  'test/process/{conformance,corpus,graph,hash,parse,route-paths}.test.ts',
  'test/board/byte-identity.test.ts',
  'test/board/commit-log-room.test.ts',
  'test/board/{cas,changes,codec,commit-plan,commit-value,journal,listing,plain-yaml,run-watch,schemas,state,validators}.test.ts',
  'test/notify/{message,rules,time-zone}.test.ts',
  'test/service/{paging,run-summary-scan}.test.ts',
  'test/web/{form-values,next-page,self-signin-rules}.test.ts',
  'test/cli/command-table.test.ts',
  'test/git/merge-run.test.ts',
  'test/insights/figures.test.ts',
  'test/mcp/client-address.test.ts',
  'test/protocol/tool-args.test.ts',
];

export default defineConfig({
  ...base,
  test: {
    ...base.test,
    projects: projects(
      QUICK,
      ISOLATED.filter((f) => QUICK.includes(f)),
    ),
  },
});
