// One scale measurement in a fresh process, so its memory is its own (run by
// bench/scale.mjs through fork; reports one JSON message over IPC).
//   node bench/scale-child.mjs <board> <series> <n> <min> <s>
// Opens the board and makes the first get_work call (as reviewer), then measures
// get_work latency for each series in the comma-separated list <series> ("none"
// for no series), each with up to n calls, for at most s seconds, at least min:
//   reviewer    get_work as agent reviewer
//   mira        get_work as person mira@example.com
//   afterWrite  get_work as reviewer, each after a start_run (untimed), as on a busy board
// Each series also gets each call's CPU (user + system, ms) in `cpu`, steadier than its wall time
// on a busy machine. Run directly (no IPC), it prints the JSON: e.g. the CPU of a cold start and of
// get_work after a write on a 100k board, `node bench/scale-child.mjs <board> afterWrite 15 15 60`.
const [dir, seriesArg, nArg, minArg, secArg] = process.argv.slice(2);
const t0 = performance.now();
const { Board } = await import('../dist/board/board.js');
const { Service } = await import('../dist/service/service.js');
const { resolveActor } = await import('../dist/service/identity.js');
const tImported = performance.now();
const cpu0 = process.cpuUsage();

const ok = (r) => {
  if (!r.ok) throw new Error(JSON.stringify(r.error));
  return r.data;
};
const board = await Board.open(dir);
const svc = await Service.open(board);
// As an agent's process has it: `workboard mcp` (and serve's daemon) watch the open runs' folders.
svc.watchOpenRuns();
const A = (n) => resolveActor(board.manifest, n).actor;
const agent = A('reviewer');
const mira = A('mira@example.com');
const first = ok(await svc.call('get_work', {}, agent));
const tReady = performance.now();
const cpuStart = process.cpuUsage(cpu0);
const mb = (b) => b / 2 ** 20;
const out = {
  importMs: tImported - t0,
  startMs: tReady - tImported, // Board.open + Service.open + the first get_work (reviewer)
  cpuMs: (cpuStart.user + cpuStart.system) / 1000, // the same start's CPU (user + system), steadier than wall time on a busy machine
  rssMB: mb(process.memoryUsage().rss),
  heapMB: mb(process.memoryUsage().heapUsed),
  firstItems: first.items.length,
  lat: {},
  cpu: {},
  items: {},
};

const n = Number(nArg);
const min = Number(minArg);
const budget = Number(secArg) * 1000;
let k = 0;
for (const who of seriesArg === 'none' ? [] : seriesArg.split(',')) {
  const actor = who === 'mira' ? mira : agent;
  const xs = (out.lat[who] = []);
  const cs = (out.cpu[who] = []);
  const began = performance.now();
  while (xs.length < n && (xs.length < min || performance.now() - began < budget)) {
    if (who === 'afterWrite') {
      ok(
        await svc.call(
          'start_run',
          { process: 'expense-approval', inputs: { claimant: 'mira@example.com', amount: 1, receiptUrl: 'https://example.com/r' }, requestId: `scale-${process.pid}-${++k}` },
          mira,
        ),
      );
    }
    const t = performance.now();
    const c = process.cpuUsage();
    out.items[who] = ok(await svc.call('get_work', {}, actor)).items.length;
    const d = process.cpuUsage(c);
    xs.push(performance.now() - t);
    cs.push((d.user + d.system) / 1000);
  }
}
out.rssAfterMB = mb(process.memoryUsage().rss);
out.peakRssMB = process.resourceUsage().maxRSS / 1024;
if (process.send) {
  process.send(out);
  process.disconnect();
} else {
  const median = (v) => [...v].sort((a, b) => a - b)[Math.floor(v.length / 2)];
  for (const k of Object.keys(out.cpu)) {
    out[`${k}CpuMedianMs`] = median(out.cpu[k]);
    out[`${k}MedianMs`] = median(out.lat[k]);
  }
  console.log(JSON.stringify({ ...out, lat: undefined, cpu: undefined }));
}
