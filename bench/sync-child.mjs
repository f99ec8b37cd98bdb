// One step of the sync bench in a fresh process (run by bench/sync.mjs through fork;
// reports one JSON message over IPC):
//   node bench/sync-child.mjs claim <board> <run ids, comma-separated>
//     claims step review_claim of each run as agent `reviewer`, through the service
//   node bench/sync-child.mjs sync <board>
//     what `workboard sync --as mira@example.com` does (syncBoard), with the time of each of
//     its steps (told through onStep), every git command it ran (GIT_TRACE2_EVENT) and,
//     after it, the board merge alone (mergeCommits on the merge's two parents, which
//     writes only objects) and verifyBoard alone, again: on the whole board, and on only the chains
//     whose scope the push changed on the remote (verifyBoard's `chains` option)
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

const [what, dir, arg] = process.argv.slice(2);
const t0 = performance.now();
const ms = (t) => performance.now() - t;

if (what === 'claim') {
  const { Board } = await import('../dist/board/board.js');
  const { Service } = await import('../dist/service/service.js');
  const { resolveActor } = await import('../dist/service/identity.js');
  const board = await Board.open(dir);
  const svc = await Service.open(board);
  const agent = resolveActor(board.manifest, 'reviewer').actor;
  const opened = ms(t0);
  const t = performance.now();
  let k = 0;
  for (const runId of arg.split(',')) {
    const r = await svc.call('claim', { runId, stepId: 'review_claim', requestId: `bench-sync-${process.pid}-${++k}` }, agent);
    if (!r.ok) throw new Error(`claim ${runId}: ${JSON.stringify(r.error)}`);
  }
  process.send({ openMs: opened, claimsMs: ms(t), claims: k });
} else if (what === 'sync') {
  const traceDir = mkdtempSync(path.join(tmpdir(), 'wb-bench-trace2-'));
  const trace = path.join(traceDir, 'events');
  process.env.GIT_TRACE2_EVENT = trace;
  const { Board } = await import('../dist/board/board.js');
  const { syncBoard } = await import('../dist/git/sync.js');
  const { mergeCommits } = await import('../dist/git/board-merge.js');
  const { verifyBoard } = await import('../dist/board/verify.js');
  const { Repo } = await import('../dist/git/repo.js');
  const imported = ms(t0);
  const tOpen = performance.now();
  const board = await Board.open(dir);
  const openMs = ms(tOpen);
  const steps = [];
  let at = performance.now();
  let step = 'start';
  const onStep = (s) => {
    steps.push({ step, ms: ms(at) });
    at = performance.now();
    step = s.split(' ')[0];
  };
  const tSync = performance.now();
  const report = await syncBoard(board, { actor: 'mira@example.com', onStep });
  steps.push({ step, ms: ms(at) });
  const syncMs = ms(tSync);
  delete process.env.GIT_TRACE2_EVENT;

  // Every git process the sync ran: its command (first two words past git's own options) and wall time.
  const gitRuns = new Map(); // sid → { cmd, ms }
  for (const line of readFileSync(trace, 'utf8').split('\n')) {
    if (!line) continue;
    const e = JSON.parse(line);
    // Only top-level git processes: a child git (a hook, a fetch's transport) has a sid with a '/'.
    if (e.sid.includes('/')) continue;
    if (e.event === 'start') {
      const words = e.argv.slice(1).filter((w, i, a) => !w.startsWith('-') && a[i - 1] !== '-c' && a[i - 1] !== '-C');
      // The command and, for a few, the word after it that says what it did.
      const two = ['push', 'fetch', 'rev-parse', 'symbolic-ref'].includes(words[0]);
      gitRuns.set(e.sid, { cmd: words.slice(0, two ? 2 : 1).join(' '), ms: null });
    } else if (e.event === 'exit' && gitRuns.has(e.sid)) gitRuns.get(e.sid).ms = e.t_abs * 1000;
  }
  rmSync(traceDir, { recursive: true, force: true });
  const git = new Map();
  for (const { cmd, ms: t } of gitRuns.values()) {
    const g = git.get(cmd) ?? { cmd, n: 0, ms: 0 };
    g.n++;
    g.ms += t ?? 0;
    git.set(cmd, g);
  }

  // The board merge alone, again, on the merge commit's two parents.
  const repo = await Repo.at(dir);
  const merge = (await repo.text(['rev-list', '--merges', '-1', 'HEAD'])) || null;
  let mergeMs = null;
  let mergedRuns = null;
  if (merge && report.pulled === 'merge') {
    const [ours, theirs] = (await repo.text(['rev-list', '--parents', '-1', merge])).split(' ').slice(1);
    const t = performance.now();
    const r = await mergeCommits(repo, ours, theirs);
    mergeMs = ms(t);
    mergedRuns = r.runs.length;
  }
  const tv = performance.now();
  const v = await verifyBoard(board);
  const verifyMs = ms(tv);
  // Only the chains whose scope this push changes on the remote (what differs between the remote's commit and HEAD).
  let changedVerify = null;
  if (merge && report.pulled === 'merge') {
    const { ownerOf } = await import('../dist/git/board-merge.js');
    const theirs = (await repo.text(['rev-list', '--parents', '-1', merge])).split(' ')[2];
    const t = performance.now();
    const chains = new Set();
    for (const rel of await repo.changed(theirs, 'HEAD')) {
      const o = ownerOf(rel);
      if (o) chains.add(o.kind === 'run' ? `runs/${o.id}/audit.jsonl` : 'audit/board.jsonl');
    }
    const cv = await verifyBoard(board, { chains: [...chains].sort() });
    changedVerify = { ms: ms(t), chains: cv.chains.length, ok: cv.ok };
  }
  process.send({
    importMs: imported,
    openMs,
    syncMs,
    steps,
    git: [...git.values()].sort((a, b) => b.ms - a.ms),
    gitMs: [...git.values()].reduce((s, g) => s + g.ms, 0),
    report: { pulled: report.pulled, pushed: report.pushed, merged: report.merged.length, superseded: report.merged.filter((m) => m.superseded).length },
    mergeAloneMs: mergeMs,
    mergedRuns,
    verifyAloneMs: verifyMs,
    verifyOk: v.ok,
    changedVerify,
    chains: v.chains.length,
  });
} else throw new Error(`sync-child: unknown step ${what}`);
process.disconnect();
