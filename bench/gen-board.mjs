// Large boards for the scale bench, written directly as files in the board format.
//
// One real run of `expense-approval` is driven through the Service on a copy of
// examples/board (start_run → claim → submit → decide), and the run folder's
// files and audit chain are captured after every call. Each generated run is a
// copy of that run at one of its stages with fresh ids and shifted times:
//
//   ended            after decide: RUN.md, review_claim.md, approve.md, paid.md, audit.jsonl (7 events)
//   agent ready      after start_run: review_claim ready, unclaimed (2 events)
//   awaiting finance after submit: approve has an open work item for group finance (5 events)
//
// Every file a chain event records is re-hashed after the ids and times are
// changed and every chain is re-sealed, so `workboard audit verify` passes and a
// write on a generated run sees no external edit. Work item ids are derived as
// the engine derives them. Coordinator state (.work/) is not generated: a fresh
// board has no index cache, leases or replay records.
//
// As a module: `await generateBoard(dir, runs)`, or createBoard + addRuns to grow one board. From a shell:
//   node bench/gen-board.mjs <dir> <runs> [--verify]
import { randomBytes } from 'node:crypto';
import { mkdtempSync, cpSync, rmSync, mkdirSync, writeFileSync, readdirSync, readFileSync, existsSync } from 'node:fs';
import { tmpdir, cpus } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker, isMainThread, workerData, parentPort } from 'node:worker_threads';
import { Board } from '../dist/board/board.js';
import { Service } from '../dist/service/service.js';
import { resolveActor } from '../dist/service/identity.js';
import { contentHash, eventHash } from '../dist/board/audit.js';
import { signerFrom } from '../dist/board/signing.js';
import { sha256Hex } from '../dist/core/hash.js';
import { REVIEWED } from './expense-acts.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
export const EXAMPLE = path.join(here, '../examples/board');

/** A fresh copy of the example board with no coordinator state. */
export function copyExample(prefix = 'wb-bench-') {
  const dir = mkdtempSync(path.join(tmpdir(), prefix));
  cpSync(EXAMPLE, dir, { recursive: true });
  rmSync(path.join(dir, '.work'), { recursive: true, force: true });
  return dir;
}

const ISO = /\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z/g;
const mdFiles = (d) =>
  readdirSync(d)
    .filter((n) => n.endsWith('.md'))
    .sort();

