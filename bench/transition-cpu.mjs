// CPU per transition in one process, and where it goes (docs/performance.md "CPU per transition").
//
//   node bench/transition-cpu.mjs [--cycles=<n>] [--rounds=<n>] [--profile=<file.json>]
//
// Each round copies examples/board into the OS temp folder (TMPDIR picks the file system), opens
// it through the service and warms up, then drives `cycles` runs through start_run → claim →
// submit (three transitions each) one call at a time, measuring this process's CPU
// (process.cpuUsage: user + system) over the loop. It prints each round and the median, with
// the load average, since other work on the machine moves CPU time far less than wall time.
//
// With --profile, the last round runs under the inspector's CPU profiler and every sample is
// put in the innermost part of the commit path its stack passes through (PARTS below, first
// match from the leaf up), so each part's share of the loop's CPU is its share of the samples.
// The profile is written to the file named, for Chrome's devtools.
import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Board } from '../dist/board/board.js';
import { Service } from '../dist/service/service.js';
import { resolveActor } from '../dist/service/identity.js';
import { median } from './stats.mjs';
import { REVIEWED } from './expense-acts.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const arg = (name, dflt) => {
  const a = process.argv.find((x) => x.startsWith(`--${name}=`));
  return a === undefined ? dflt : a.slice(name.length + 3);
};
const CYCLES = Number(arg('cycles', 300));
const ROUNDS = Number(arg('rounds', 5));
const PROFILE = arg('profile', null);

const SUBMIT = REVIEWED;
let n = 0;
const req = () => `tc-${process.pid}-${++n}`;
const ok = (r) => {
  if (!r.ok) throw new Error(JSON.stringify(r.error));
  return r.data;
};

async function cycle(svc, mira, agent) {
  const s = ok(await svc.call('start_run', { process: 'expense-approval', inputs: { claimant: 'mira@example.com', amount: 1 + n, receiptUrl: 'https://example.com/r' }, requestId: req() }, mira));
  const c = ok(await svc.call('claim', { runId: s.run.id, stepId: 'review_claim', requestId: req() }, agent));
  ok(await svc.call('submit', { token: c.token, ...SUBMIT, requestId: req() }, agent));
}

