/**
 * Sync's intent file under a real SIGKILL (docs/architecture.md "Recovery"):
 * a `workboard sync` bringing in runs another clone started is killed while
 * it applies them, after some scopes were committed and before the others,
 * with its intent (.work/journal/sync.json) on disk. The next `workboard
 * sync` finishes the move: the work tree is the branch's commit, every run
 * is as the other clone made it, `audit verify` and `doctor` are clean.
 *
 * No test-only hook: the kill follows the first scope's commit, seen as the
 * change log (.work/changes) growing while the intent exists. Each scope's
 * commit flushes, so the apply of a dozen runs lasts long enough to land in;
 * when a kill misses the window on a loaded machine (the sync already done,
 * or not yet begun), the round is settled and tried again, and the rounds
 * needed are printed.
 */
import { spawn } from 'node:child_process';
import { existsSync, statSync, watch } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { BIN, ensureBuilt } from '../support/cli-run.js';
import { boardFiles, git, twoClones, wb } from '../support/git-clones.js';

/** Runs each round brings to the clone whose sync is killed. */
const RUNS = 8;
const ROUNDS = 6;

beforeAll(ensureBuilt, 600_000);

/** The CLI's environment for a test: this process's minus any WORKBOARD_* variable. */
function cliEnv(): Record<string, string> {
  const env: Record<string, string> = { NO_COLOR: '1' };
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined && !k.startsWith('WORKBOARD_')) env[k] = v;
  return env;
}

/** `workboard sync` in `dir` with no time limit of its own (the CLI helper's 30 s is short for a sync on a loaded machine), and how long it took. */
function sync(dir: string): Promise<{ code: number | null; out: string; ms: number }> {
  const t0 = performance.now();
  const child = spawn(process.execPath, [BIN, 'sync'], { cwd: dir, env: cliEnv(), stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.on('data', (d) => (out += String(d)));
  child.stderr.on('data', (d) => (out += String(d)));
  return new Promise((resolve) => child.on('exit', (code) => resolve({ code, out, ms: Math.round(performance.now() - t0) })));
}

/** Start a `workboard sync` in `dir` and SIGKILL it once the change log grows while its intent exists; resolves with how it ended. */
function killedSync(dir: string): Promise<{ code: number | null; signal: string | null; out: string }> {
  const changes = path.join(dir, '.work', 'changes');
  const intent = path.join(dir, '.work', 'journal', 'sync.json');
  const size = () => (existsSync(changes) ? statSync(changes).size : 0);
  const before = size();
  const child = spawn(process.execPath, [BIN, 'sync'], { cwd: dir, env: cliEnv(), stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.on('data', (d) => (out += String(d)));
  child.stderr.on('data', (d) => (out += String(d)));
  let killed = false;
  const check = () => {
    if (killed || size() <= before || !existsSync(intent)) return;
    killed = true;
    child.kill('SIGKILL');
  };
  const watcher = watch(path.join(dir, '.work'), check);
  const poll = setInterval(check, 2);
  return new Promise((resolve) =>
    child.on('exit', (code, signal) => {
      watcher.close();
      clearInterval(poll);
      resolve({ code, signal, out });
    }),
  );
}

describe('a sync SIGKILLed between the scopes of its apply', () => {
  it("the next sync finishes it: work tree at the branch's commit, every run as the other clone made it, verify and doctor clean", async () => {
    const { a, b } = await twoClones();
    let landed: { applied: number; round: number } | null = null;
    let brought: string[] = [];
    for (let round = 1; round <= ROUNDS && landed === null; round++) {
      const started: string[] = [];
      for (let i = 0; i < RUNS; i++) {
        const s = await wb(b, '--as', 'writer-b', 'start', 'hello', '--input', `topic=Round ${round} run ${i}`, '--input', 'words=60');
        expect(s.code, s.stderr).toBe(0);
        started.push(s.stdout.trim());
      }
      const pushed = await sync(b);
      expect(pushed.code, pushed.out).toBe(0);
      brought = started;

      const r = await killedSync(a);
      const intent = existsSync(path.join(a, '.work', 'journal', 'sync.json'));
      const applied = started.filter((id) => existsSync(path.join(a, 'runs', id, 'RUN.md'))).length;
      console.log(`round ${round}: sync ${r.signal ?? `exit ${r.code}`}, intent ${intent ? 'left' : 'gone'}, ${applied} of ${RUNS} runs applied`);
      if (r.signal === 'SIGKILL' && intent && applied > 0 && applied < RUNS) {
        landed = { applied, round };
        break;
      }
      // Missed the window: settle this round (a finished sync, or one killed before or after its apply) and try again.
      expect(r.signal === 'SIGKILL' || r.code === 0, r.out).toBe(true);
      const settled = await sync(a);
      console.log(`round ${round}: the next sync settled it in ${settled.ms} ms`);
      expect(settled.code, settled.out).toBe(0);
    }
    expect(landed, `no kill landed between scopes in ${ROUNDS} rounds`).not.toBeNull();

    // Killed between scopes: doctor names the interrupted sync.
    const pending = await wb(a, 'doctor');
    expect(`${pending.stdout}${pending.stderr}`).toContain('interrupted workboard sync');

    const next = await sync(a);
    console.log(`the next sync finished the intent in ${next.ms} ms`);
    expect(next.code, next.out).toBe(0);
    expect(existsSync(path.join(a, '.work', 'journal', 'sync.json'))).toBe(false);
    // The work tree is the branch's commit: nothing modified, added or removed, and the remote's branch is the same commit.
    expect(git(a, 'status', '--porcelain', '--untracked-files=all')).toBe('');
    git(a, 'fetch', '-q', 'origin');
    expect(git(a, 'rev-parse', 'HEAD')).toBe(git(a, 'rev-parse', 'origin/main'));
    // Every run brought in holds what the other clone committed: the same files, its chain extended only by
    // the audited breaking of the locks the killed sync held.
    const [onA, onB] = await Promise.all([boardFiles(a), boardFiles(b)]);
    for (const id of brought) {
      const files = Object.keys(onB).filter((rel) => rel.startsWith(`runs/${id}/`));
      expect(files.length).toBeGreaterThan(1);
      for (const rel of files) {
        if (!rel.endsWith('audit.jsonl')) expect(onA[rel], rel).toBe(onB[rel]);
        else {
          expect(onA[rel]!.startsWith(onB[rel]!), rel).toBe(true);
          const added = onA[rel]!.slice(onB[rel]!.length)
            .split('\n')
            .filter(Boolean)
            .map((l) => (JSON.parse(l) as { action: string }).action);
          expect(new Set(added), rel).toEqual(new Set(added.length > 0 ? ['lock.broken'] : []));
        }
      }
    }
    // And the other clone takes it all back: both clones hold the same board.
    const back = await sync(b);
    expect(back.code, back.out).toBe(0);
    expect(await boardFiles(b)).toEqual(await boardFiles(a));
    for (const args of [['audit', 'verify'], ['audit', 'verify', '--git'], ['doctor']]) {
      const v = await wb(a, ...args);
      expect(v.code, `${args.join(' ')}: ${v.stdout}${v.stderr}`).toBe(0);
    }
  }, 600_000);
});
