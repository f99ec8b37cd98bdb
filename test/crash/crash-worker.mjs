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
import { Board } from '../../dist/board/board.js';
import { Service } from '../../dist/service/service.js';
import { resolveActor } from '../../dist/service/identity.js';

const [mode, root, agent, prefix, maxText] = process.argv.slice(2);
const out = (line) => process.stdout.write(`${line}\n`);

if (mode !== 'start') throw new Error(`unknown mode ${mode}`);
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
const max = Number(maxText);
for (let k = 0; k < max; k++) {
  const rid = `${prefix}-${k}`;
  out(`begin ${rid}`);
  const r = await start(rid);
  if (r.ok) out(`ack ${rid} ${r.data.run.id}`);
  else out(`fail ${rid} ${JSON.stringify(r.error)}`);
}
out('finished');