async function round(profile) {
  const dir = mkdtempSync(path.join(tmpdir(), 'wb-tcpu-'));
  cpSync(path.join(here, '../examples/board'), dir, { recursive: true });
  rmSync(path.join(dir, '.work'), { recursive: true, force: true });
  try {
    const board = await Board.open(dir);
    const svc = await Service.open(board);
    const A = (name) => resolveActor(board.manifest, name).actor;
    const mira = A('mira@example.com');
    const agent = A('reviewer');
    for (let i = 0; i < 20; i++) await cycle(svc, mira, agent);
    let session = null;
    if (profile) {
      session = new Session();
      session.connect();
      await session.post('Profiler.enable');
      await session.post('Profiler.setSamplingInterval', { interval: 100 });
      await session.post('Profiler.start');
    }
    const cpu0 = process.cpuUsage();
    const t0 = performance.now();
    for (let i = 0; i < CYCLES; i++) await cycle(svc, mira, agent);
    const cpu = process.cpuUsage(cpu0);
    const wall = performance.now() - t0;
    const out = { cpuMs: (cpu.user + cpu.system) / 1000 / (CYCLES * 3), userMs: cpu.user / 1000 / (CYCLES * 3), sysMs: cpu.system / 1000 / (CYCLES * 3), wallMs: wall / (CYCLES * 3) };
    if (session) {
      const { profile: p } = await session.post('Profiler.stop');
      session.disconnect();
      out.profile = p;
    }
    // Its last checkpoint before the folder goes: one left for later fails on a folder removed and costs the next round.
    await board.store.checkpoint();
    return out;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

// The parts of a transition, each named by functions that are its own (the innermost match wins).
const PARTS = [
  ['lock files (acquire, release)', /^(acquireLock|releaseLock|readLock|tryCreate|breakLock)$/],
  ['spare files (recycled locks, journals)', /^(fill|link|dropQuietly|nextName)$|Spares/],
  ['no-symlink check (assertNoLinks)', /^assertNoLinks$/],
  ['commit log (frame, write, flush call)', /^(frame|digest8|writeAt|writeFlushed|flushAll|append)$/],
  ['journal record and temps', /^(commit|write|recordBytes|shaOf)$/, /journal\.js$/],
  ['renames, audit append, change hint', /^(apply|finish|noteChange|appendMissing|renameNow)$/],
  ['signing (Ed25519)', /sign|Signer/i],
  ['canonical JSON, hashing', /canonical|sha256|eventHash|contentHash/i],
  ['commit planning and sealing', /^(planCommit|sealEvents|renderDoc|encodeDoc)$/],
  ['reading and decoding board files', /^(decodeDoc|readBytes|readNoFollow|readIfExists|parseDocument|splitFrontmatter)$|yaml/i],
  ['schema validation (args, files)', /validate|ajv/i],
  ['engine (execute, plan)', /^(execute|plan\w*|applyDeadlines)$/, /engine\//],
  ['service reads and caches', /./, /service\//],
  ['garbage collection', /^\(garbage collector\)$/],
];

function breakdown(profile) {
  const byId = new Map(profile.nodes.map((nd) => [nd.id, nd]));
  const parent = new Map();
  for (const nd of profile.nodes) for (const c of nd.children ?? []) parent.set(c, nd.id);
  const partOf = new Map();
  const classify = (id) => {
    if (partOf.has(id)) return partOf.get(id);
    const nd = byId.get(id);
    const { functionName, url } = nd.callFrame;
    let part = null;
    for (const [name, fn, file] of PARTS) {
      if (fn.test(functionName) && (!file || file.test(url))) {
        part = name;
        break;
      }
    }
    if (part === null) part = parent.has(id) ? classify(parent.get(id)) : 'other';
    partOf.set(id, part);
    return part;
  };
  const counts = new Map();
  const syscalls = new Map();
  let total = 0;
  for (const id of profile.samples) {
    const nd = byId.get(id);
    if (nd.callFrame.functionName === '(idle)' || nd.callFrame.functionName === '(program)') continue;
    total++;
    const p = classify(id);
    counts.set(p, (counts.get(p) ?? 0) + 1);
    if (nd.callFrame.url === '' && /^[a-z]\w*$/.test(nd.callFrame.functionName)) syscalls.set(nd.callFrame.functionName, (syscalls.get(nd.callFrame.functionName) ?? 0) + 1);
  }
  return { total, counts: [...counts].sort((a, b) => b[1] - a[1]), syscalls: [...syscalls].sort((a, b) => b[1] - a[1]).slice(0, 12) };
}

const load0 = loadavg();
const rounds = [];
for (let r = 0; r < ROUNDS; r++) {
  const x = await round(PROFILE !== null && r === ROUNDS - 1);
  rounds.push(x);
  console.log(`round ${r + 1}: ${x.cpuMs.toFixed(3)} ms CPU per transition (user ${x.userMs.toFixed(3)}, system ${x.sysMs.toFixed(3)}), wall ${x.wallMs.toFixed(3)} ms`);
}
const load1 = loadavg();
const med = median(rounds.map((x) => x.cpuMs));
console.log(
  `median of ${ROUNDS} rounds of ${CYCLES * 3} transitions: ${med.toFixed(3)} ms CPU per transition (user ${median(rounds.map((x) => x.userMs)).toFixed(3)}, system ${median(rounds.map((x) => x.sysMs)).toFixed(3)}); boards in ${tmpdir()}; load average ${load0[0].toFixed(1)} → ${load1[0].toFixed(1)}`,
);
const last = rounds[rounds.length - 1];
if (last.profile) {
  writeFileSync(PROFILE, JSON.stringify(last.profile));
  const b = breakdown(last.profile);
  const ms = (c) => ((c / b.total) * last.cpuMs).toFixed(3);
  console.log(`\n| part | share of samples | ms per transition (of ${last.cpuMs.toFixed(3)}) |\n|---|---|---|`);
  for (const [p, c] of b.counts) console.log(`| ${p} | ${((c / b.total) * 100).toFixed(1)}% | ${ms(c)} |`);
  console.log(`\nnative calls (leaf frames): ${b.syscalls.map(([f, c]) => `${f} ${((c / b.total) * 100).toFixed(1)}%`).join(', ')}`);
}
