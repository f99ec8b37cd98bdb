// The backlog section of `npm run bench` (--only=backlog): get_work and list_runs on boards where most runs are
// open (a queue of work waiting for agents: generated runs, 1 in 400 waiting for finance, the rest
// with a ready agent step), at 2k and 10k open runs. Each board is read by one service, first as
// the CLI and `workboard mcp` read it (every open run's folder looked at on each call), then with
// serve's daemon watching the open runs' folders (states read before are reused until the watch
// or the change log says a run changed; see RunReader.trustWatched). p50 of 50 calls each, after
// one call that reads every run. Not a test.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Board } from '../dist/board/board.js';
import { Daemon } from '../dist/daemon/daemon.js';
import { resolveActor } from '../dist/service/identity.js';
import { Service } from '../dist/service/service.js';
import { generateBoard } from './gen-board.mjs';
import { pct } from './stats.mjs';

const CALLS = 50;

async function p50(svc, tool, args, actor) {
  const once = async () => {
    const r = await svc.call(tool, args, actor);
    if (!r.ok) throw new Error(JSON.stringify(r.error));
  };
  await once();
  const ms = [];
  for (let i = 0; i < CALLS; i++) {
    const t = performance.now();
    await once();
    ms.push(performance.now() - t);
  }
  return pct(ms, 50);
}

async function measure(svc, board) {
  const who = (name) => resolveActor(board.manifest, name).actor;
  return {
    agent: await p50(svc, 'get_work', { limit: 20 }, who('reviewer')),
    person: await p50(svc, 'get_work', { limit: 20 }, who('mira@example.com')),
    runs: await p50(svc, 'list_runs', { limit: 20 }, who('mira@example.com')),
  };
}

export async function backlogSection({ quick }) {
  const sizes = quick ? [2000] : [2000, 10_000];
  const rows = [];
  for (const runs of sizes) {
    const base = mkdtempSync(path.join(tmpdir(), 'wb-bench-backlog-'));
    try {
      const dir = path.join(base, 'board');
      const counts = await generateBoard(dir, runs, { readyEvery: 1 });
      const board = await Board.open(dir);
      const svc = await Service.open(board);
      const unwatched = await measure(svc, board);
      const daemon = new Daemon(board, svc, { log: () => undefined });
      await daemon.start();
      let watched;
      try {
        watched = await measure(svc, board);
      } finally {
        await daemon.stop();
      }
      rows.push({ runs, open: counts.ready + counts.awaiting, unwatched, watched });
    } finally {
      rmSync(base, { recursive: true, force: true });
    }
  }
  const f = (x) => x.toFixed(1);
  const cell = (r, k) => `${f(r.unwatched[k])} / ${f(r.watched[k])}`;
  return {
    lines: [
      `Backlog: reads of every open run on boards of open runs, p50 of ${CALLS} calls, ms: folders looked at on every call (the CLI, workboard mcp) / watched by serve's daemon`,
      '',
      '| open runs | get_work, agent (limit 20) | get_work, person (limit 20) | list_runs (limit 20) |',
      '|---|---|---|---|',
      ...rows.map((r) => `| ${r.open} | ${cell(r, 'agent')} | ${cell(r, 'person')} | ${cell(r, 'runs')} |`),
    ],
    json: rows,
  };
}
