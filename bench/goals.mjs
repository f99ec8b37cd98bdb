// The goals table that ends `npm run bench`: issue 15's figures, each read from the
// results of the sections that ran (the same object written to bench/results/), with
// whether it is met. A figure whose section did not run says so; a --quick run checks
// the 10k goals at the largest size it built, and says which.

const f = (x, d = 2) => (Number.isFinite(x) ? x.toFixed(d) : '–');
const k = (n) => (n >= 1000 ? `${n / 1000}k` : String(n));

/**
 * One row: the figure, the goal as text, what was measured as text, and met (true/false,
 * null when not measured). `at` names a smaller size a 10k goal was checked at: shown, not counted.
 */
const row = (figure, goal, measured, met, at) => ({ figure, goal, measured, met, ...(at ? { at } : {}) });
const missing = (figure, goal, why) => row(figure, goal, `not measured (${why})`, null);
/** The first CLI inbox after a cold start, which also keeps the open runs' states for the next calls (older results have none). */
const firstInbox = (r) => (Number.isFinite(r.cli.inboxFirst) ? ` (the first: ${f(r.cli.inboxFirst / 1000)} s)` : '');

function transitions(out) {
  const rows = out.rows;
  const figure = "each transition's p50 / its floor";
  const one = 'fsyncs per transition, 1 client';
  const eight = 'fsyncs per transition, 8 clients in one process';
  if (!rows) return [missing(one, '≤ 2', 'transitions section not run'), missing(eight, '≤ 1', 'transitions section not run'), missing(figure, '≤ 1.0×', 'transitions section not run')];
  const counted = rows.filter((r) => r.fsyncs !== null && r.fsyncs !== undefined);
  const mostFsyncs = Math.max(...counted.map((r) => r.fsyncs));
  const ratios = rows.filter((r) => r.ratio !== null);
  const worst = Math.max(...ratios.map((r) => r.ratio));
  const mcp = rows.filter((r) => r.mcpAdds !== undefined);
  const worstMcp = Math.max(...mcp.map((r) => r.mcpAdds));
  return [
    row(one, '≤ 2', `${f(Math.min(...counted.map((r) => r.fsyncs)), 1)}–${f(mostFsyncs, 1)} (${counted.map((r) => `${r.op} ${f(r.fsyncs, 1)}`).join(', ')})`, mostFsyncs <= 2),
    out.eight ? row(eight, '≤ 1', f(out.eight.fsyncsPerTransition), out.eight.fsyncsPerTransition <= 1) : missing(eight, '≤ 1', 'not in this run'),
    row(figure, '≤ 1.0×', `${f(Math.min(...ratios.map((r) => r.ratio)))}–${f(worst)}× (${ratios.map((r) => `${r.op} ${f(r.ratio)}`).join(', ')})`, worst <= 1.0),
    row('MCP stdio overhead over a direct call, p50', '≤ 0.5 ms', `${mcp.map((r) => `${r.tool} ${f(r.mcpAdds)}`).join(', ')} ms`, worstMcp <= 0.5),
  ];
}

function concurrency(out) {
  const d = out.concurrency?.distinct;
  if (!d) return [missing('CPU per transition (1 process)', '≤ 2 ms', 'concurrency section not run'), missing('2 processes / 1 process', '≥ 1.8×', 'concurrency section not run')];
  const one = d.find((x) => x.procs === 1);
  const two = d.find((x) => x.procs === 2);
  const speedup = two.perSec / one.perSec;
  return [
    row("CPU per transition (1 process, user + system, the worker's own count)", '≤ 2 ms', `${f(one.cpuMsPerTransition)} ms`, one.cpuMsPerTransition <= 2),
    row('2 processes on distinct runs / 1 process', '≥ 1.8×', `${f(speedup, 3)}× (${f(two.perSec, 1)} vs ${f(one.perSec, 1)} transitions/s)`, speedup >= 1.8),
  ];
}

function load(out) {
  const l = out.load;
  const figure = `HTTP, 8 clients, transitions/s and p50`;
  if (!l) return [missing(figure, '≥ 600/s, p50 ≤ 10 ms', 'load section not run')];
  const p50s = Object.values(l.tools).map((t) => t.p50);
  const worst = Math.max(...p50s);
  return [row(`${figure} (${f(l.seconds, 0)} s)`, '≥ 600/s, p50 ≤ 10 ms', `${f(l.perSec, 1)}/s, p50 ${f(Math.min(...p50s), 1)}–${f(worst, 1)} ms`, l.perSec >= 600 && worst <= 10)];
}