/** Drive one real run through the service and capture its files and chain after every call. */
export async function captureTemplate() {
  const dir = copyExample('wb-bench-tmpl-');
  try {
    const board = await Board.open(dir);
    const svc = await Service.open(board);
    const A = (n) => resolveActor(board.manifest, n).actor;
    const agent = A('reviewer');
    const mira = A('mira@example.com');
    let n = 0;
    const req = () => `tmpl-${process.pid}-${++n}`;
    const ok = (r) => {
      if (!r.ok) throw new Error(`template run: ${JSON.stringify(r.error)}`);
      return r.data;
    };
    const s = ok(await svc.call('start_run', { process: 'expense-approval', inputs: { claimant: 'mira@example.com', amount: 120, receiptUrl: 'https://example.com/r' }, requestId: req() }, mira));
    const runId = s.run.id;
    const runDir = path.join(dir, 'runs', runId);
    const versions = new Map(); // `${rel}@${rev}` → content
    const snap = () => {
      const files = {};
      for (const f of mdFiles(runDir)) {
        const text = readFileSync(path.join(runDir, f), 'utf8');
        const rel = `runs/${runId}/${f}`;
        const rev = Number(/^rev: (\d+)$/m.exec(text)[1]);
        versions.set(`${rel}@${rev}`, text);
        files[rel] = text;
      }
      const lines = readFileSync(path.join(runDir, 'audit.jsonl'), 'utf8').split('\n').filter(Boolean);
      return { files, lines: lines.length };
    };
    const started = snap();
    const c = ok(await svc.call('claim', { runId, stepId: 'review_claim', requestId: req() }, agent));
    snap();
    ok(
      await svc.call(
        'submit',
        {
          token: c.token,
          ...REVIEWED,
          requestId: req(),
        },
        agent,
      ),
    );
    const submitted = snap();
    const wi = ok(await svc.call('get_run', { runId }, mira)).workItems[0];
    ok(await svc.call('decide', { runId, workItemId: wi.id, snapshot: wi.snapshot, decision: 'approved', requestId: req() }, mira));
    const ended = snap();
    const chain = readFileSync(path.join(runDir, 'audit.jsonl'), 'utf8').split('\n').filter(Boolean);
    const startedAt = /^startedAt: "(.+)"$/m.exec(started.files[`runs/${runId}/RUN.md`])[1];
    // Work item ids are sha256(run|step|openedAt|decided so far): check the derivation still holds.
    const approveReady = /^readySince: "(.+)"$/m.exec(submitted.files[`runs/${runId}/approve.md`])[1];
    if (`w-${sha256Hex(`${runId}|approve|${approveReady}|0`).slice(0, 26)}` !== wi.id) throw new Error('the work item id derivation changed; update bench/gen-board.mjs');
    if (!/^state: ended$/m.exec(ended.files[`runs/${runId}/RUN.md`])) throw new Error('the template run did not end');
    // The template board's signing key signs the generated chains, and goes with them to the new board.
    const keyPem = readFileSync(path.join(dir, '.work/audit-key.pem'), 'utf8');
    const keyDir = path.join(dir, 'audit/keys');
    const keyRecords = Object.fromEntries(readdirSync(keyDir).map((n) => [n, readFileSync(path.join(keyDir, n), 'utf8')]));
    return { runId, startedAt, workItem: wi.id, approveReady, versions, chain, keyPem, keyRecords, stages: { ready: started, awaiting: submitted, ended } };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** One generated run: the template at `stage`, with a new run id, started at `startMs`. */
function runFiles(t, stage, runId, startMs, signer) {
  const delta = startMs - Date.parse(t.startedAt);
  const times = new Map();
  const shift = (m) => {
    let v = times.get(m);
    if (v === undefined) times.set(m, (v = new Date(Date.parse(m) + delta).toISOString()));
    return v;
  };
  const wi = `w-${sha256Hex(`${runId}|approve|${shift(t.approveReady)}|0`).slice(0, 26)}`;
  const sub = (s) => s.replaceAll(t.runId, runId).replaceAll(t.workItem, wi).replace(ISO, shift);
  const st = t.stages[stage];
  const files = {};
  for (const [rel, text] of Object.entries(st.files)) files[path.basename(rel)] = sub(text);
  let prev = 'GENESIS';
  const lines = [];
  for (const line of t.chain.slice(0, st.lines)) {
    const ev = JSON.parse(sub(line));
    if (ev.input.files) {
      for (const [rel, f] of Object.entries(ev.input.files)) {
        const tmplRel = rel.replaceAll(runId, t.runId);
        f.sha256 = sha256Hex(sub(t.versions.get(`${tmplRel}@${f.rev}`)));
      }
    }
    ev.prevHash = prev;
    const { hash: _h, sig: _s, ...rest } = ev;
    rest.signer = signer.fingerprint;
    rest.sig = signer.sign(contentHash(rest));
    ev.hash = eventHash(rest);
    Object.assign(ev, rest, { hash: ev.hash });
    prev = ev.hash;
    lines.push(`${JSON.stringify(ev)}\n`);
  }
  files['audit.jsonl'] = lines.join('');
  return files;
}

/**
 * Which stage run k of n is at: 1% agent-ready (k % 100 == 37), 0.25% awaiting finance (k % 400 == 87), the rest ended.
 * `readyEvery` (default 100) makes one run in that many agent-ready instead (k % readyEvery == 37 % readyEvery), awaiting finance still first.
 * `awaitingEvery` (default 400) makes one run in that many await finance (k % awaitingEvery == 87 % awaitingEvery): 1, every run.
 */
export function stageOf(k, readyEvery = 100, awaitingEvery = 400) {
  if (k % awaitingEvery === 87 % awaitingEvery) return 'awaiting';
  if (k % readyEvery === 37 % readyEvery) return 'ready';
  return 'ended';
}

const B32 = '0123456789abcdefghjkmnpqrstvwxyz'; // Crockford's base32, lower case, as run ids use it

/** A run id as the service makes them (`r-` + a lower-case ULID of `ms`), its random part from `rand` (16 bytes). */
function runIdAt(ms, rand) {
  let time = '';
  for (let i = 0, t = ms; i < 10; i++, t = Math.floor(t / 32)) time = B32[t % 32] + time;
  let r = '';
  for (let i = 0; i < 16; i++) r += B32[rand[i] & 31];
  return `r-${time}${r}`;
}

/** Write runs k ∈ [from, to) of a board of `total` runs, run k started (total − k) minutes before `end`. */
function writeRuns(t, dir, total, from, to, end, readyEvery = 100, awaitingEvery = 400) {
  const counts = { ended: 0, ready: 0, awaiting: 0 };
  const signer = signerFrom(t.keyPem);
  const rand = randomBytes(16 * (to - from));
  for (let k = from; k < to; k++) {
    const startMs = end - (total - k) * 60_000;
    const runId = runIdAt(startMs, rand.subarray(16 * (k - from), 16 * (k - from + 1)));
    const stage = stageOf(k, readyEvery, awaitingEvery);
    counts[stage]++;
    const runDir = path.join(dir, 'runs', runId);
    mkdirSync(runDir);
    for (const [name, text] of Object.entries(runFiles(t, stage, runId, startMs, signer))) writeFileSync(path.join(runDir, name), text);
  }
  return counts;
}

/** A fresh copy of the example board at `dir` (created), with no coordinator state. */
export function createBoard(dir) {
  mkdirSync(dir, { recursive: true });
  cpSync(EXAMPLE, dir, { recursive: true });
  rmSync(path.join(dir, '.work'), { recursive: true, force: true });
}

/**
 * Add runs k ∈ [from, to) of a board of `total` runs to the board at `dir`:
 * run k started (total − k) minutes before `end`, so a board can be grown
 * from its newest runs back to its oldest. Large batches are written by one
 * worker thread per CPU. `readyEvery`, `awaitingEvery`: see stageOf.
 */
export async function addRuns(dir, { total, from = 0, to = total, end = Date.now(), template, readyEvery = 100, awaitingEvery = 400, threads = to - from >= 2000 ? cpus().length : 1 }) {
  const t = template ?? (await captureTemplate());
  mkdirSync(path.join(dir, '.work'), { recursive: true });
  writeFileSync(path.join(dir, '.work/audit-key.pem'), t.keyPem, { mode: 0o600 });
  mkdirSync(path.join(dir, 'audit/keys'), { recursive: true });
  for (const [n, text] of Object.entries(t.keyRecords)) writeFileSync(path.join(dir, 'audit/keys', n), text);
  if (threads <= 1) return writeRuns(t, dir, total, from, to, end, readyEvery, awaitingEvery);
  const plain = { ...t, versions: [...t.versions] };
  const parts = await Promise.all(
    Array.from({ length: threads }, (_, i) => {
      const a = from + Math.floor(((to - from) * i) / threads);
      const b = from + Math.floor(((to - from) * (i + 1)) / threads);
      return new Promise((resolve, reject) => {
        const w = new Worker(new URL(import.meta.url), { workerData: { genBoard: { t: plain, dir, total, from: a, to: b, end, readyEvery, awaitingEvery } } });
        w.once('message', resolve);
        w.once('error', reject);
      });
    }),
  );
  const counts = { ended: 0, ready: 0, awaiting: 0 };
  for (const p of parts) for (const k of Object.keys(counts)) counts[k] += p[k];
  return counts;
}

/** A new board of `runs` runs at `dir`, the newest started a minute before `end`. */
export async function generateBoard(dir, runs, opts = {}) {
  createBoard(dir);
  return addRuns(dir, { ...opts, total: runs });
}

/** The time part of the run ids of runs started at `ms`: ids of runs started later compare greater. */
export function runIdTime(ms) {
  return runIdAt(ms, new Uint8Array(16)).slice(0, 12);
}

if (!isMainThread && workerData?.genBoard) {
  const { t, dir, total, from, to, end, readyEvery, awaitingEvery } = workerData.genBoard;
  parentPort.postMessage(writeRuns({ ...t, versions: new Map(t.versions) }, dir, total, from, to, end, readyEvery, awaitingEvery));
}

if (isMainThread && process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const [dir, n] = process.argv.slice(2);
  if (!dir || !n || existsSync(path.join(dir, 'WORK.md'))) {
    console.error('usage: node bench/gen-board.mjs <new-dir> <runs> [--verify]');
    process.exit(2);
  }
  const t0 = performance.now();
  const counts = await generateBoard(dir, Number(n));
  console.log(`${dir}: ${JSON.stringify(counts)} in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  if (process.argv.includes('--verify')) {
    const { verifyBoard } = await import('../dist/board/verify.js');
    const report = await verifyBoard(await Board.open(dir));
    const bad = report.chains.filter((c) => c.breaks.length > 0);
    console.log(`audit verify: ${report.ok ? 'ok' : 'FAILED'} (${report.chains.length} chains)`);
    for (const c of bad.slice(0, 5)) console.log(JSON.stringify(c));
    process.exit(report.ok ? 0 : 1);
  }
}
