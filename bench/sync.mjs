// Sync section of `npm run bench` (issue 26: sync on a 10k-run board with 100 changed runs
// takes at most 2 s, not counting the network). A board of 10k runs (4k with --quick) made by
// bench/gen-board.mjs, one run in ten with a ready agent step (so there are runs to claim for
// every round), committed in a seed repository; a bare remote on local disk (a file path: no
// network); two clones, A and B, each set up as a team member would (own git identity,
// workboard git-setup). Before the rounds each clone claims one run and syncs (B, A, B), so
// both have made their signing key and hold each other's. Then each round:
//   1. on B, 100 runs are claimed (through the service, in a process of its own), and
//      `workboard sync` on B pushes them (nothing to merge: timed, as a second figure);
//   2. on A, 100 other runs are claimed, and 10 of B's 100 (so those runs moved on both sides
//      and are merged, one side set aside);
//   3. `workboard sync --as mira@example.com` on A, a real CLI process, is timed: fetch,
//      commit, merge (diverged), apply through the board's locks, adopt, verify, push;
//   4. `workboard sync` on B brings A's merge back (a fast-forward of 110 runs: timed too).
// The last round (of 3; of 2 with --quick) runs step 3 in bench/sync-child.mjs instead of the CLI: the same syncBoard,
// with the time of each of its steps, the git commands it ran (GIT_TRACE2_EVENT), and the
// merge and verify alone after it. Every round claims runs no earlier round touched.
import { fork, spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { addRuns, captureTemplate, createBoard } from './gen-board.mjs';
import { median } from './stats.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const CHILD = path.join(here, 'sync-child.mjs');
const BIN = path.join(here, '../bin/workboard.js');
/** No system or user git config: only what each repository sets for itself. */
const GIT_ENV = { ...process.env, GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null' };
const PER_SIDE = 100;
const BOTH = 10;

function git(cwd, ...args) {
  const r = spawnSync('git', args, { cwd, env: GIT_ENV, encoding: 'utf8', maxBuffer: 256 * 2 ** 20 });
  if (r.status !== 0) throw new Error(`git ${args.join(' ')} in ${cwd}: ${r.stderr}`);
  return r.stdout.trim();
}

// WB_BENCH_SYNC_PROF=<dir>: the phased sync writes a CPU profile there (node --cpu-prof).
const PROF = process.env.WB_BENCH_SYNC_PROF;

function child(args, { prof = false } = {}) {
  return new Promise((resolve, reject) => {
    const execArgv = prof && PROF ? ['--cpu-prof', `--cpu-prof-dir=${PROF}`] : [];
    const c = fork(CHILD, args, { env: GIT_ENV, execArgv, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    let out = null;
    c.on('message', (m) => (out = m));
    c.on('exit', (code) => (out ? resolve(out) : reject(new Error(`sync child ${args[0]} ${args[1]} exited with ${code}`))));
  });
}

/** `workboard <args>` in `cwd`, a real CLI process; its wall time. */
function cli(cwd, args) {
  return new Promise((resolve, reject) => {
    const t = performance.now();
    const c = spawn(process.execPath, [BIN, ...args], { cwd, env: GIT_ENV, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    c.stdout.on('data', (d) => (out += d));
    c.stderr.on('data', (d) => (err += d));
    c.on('exit', (code) => {
      const ms = performance.now() - t;
      if (code !== 0) reject(new Error(`workboard ${args.join(' ')} in ${cwd} exited with ${code}: ${err}${out}`));
      else resolve({ ms, out: out.trim() });
    });
  });
}

const sync = (cwd) => cli(cwd, ['sync', '--as', 'mira@example.com']);

/** The runs whose review_claim step is ready and unclaimed on a board's files, in id order. */
function readyRuns(dir) {
  const runs = path.join(dir, 'runs');
  return readdirSync(runs)
    .filter((n) => n.startsWith('r-'))
    .sort()
    .filter((id) => {
      try {
        return /^state: ready$/m.test(readFileSync(path.join(runs, id, 'review_claim.md'), 'utf8'));
      } catch {
        return false;
      }
    });
}

export async function syncSection({ quick, base = tmpdir() }) {
  const runs = quick ? 4000 : 10_000;
  // Each sync verifies the whole board, which at 10k runs is slow: 2 rounds timed through the CLI (1 with --quick), then one phased.
  const rounds = quick ? 2 : 3;
  const perRound = 2 * PER_SIDE;
  // One run in ten agent-ready at 10k (one in eight at 4k): enough for every round, with some to spare.
  const readyEvery = Math.min(10, Math.floor(runs / ((2 + rounds * perRound) * 1.15)));
  const root = mkdtempSync(path.join(base, 'wb-bench-sync-'));
  const setup = {};
  let p0 = performance.now();
  const phase = (name) => {
    setup[name] = Math.round(performance.now() - p0);
    p0 = performance.now();
  };
  const rows = [];
  let phased = null;
  try {
    const seed = path.join(root, 'seed');
    createBoard(seed);
    const counts = await addRuns(seed, { total: runs, template: await captureTemplate(), readyEvery });
    phase('generate');
    git(seed, 'init', '-q', '-b', 'main');
    git(seed, 'config', 'user.email', 'seed@example.com');
    git(seed, 'config', 'user.name', 'Seed');
    git(seed, 'config', 'gc.auto', '0'); // packed once, below, not by a gc the commit sets off
    await cli(seed, ['git-setup']);
    git(seed, 'add', '-A');
    git(seed, 'commit', '-q', '-m', `${runs} generated runs`);
    // Packed, as a repository that has lived a while is: left loose, the objects of the commit (50k at 10k runs)
    // would set off git's automatic gc in the clones and the remote during the measurements.
    git(seed, 'gc', '-q');
    const remote = path.join(root, 'remote.git');
    git(root, 'clone', '-q', '--bare', seed, remote);
    phase('commit + bare remote');
    const clone = async (name) => {
      const dir = path.join(root, name);
      git(root, 'clone', '-q', remote, name);
      git(dir, 'config', 'user.email', `clone-${name.toLowerCase()}@example.com`);
      git(dir, 'config', 'user.name', `Clone ${name}`);
      await cli(dir, ['git-setup']);
      return dir;
    };
    const A = await clone('A');
    const B = await clone('B');
    phase('clones');
    const ready = readyRuns(seed);
    if (ready.length < 2 + rounds * perRound) throw new Error(`sync bench: ${ready.length} ready runs, ${2 + rounds * perRound} needed`);
    // Both clones make their signing key and learn the other's.
    await child(['claim', B, ready.shift()]);
    await sync(B);
    await child(['claim', A, ready.shift()]);
    await sync(A);
    await sync(B);
    phase('warm-up');
    spawnSync('sync'); // written back now, not during the measurements
    for (let r = 0; r < rounds; r++) {
      const mine = ready.splice(0, perRound);
      const onB = mine.slice(0, PER_SIDE);
      const onA = [...mine.slice(PER_SIDE), ...onB.slice(0, BOTH)];
      const claimB = await child(['claim', B, onB.join(',')]);
      spawnSync('sync'); // the claims' files written back now, as before A's sync below: the sync is timed, not their writeback
      const pushB = await sync(B);
      const claimA = await child(['claim', A, onA.join(',')]);
      spawnSync('sync');
      const last = r === rounds - 1;
      let syncA;
      if (last) {
        phased = await child(['sync', A], { prof: true });
        syncA = { ms: phased.importMs + phased.openMs + phased.syncMs, out: JSON.stringify(phased.report) };
      } else syncA = await sync(A);
      const pullB = await sync(B);
      rows.push({ round: r + 1, phased: last, claimMs: { A: claimA.claimsMs, B: claimB.claimsMs }, syncA: syncA.ms, syncAOut: syncA.out, pushB: pushB.ms, pullB: pullB.ms, pullBOut: pullB.out });
    }
    phase('rounds');
    const same = git(A, 'rev-parse', 'HEAD') === git(B, 'rev-parse', 'HEAD');
    const f = (x, d = 2) => (Number.isFinite(x) ? x.toFixed(d) : '–');
    const s = (ms) => f(ms / 1000);
    const cliRows = rows.filter((r) => !r.phased);
    const cliA = cliRows.map((r) => r.syncA);
    const lines = [
      `Sync: a board of ${runs / 1000}k runs (bench/gen-board.mjs, one run in ${readyEvery} agent-ready) committed, a bare remote on local disk (a file path: no network) and two clones; each round claims ${PER_SIDE} runs on B and syncs B (push), claims ${PER_SIDE} other runs on A and ${BOTH} of B's (so those merge), then syncs A (fetch, commit, merge, apply, adopt, verify, push), then B (a fast-forward). B's syncs are CLI processes in every round; A's in rounds ${cliRows.map((r) => r.round).join(', ')}, and in round ${rounds} the same syncBoard runs in bench/sync-child.mjs, step by step.`,
      '',
      '| round | A: sync, diverged (110 runs here, 100 there, 10 on both), s | B: sync, 100 changed, push only, s | B: sync, fast-forward of 110 runs, s |',
      '|---|---|---|---|',
      ...rows.map((r) => `| ${r.round}${r.phased ? ' (sync-child)' : ''} | ${s(r.syncA)} | ${s(r.pushB)} | ${s(r.pullB)} |`),
      // B's syncs are CLI processes in every round, the phased one included; A's only in the others.
      `| median of the CLI syncs | ${s(median(cliA))} | ${s(median(rows.map((r) => r.pushB)))} | ${s(median(rows.map((r) => r.pullB)))} |`,
    ];
    if (phased) {
      const names = { start: 'lock, unfinished move, upstream', fetching: 'fetch + commit the board', merging: 'merge + apply + adopt + commit', verifying: 'verifyBoard', pushing: 'push' };
      lines.push(
        '',
        `Round ${rounds}, syncBoard on A step by step (sync-child; ${phased.report.merged} runs merged, ${phased.report.superseded} with a side set aside; verify ${phased.verifyOk ? 'ok' : 'FAILED'}, ${phased.chains} chains):`,
        '',
        '| step | s |',
        '|---|---|',
        `| node start + imports | ${s(phased.importMs)} |`,
        `| Board.open | ${s(phased.openMs)} |`,
        ...phased.steps.map((x) => `| ${names[x.step] ?? x.step} | ${s(x.ms)} |`),
        `| syncBoard in all | ${s(phased.syncMs)} |`,
        `| (after it) the board merge alone, mergeCommits on the merge's parents, ${phased.mergedRuns} runs merged | ${s(phased.mergeAloneMs)} |`,
        `| (after it) verifyBoard alone | ${s(phased.verifyAloneMs)} |`,
        ...(phased.changedVerify
          ? [
              `| (after it) verifyBoard of only the ${phased.changedVerify.chains} chains whose scope the push changed on the remote (${phased.changedVerify.ok ? 'ok' : 'FAILED'}) | ${s(phased.changedVerify.ms)} |`,
            ]
          : []),
        '',
        `git commands the sync ran, ${s(phased.gitMs)} s in all (wall time of each git process, GIT_TRACE2_EVENT):`,
        '',
        '| git command | runs | s |',
        '|---|---|---|',
        ...phased.git.map((g) => `| ${g.cmd} | ${g.n} | ${s(g.ms)} |`),
      );
    }
    lines.push(
      '',
      `(setup: ${Object.entries(setup)
        .map(([k, v]) => `${k} ${f(v / 1000, 1)} s`)
        .join(
          ', ',
        )}; claims per round, through the service: A ${s(median(rows.map((r) => r.claimMs.A)))} s, B ${s(median(rows.map((r) => r.claimMs.B)))} s; A and B ${same ? 'end at the same commit' : 'DO NOT end at the same commit'})`,
    );
    // B's push-only sync is a CLI process in every round, the phased one included.
    const pushes = rows.map((r) => r.pushB);
    const spread = (xs) => ({ median: median(xs), min: Math.min(...xs), max: Math.max(...xs) });
    return { lines, json: { runs, counts, readyEvery, rounds: rows, phased, setup, syncA: spread(cliA), pushB: spread(pushes), sameHead: same } };
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}
