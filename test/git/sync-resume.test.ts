/**
 * A sync killed after it wrote its intent (.work/journal/sync.json) and
 * before it moved a file, then an agent works on this clone, then the next
 * sync finishes the intent (issue 39, item 3). The agent's acknowledged
 * transitions must survive: in the run's chain, or set aside in its
 * superseded.jsonl, committed and verifiable; `audit verify` and `audit
 * verify --git` clean on both clones. The killed state is made by writing the
 * record as sync does, after a real fetch.
 */
import { spawn } from 'node:child_process';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt } from '../support/cli-run.js';
import { git, submitAs, twoClones, wb } from '../support/git-clones.js';
import { until } from '../support/until.js';

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

/** Two clones where B submitted and synced, and A's sync fetched, wrote its intent (as sync does), and was killed before it moved a file. */
async function interruptedOnA() {
  const { a, b, run } = await twoClones();
  await submitAs(b, run, 'writer-b', 'From B.');
  expect((await wb(b, 'sync')).code).toBe(0);
  git(a, 'fetch', '-q', 'origin', 'main');
  const intent = { from: git(a, 'rev-parse', 'HEAD'), to: git(a, 'rev-parse', 'FETCH_HEAD'), ref: 'refs/heads/main' };
  await fs.mkdir(path.join(a, '.work/journal'), { recursive: true });
  await fs.writeFile(path.join(a, '.work/journal/sync.json'), `${JSON.stringify(intent)}\n`);
  return { a, b, run, intent };
}

/** `audit verify` and `audit verify --git` both exit 0 on a clone. */
async function verifiesClean(dir: string): Promise<void> {
  for (const args of [
    ['audit', 'verify'],
    ['audit', 'verify', '--git'],
  ]) {
    const v = await wb(dir, ...args);
    expect(v.code, `${args.join(' ')}: ${v.stdout}${v.stderr}`).toBe(0);
  }
}

describe('a killed sync resumed after this clone moved', () => {
  beforeAll(async () => {
    await ensureBuilt();
  }, 600_000);

  it("the agent's claim and submit made after the intent are kept (in the chain or superseded), committed, and both verifies stay clean", async () => {
    const { a, b, run } = await interruptedOnA();

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
    for (const dir of [a, b]) await verifiesClean(dir);
  }, 600_000);

  it('an agent that keeps writing while the interrupted sync is finished: merged in, or "sync again" (exit 3), never an internal error', async () => {
    const { a, run } = await interruptedOnA();

    // Writer A claims the draft on clone A and renews it every 30 ms, more often than a merge is made: each renewal is a line in the run's chain.
    const stop = path.join(a, '..', 'stop-renewing');
    const agent = spawn(process.execPath, [fileURLToPath(new URL('../support/renew-loop.mjs', import.meta.url)), a, run, 'draft', 'writer-a', stop, '30'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    agent.stdout.on('data', (d: Buffer) => (out += d.toString()));
    agent.stderr.on('data', (d: Buffer) => (err += d.toString()));
    const exited = new Promise<number | null>((resolve) => agent.on('exit', resolve));
    await until(async () => (out.includes('claimed') ? true : undefined), 60_000, 20);

    // The agent's lines as clone A holds them before each sync: what it was answered for so far.
    const written = new Set<string>();
    const note = async () => {
      for (const l of (await fs.readFile(path.join(a, 'runs', run, 'audit.jsonl'), 'utf8')).split('\n').filter(Boolean)) {
        const e = JSON.parse(l) as { hash: string; actor: string };
        if (e.actor === 'writer-a') written.add(e.hash);
      }
    };
    // Syncs while it writes: each finishes the move with the agent's lines merged in, or stops and asks for another sync.
    try {
      for (let i = 0; i < 2; i++) {
        await note();
        const r = await wb(a, 'sync');
        expect([0, 3], `sync while the agent writes: ${r.stderr}`).toContain(r.code);
        if (r.code === 3) expect(r.stderr).toMatch(/sync again/);
      }
    } finally {
      // The agent stops however the syncs went: a test that failed leaves no process writing behind it.
      await fs.writeFile(stop, '');
    }
    expect(await exited, err).toBe(0);
    expect(out).toMatch(/renewed [1-9]/);
    await note();

    // Once it stops, a sync finishes; every line the agent was answered for is in the run's chain or set aside.
    const last = await wb(a, 'sync');
    expect(last.code, last.stderr).toBe(0);
    expect(await fs.stat(path.join(a, '.work/journal/sync.json')).catch(() => null)).toBeNull();
    const after = await linesOf(a, run);
    expect(written.size).toBeGreaterThan(1);
    for (const h of written) expect([...after.chain, ...after.aside], h).toContain(h);
    expect(git(a, 'status', '--porcelain', '--', `runs/${run}`)).toBe('');
    await verifiesClean(a);
  }, 600_000);

  it('a sync that cannot reach the remote still finishes the interrupted one, and says so in its one line', async () => {
    const { a, run, intent } = await interruptedOnA();
    const url = git(a, 'remote', 'get-url', 'origin');
    git(a, 'remote', 'set-url', 'origin', path.join(path.dirname(a), 'no-such-remote.git'));
    try {
      const r = await wb(a, 'sync');
      expect(r.code).not.toBe(0);
      const lines = r.stderr.split('\n').filter((l) => l.trim() !== '');
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatch(/cannot reach origin/);
      expect(lines[0]).toContain('this clone finished the sync that was interrupted here before, and changed nothing else');
      expect(lines[0]).not.toContain('nothing was changed');
      // Finished: the branch is where that sync was going, B's submission is on the board, and the intent is gone.
      expect(git(a, 'rev-parse', 'HEAD')).toBe(intent.to);
      expect(await fs.readFile(path.join(a, 'runs', run, 'draft.md'), 'utf8')).toContain('From B.');
      expect(await fs.stat(path.join(a, '.work/journal/sync.json')).catch(() => null)).toBeNull();
      // The next sync that cannot reach it has nothing to finish, and changes nothing.
      const again = await wb(a, 'sync');
      expect(again.code).not.toBe(0);
      expect(again.stderr).toMatch(/nothing was changed/);
    } finally {
      git(a, 'remote', 'set-url', 'origin', url);
    }
  }, 600_000);
});
