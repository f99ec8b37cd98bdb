// A coordinator that dies at one of flow-1's new commit points (docs/profile-flow-1.md
// "8. All or nothing"): it starts a run whose first step is a subprocess step, and is
// SIGKILLed either right after the parent's commit, before any child start
// (`after-parent`), or right after the child's commit, before its start record
// is removed (`after-child`).
//
//   node flow-starter.mjs <board> <process> <inputs json> <after-parent|after-child>
import { Board } from '../../dist/board/board.js';
import { Service } from '../../dist/service/service.js';
import { Lineage } from '../../dist/service/lineage.js';
import { RunWrites } from '../../dist/service/writes.js';

const [root, name, inputs, point] = process.argv.slice(2);
const die = () => new Promise(() => process.stdout.write('killed\n', () => process.kill(process.pid, 'SIGKILL')));
if (point === 'after-parent') Lineage.prototype.start = die;
else {
  const original = RunWrites.prototype.startChild;
  RunWrites.prototype.startChild = async function (c) {
    await original.call(this, c);
    return die();
  };
}
const service = await Service.open(await Board.open(root));
const r = await service.call('start_run', { process: name, inputs: JSON.parse(inputs), requestId: `starter-${Date.now()}` }, { kind: 'person', email: 'ann@example.com', operator: false });
process.stdout.write(`not killed: ${JSON.stringify(r).slice(0, 300)}\n`);
process.exit(1);
