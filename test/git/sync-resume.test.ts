/**
 * A sync killed after it wrote its intent (.work/journal/sync.json) and
 * before it moved a file, then an agent works on this clone, then the next
 * sync finishes the intent (issue 39, item 3). The agent's acknowledged
 * transitions must survive: in the run's chain, or set aside in its
 * superseded.jsonl, committed and verifiable; `audit verify` and `audit
 * verify --git` clean on both clones. The killed state is made by writing the
 * record as sync does, after a real fetch.
 */
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt } from '../support/cli-run.js';
import { git, submitAs, twoClones, wb } from '../support/git-clones.js';

/** Every line hash of a run's chain and of its superseded branches, with who did what. */
async function linesOf(dir: string, run: string): Promise<{ chain: string[]; aside: string[] }> {
  const read = (name: string) => fs.readFile(path.join(dir, 'runs', run, name), 'utf8').catch(() => '');
  const chain = (await read('audit.jsonl'))
    .split('\n')
    .filter(Boolean)
    .map((l) => (JSON.parse(l) as { hash: string }).hash);
  const aside = (await read('superseded.jsonl'))
    .split('\n')
    .filter(Boolean)
    .flatMap((l) => (JSON.parse(l) as { lines: { hash: string }[] }).lines.map((x) => x.hash));
  return { chain, aside };
}

describe('a killed sync resumed after this clone moved', () => {
  beforeAll(async () => {
    await ensureBuilt();
  }, 600_000);

  it("the agent's claim and submit made after the intent are kept (in the chain or superseded), committed, and both verifies stay clean", async () => {
    const { a, b, run } = await twoClones();
    await submitAs(b, run, 'writer-b', 'From B.');
    expect((await wb(b, 'sync')).code).toBe(0);

    // Clone A's sync fetched, wrote its intent, and was killed before it moved a file.
    git(a, 'fetch', '-q', 'origin', 'main');
    const intent = { from: git(a, 'rev-parse', 'HEAD'), to: git(a, 'rev-parse', 'FETCH_HEAD'), ref: 'refs/heads/main' };
    await fs.mkdir(path.join(a, '.work/journal'), { recursive: true });
    await fs.writeFile(path.join(a, '.work/journal/sync.json'), `${JSON.stringify(intent)}\n`);

    // An agent works on the run meanwhile, acknowledged.
    await submitAs(a, run, 'writer-a', 'From A.');
    const chainA = (await fs.readFile(path.join(a, 'runs', run, 'audit.jsonl'), 'utf8'))
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as { hash: string; actor: string; action: string });
    const agentLines = chainA.filter((e) => e.actor === 'writer-a' && (e.action === 'step.claimed' || e.action === 'step.completed')).map((e) => e.hash);
    expect(agentLines).toHaveLength(2);

    const r = await wb(a, 'sync');
    expect(r.code, r.stderr).toBe(0);
    expect(await fs.stat(path.join(a, '.work/journal/sync.json')).catch(() => null)).toBeNull();
    const after = await linesOf(a, run);
    for (const h of agentLines) expect([...after.chain, ...after.aside], h).toContain(h);
    // Committed too: nothing of the run is left uncommitted, and the remote has it.
    expect(git(a, 'status', '--porcelain', '--', `runs/${run}`)).toBe('');
    expect((await wb(b, 'sync')).code).toBe(0);
    const onB = await linesOf(b, run);
    for (const h of agentLines) expect([...onB.chain, ...onB.aside], h).toContain(h);
    for (const dir of [a, b]) {
      for (const args of [
        ['audit', 'verify'],
        ['audit', 'verify', '--git'],
      ]) {
        const v = await wb(dir, ...args);
        expect(v.code, `${args.join(' ')}: ${v.stdout}${v.stderr}`).toBe(0);
      }
    }
  }, 600_000);
});
