// A coordinator in its own OS process for the crash suite: it opens the board
// and the service from dist/ (exactly what `workboard mcp` runs), says `ready`,
// then calls start_run again and again with distinct requestIds until it is
// killed (or `max` calls are done). Before `ready` it makes one warm-up start
// (`<tagPrefix>-warm`), acknowledged like the others. One line per event on stdout, written
// synchronously (stdout is a pipe), so a line seen is a line the worker reached:
//   ready
//   begin <requestId>               the call is about to be made
//   ack <requestId> <runId>         start_run answered ok
//   fail <requestId> <json>         start_run answered an error (never expected here)
//
//   node crash-worker.mjs start <root> <agent> <tagPrefix> <max>
//
// `stop` stops the writer at a chosen point of one commit: past its commit point (journal
// and temps durable), after <renames> of its renames. It makes the warm-up start, then one
// start (`start`) or a start and a claim of its first step (`claim`); in that last commit,
// once <renames> renames are done, it prints `stopped` and blocks until it is killed:
//   ack <requestId> <runId>         the start answered ok
//   stopped                         the commit is pending; SIGKILL the worker now
//
//   node crash-worker.mjs stop <root> <agent> <tagPrefix> start|claim <renames>
//
// `checkpoint` makes the warm-up start and one start (`<tagPrefix>-0`), then a checkpoint of
// its commit log, stopped once the file system is flushed and before the log is cut:
//   ack <requestId> <runId>         the start answered ok
//   stopped                         the checkpoint is under way; SIGKILL the worker now
//
//   node crash-worker.mjs checkpoint <root> <agent> <tagPrefix>
import fs from 'node:fs';
import { syncBuiltinESMExports } from 'node:module';
import path from 'node:path';
import { Board } from '../../dist/board/board.js';
import { Service } from '../../dist/service/service.js';
import { resolveActor } from '../../dist/service/identity.js';

const [mode, root, agent, prefix, maxText, renamesText] = process.argv.slice(2);
const out = (line) => process.stdout.write(`${line}\n`);

if (mode !== 'start' && mode !== 'stop' && mode !== 'checkpoint') throw new Error(`unknown mode ${mode}`);
const board = await Board.open(root);
const who = resolveActor(board.manifest, agent);
if (!who.ok) throw new Error(who.message);
const service = await Service.open(board);
const start = (rid) => service.call('start_run', { process: 'release-notes', inputs: { version: rid, releaseDate: '2026-12-01' }, mode: 'live', requestId: rid }, who.actor);
// One whole start before the kill window opens, so every module, schema and cache
// is loaded and the kills land in starts, not in warming up.
const warm = await start(`${prefix}-warm`);
if (!warm.ok) throw new Error(JSON.stringify(warm));
out(`ack ${prefix}-warm ${warm.data.run.id}`);
out('ready');

/** From now on, the commit whose journal is on disk stops after `renames` of its renames, never to finish them. */
function stopAfterRenames(renames) {
  const journals = path.join(root, '.work', 'journal');
  const rename = fs.renameSync;
  let done = 0;
  fs.renameSync = (from, to) => {
    const pending = fs.existsSync(journals) && fs.readdirSync(journals).length > 0;
    if (pending && done++ === renames) {
      out('stopped');
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0); // until SIGKILL
    }
    return rename(from, to);
  };
  syncBuiltinESMExports(); // the board's `import { renameSync }` now sees this one
}

if (mode === 'checkpoint') {
  // Cutting the log is the checkpoint's one ftruncate of a file in the log folder: stop there, after
  // its file-system flush. (A recycled spare shorter than what it held is cut too: let that pass.)
  const truncate = fs.ftruncateSync;
  const logDir = `${path.sep}${path.join('.work', 'log')}${path.sep}`;
  fs.ftruncateSync = (fd, ...rest) => {
    if (fs.readlinkSync(`/proc/self/fd/${fd}`).includes(logDir)) {
      out('stopped');
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0); // until SIGKILL
    }
    return truncate(fd, ...rest);
  };
  syncBuiltinESMExports();
  const s = await start(`${prefix}-0`);
  if (!s.ok) throw new Error(JSON.stringify(s));
  out(`ack ${prefix}-0 ${s.data.run.id}`);
  await board.store.checkpoint();
  out('finished');
  process.exit(0);
}

if (mode === 'stop') {
  const [op, renames] = [maxText, Number(renamesText)];
  if (op === 'claim') {
    const s = await start(`${prefix}-0`);
    if (!s.ok) throw new Error(JSON.stringify(s));
    out(`ack ${prefix}-0 ${s.data.run.id}`);
    stopAfterRenames(renames);
    const c = await service.call('claim', { runId: s.data.run.id, stepId: 'draft', requestId: `${prefix}-claim` }, who.actor);
    out(`finished ${JSON.stringify(c.ok ? 'ok' : c.error)}`);
  } else {
    stopAfterRenames(renames);
    const s = await start(`${prefix}-0`);
    out(`finished ${JSON.stringify(s.ok ? 'ok' : s.error)}`);
  }
  process.exit(0);
}

const max = Number(maxText);
for (let k = 0; k < max; k++) {
  const rid = `${prefix}-${k}`;
  out(`begin ${rid}`);
  const r = await start(rid);
  if (r.ok) out(`ack ${rid} ${r.data.run.id}`);
  else out(`fail ${rid} ${JSON.stringify(r.error)}`);
}
out('finished');
