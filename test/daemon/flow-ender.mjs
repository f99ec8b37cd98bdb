// A coordinator that dies the instant it has ended a run, before it looks at
// the runs that run blocks (flow-1): it decides one work item through the
// service from dist/, and its sweep of blocked runs is replaced by a SIGKILL of
// itself, so only another coordinator (serve's daemon) can wake them.
//
//   node flow-ender.mjs <board> <runId> <person> <decision> [note]
//
// Prints `ended <ms since the epoch>` just before it is killed.
import { Board } from '../../dist/board/board.js';
import { Service } from '../../dist/service/service.js';

const [root, runId, email, decision, note] = process.argv.slice(2);
Service.prototype.wakeBlocked = async function () {
  process.stdout.write(`ended ${Date.now()}\n`, () => process.kill(process.pid, 'SIGKILL'));
  await new Promise(() => {});
};
const service = await Service.open(await Board.open(root));
const actor = { kind: 'person', email, operator: false };
const view = await service.call('get_run', { runId }, actor);
const item = view.data.workItems[0];
const args = { runId, workItemId: item.id, snapshot: item.snapshot, decision, requestId: `ender-${runId}`, ...(note ? { note } : {}) };
const r = await service.call('decide', args, actor);
process.stdout.write(`not killed: ${JSON.stringify(r).slice(0, 300)}\n`);
process.exit(1);
