// A separate OS process that writes to a board through the store, for the
// concurrency and crash tests. Prints one line per outcome on stdout.
//   race <root> <runId> <items> <name>      try to take every item s0..s<items-1> once
//   add <root> <runId> <times>              increment `counter` through rev CAS, retrying on conflict
//   crash <root> <runId>                    commit a, b and c together forever, printing `ack <k>` after each
import { BoardStore } from '../../dist/board/store.js';
import { BoardError } from '../../dist/board/errors.js';

const [mode, root, runId, ...rest] = process.argv.slice(2);
const store = new BoardStore(root, { lockStaleMs: 30_000, lockTimeoutMs: 60_000 });
const scope = { kind: 'run', id: runId };
const step = (id) => `runs/${runId}/${id}.md`;
const out = (line) => process.stdout.write(`${line}\n`);

if (mode === 'race') {
  const [items, name] = [Number(rest[0]), rest[1]];
  for (let i = 0; i < items; i++) {
    const rel = step(`s${i}`);
    try {
      await store.transact(scope, async (tx) => {
        const doc = await tx.read(rel);
        if (doc.data.state !== 'ready') throw new BoardError('conflict', 'taken', [], doc);
        tx.write(rel, { ...doc.data, state: 'done', by: name }, doc.body);
        tx.audit({ actor: name, action: 'step.taken', entity: rel });
      });
      out(`win ${i}`);
    } catch (e) {
      if (e instanceof BoardError && e.code === 'conflict') out(`lose ${i} ${e.current.data.by}`);
      else throw e;
    }
  }
} else if (mode === 'add') {
  const times = Number(rest[0]);
  const rel = step('counter');
  let conflicts = 0;
  for (let n = 0; n < times;) {
    const seen = await store.read(rel);
    try {
      await store.transact(scope, async (tx) => {
        const doc = await tx.expectRev(rel, seen.rev);
        // The new count comes from the read made outside the lock: only the rev check stops a lost update.
        tx.write(rel, { ...doc.data, output: { count: seen.data.output.count + 1 } }, doc.body);
        tx.audit({ actor: `pid:${process.pid}`, action: 'counter.added', entity: rel });
      });
      n++;
    } catch (e) {
      if (e instanceof BoardError && e.code === 'conflict') conflicts++;
      else throw e;
    }
  }
  out(`done ${conflicts}`);
} else if (mode === 'crash') {
  await store.read(step('a')); // load and compile the schemas before the kill window opens
  out('ready');
  for (let k = 1; ; k++) {
    const { value } = await store.transact(scope, async (tx) => {
      const a = await tx.read(step('a'));
      const next = a.data.output.k + 1;
      for (const id of ['a', 'b', 'c']) {
        const d = await tx.read(step(id));
        tx.write(step(id), { ...d.data, output: { k: next } }, `attempt ${next}\n`);
      }
      tx.audit({ actor: `pid:${process.pid}`, action: 'crash.step', entity: `run:${runId}`, changes: { k: next } });
      return next;
    });
    out(`ack ${value}`);
  }
} else {
  throw new Error(`unknown mode ${mode}`);
}
