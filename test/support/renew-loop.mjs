// A separate OS process that is an agent working fast on one clone: it claims
// a step, then renews the claim every `everyMs` until the file `stop` exists. Prints `claimed <token>` once, then `renewed <n>` at the end.
//   node renew-loop.mjs <board> <runId> <stepId> <agent> <stop> <everyMs>
import { existsSync } from 'node:fs';
import { Board } from '../../dist/board/board.js';
import { Service } from '../../dist/service/service.js';

const [root, runId, stepId, agent, stop, everyMs] = process.argv.slice(2);
const actor = { kind: 'agent', id: agent };
const service = await Service.open(await Board.open(root), {});
const claim = await service.callWire('claim', { runId, stepId, requestId: `renew-loop-${process.pid}` }, actor);
if (!claim.ok) throw new Error(`claim refused: ${claim.error.message}`);
process.stdout.write(`claimed ${claim.data.token}\n`);
let token = claim.data.token;
let renewed = 0;
while (!existsSync(stop)) {
  // Each renewal answers a new token; the old one stops working.
  const r = await service.callWire('renew', { token, requestId: `renew-loop-${process.pid}-${renewed}` }, actor);
  if (!r.ok) throw new Error(`renew refused: ${r.error.message}`);
  token = r.data.token;
  renewed++;
  await new Promise((r) => setTimeout(r, Number(everyMs)));
}
process.stdout.write(`renewed ${renewed}\n`);
process.exit(0);
