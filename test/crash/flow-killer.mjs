// A coordinator that dies at one of flow-1's commit points (docs/profile-flow-1.md
// "8. All or nothing"): it makes one call through the service from dist/ and is
// SIGKILLed right after the commit named by <point>, before the next one:
//
//   after-parent   a commit that records runs to start (a subprocess step entered, or
//                  a run ended with a follow-on rule), before any of them is started
//   after-child-N  the Nth recorded run's own start, before its record is removed
//   child-ended    a child's end, before its parent's step is moved
//   parent-ended   a parent's end (a cancel), before its open children are ended
//   blocker-ended  a blocker's end, before the runs it blocks are woken or ended
//
//   node flow-killer.mjs <board> <point> <tool> <args json> <person email | agent:id>
//
// `decide` takes { runId, stepId, decision, note? } and decides that step's work item;
// `submit` takes { runId, stepId, output } and claims, then submits.
import { Board } from '../../dist/board/board.js';
import { Service } from '../../dist/service/service.js';
import { Lineage } from '../../dist/service/lineage.js';
import { RunWrites } from '../../dist/service/writes.js';

const [root, point, tool, argsJson, who] = process.argv.slice(2);
const die = () => new Promise(() => process.stdout.write('killed\n', () => process.kill(process.pid, 'SIGKILL')));
if (point === 'after-parent') Lineage.prototype.start = die;
else if (point.startsWith('after-child-')) {
  const nth = Number(point.slice('after-child-'.length));
  const original = RunWrites.prototype.startChild;
  let n = 0;
  RunWrites.prototype.startChild = async function (c) {
    const r = await original.call(this, c);
    return ++n === nth ? die() : r;
  };
} else if (point === 'child-ended') Lineage.prototype.moveParent = die;
else if (point === 'parent-ended') Lineage.prototype.endChild = die;
else if (point === 'blocker-ended') Service.prototype.wakeBlocked = die;
else throw new Error(`no point ${point}`);

const actor = who.startsWith('agent:') ? { kind: 'agent', id: who.slice(6) } : { kind: 'person', email: who, operator: true };
const service = await Service.open(await Board.open(root));
const requestId = `killer-${process.pid}`;
const ok = (r) => {
  if (!r.ok) throw new Error(JSON.stringify(r.error));
  return r.data;
};
const args = JSON.parse(argsJson);
let r;
if (tool === 'decide') {
  const item = ok(await service.call('get_run', { runId: args.runId }, actor)).workItems.find((w) => w.stepId === args.stepId);
  r = await service.call('decide', { runId: args.runId, workItemId: item.id, snapshot: item.snapshot, decision: args.decision, ...(args.note ? { note: args.note } : {}), requestId }, actor);
} else if (tool === 'submit') {
  const c = ok(await service.call('claim', { runId: args.runId, stepId: args.stepId, requestId: `${requestId}-c` }, actor));
  r = await service.call('submit', { token: c.token, output: args.output, summary: 'Done.', requestId }, actor);
} else r = await service.call(tool, { ...args, requestId }, actor);
process.stdout.write(`not killed: ${JSON.stringify(r).slice(0, 300)}\n`);
process.exit(1);
