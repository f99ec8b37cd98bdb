/**
 * How many rounds a simulation runs: a modest number in `npm test`, and the
 * full soak under `npm run test:soak` (WB_SOAK=1), so the suite stays within
 * its time and the long runs stay one command away (CONTRIBUTING.md, "Tests").
 */
export function rounds(suite: number, soak: number): number {
  return process.env.WB_SOAK === '1' ? soak : suite;
}