function scale(out) {
  const sizes = out.scale?.sizes;
  if (!sizes) {
    const why = 'scale section not run';
    return [
      missing('CLI show / start / inbox / runs on 1k runs, wall', '≤ 0.12 s each', why),
      missing('CLI inbox on 10k runs', '≤ 0.2 s', why),
      missing('get_work p50 at 10k runs, agent / person', '≤ 1.5 ms each', why),
      missing('cold index build at 10k runs', '≤ 1.5 s', why),
      missing('RSS at 10k runs', '≤ 120 MB', why),
    ];
  }
  const rows = [];
  const at1k = sizes.find((s) => s.runs === 1000);
  if (at1k) {
    const c = at1k.cli;
    const all = [c.show, c.start, c.inbox, c.runs].map((ms) => ms / 1000);
    rows.push(row('CLI show / start / inbox / runs on 1k runs, wall', '≤ 0.12 s each', `${all.map((s) => f(s)).join(' / ')} s`, Math.max(...all) <= 0.12));
  } else rows.push(missing('CLI show / start / inbox / runs on 1k runs, wall', '≤ 0.12 s each', 'no 1k board'));
  const top = sizes.find((s) => s.runs === 10_000) ?? sizes[sizes.length - 1];
  const at = top.runs === 10_000 ? undefined : k(top.runs);
  rows.push(row('CLI inbox at 10k runs', '≤ 0.2 s', `${f(top.cli.inbox / 1000)} s${firstInbox(top)}`, top.cli.inbox <= 200, at));
  const gw = [top.getWork.reviewer.p50, top.getWork.mira.p50];
  rows.push(row('get_work p50 at 10k runs, agent / person (change log present)', '≤ 1.5 ms each', `${f(gw[0])} / ${f(gw[1])} ms`, Math.max(...gw) <= 1.5, at));
  rows.push(row('cold index build at 10k runs (open + first get_work)', '≤ 1.5 s', `${f(top.cold.ms / 1000)} s`, top.cold.ms <= 1500, at));
  const rss = Math.max(top.cold.rssMB, top.warm.rssAfterCallsMB);
  rows.push(row('RSS at 10k runs (cold start, or warm after its calls)', '≤ 120 MB', `${f(rss, 0)} MB`, rss <= 120, at));
  // A year of a team's board: 100k runs, most of them ended (issue 45).
  const big = sizes.find((s) => s.runs === 100_000);
  if (big) {
    rows.push(row('cold start at 100k runs (open + first get_work)', '≤ 2 s', `${f(big.cold.ms / 1000)} s (CPU ${f(big.cold.cpuMs / 1000)} s)`, big.cold.ms <= 2000));
    rows.push(row('get_work p50 at 100k runs, after a write', '≤ 2 ms', `${f(big.getWork.afterWrite.p50)} ms`, big.getWork.afterWrite.p50 <= 2));
    rows.push(row('CLI inbox at 100k runs', '≤ 0.3 s', `${f(big.cli.inbox / 1000)} s${firstInbox(big)}`, big.cli.inbox <= 300));
    const bigRss = Math.max(big.cold.rssMB, big.warm.rssAfterCallsMB);
    rows.push(row('RSS at 100k runs (cold start, or warm after its calls)', '≤ 150 MB', `${f(bigRss, 0)} MB`, bigRss <= 150));
  } else rows.push(missing('cold start / get_work after a write / CLI inbox / RSS at 100k runs', '≤ 2 s / 2 ms / 0.3 s / 150 MB', 'no 100k board (--quick)'));
  return rows;
}

function peers(out) {
  const p = out.peers;
  const goal = '≤ 0.2× each';
  const rows = [];
  for (const n of [1000, 10_000]) {
    const figure = `vs Backlog.md on ${k(n)} items (view one, edit one, list open), ours/theirs`;
    if (!p) {
      rows.push(missing(figure, goal, 'peers section not run: --peers'));
      continue;
    }
    const size = p.sizes?.find((s) => s.n === n);
    if (!size) {
      rows.push(missing(figure, goal, p.error ?? (out.quick ? '--quick measures 1k only' : 'not in this run')));
      continue;
    }
    if (size.error) {
      rows.push(missing(figure, goal, size.error));
      continue;
    }
    // Each operation is timed in one or two pairings; an operation meets the goal when every pairing does.
    const ops = ['view one item', 'edit one item', 'list open items'].map((op) => size.rows.filter((r) => r.op === op));
    const ratios = ops.map((rs) => rs.map((r) => r.ratio));
    const measured = ratios.map((rs) => rs.map((x) => (x === null ? 'failed' : `${f(x)}×`)).join(', ')).join(' / ');
    const all = ratios.flat();
    rows.push(row(figure, goal, measured, all.includes(null) ? null : all.every((x) => x <= 0.2)));
  }
  return rows;
}

/** Issue 41's two sync figures: a sync with only this clone's changes to push, and one that merges both sides. */
function sync(out) {
  const s = out.sync;
  const figures = [
    ['sync, 10k runs, 100 changed, nothing diverged (CLI `workboard sync`: commit and push; bare remote on local disk)', 2000, s?.pushB],
    ['sync, 10k runs, both sides moved (CLI `workboard sync` on a clone that diverged: 100 runs changed there, 110 here, 10 of them on both; bare remote on local disk)', 5000, s?.syncA],
  ];
  const at = s && s.runs !== 10_000 ? k(s.runs) : undefined;
  return figures.map(([figure, goalMs, m]) => {
    const goal = `≤ ${goalMs / 1000} s`;
    if (!s) return missing(figure, goal, 'sync section not run');
    if (!m) return missing(figure, goal, 'not in these results');
    return row(figure, goal, `${f(m.median / 1000)} s (median; ${f(m.min / 1000)}–${f(m.max / 1000)})`, m.median <= goalMs, at);
  });
}

/** The goals table as markdown lines, and its rows as data. */
export function goalsTable(out) {
  const rows = [...concurrency(out), ...transitions(out), ...load(out), ...scale(out), ...sync(out), ...peers(out)];
  const met = (r) => (r.met === null ? '–' : r.at ? `(${r.met ? 'yes' : 'no'} at ${r.at} runs; not counted)` : r.met ? 'yes' : 'no');
  const counted = rows.filter((r) => r.met !== null && !r.at);
  const lines = [
    `Goals (issue 15; sync: issues 26 and 41; fsyncs, the floor and HTTP: issue 30), from this run${out.quick ? ' (--quick: fewer runs and rounds; 10k goals checked at the largest size built)' : ''}: ${counted.filter((r) => r.met).length} of the ${counted.length} measured are met.`,
    '',
    '| figure | goal | measured | met |',
    '|---|---|---|---|',
    ...rows.map((r) => `| ${r.figure} | ${r.goal} | ${r.measured} | ${met(r)} |`),
  ];
  return { lines, rows };
}
