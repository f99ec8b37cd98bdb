/**
 * The store tells its subscribers of every commit, whichever way it is made
 * or finished: a transaction, a merge's replacement, a dead writer's journal
 * rolled forward. A transaction that writes nothing, or is refused, tells
 * nothing. Real files.
 */
import { promises as fs } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ulid } from 'ulid';
import { describe, expect, it } from 'vitest';
import { Board } from '../../src/board/board.js';
import type { CommitEvent } from '../../src/board/commit-feed.js';
import { encodeDoc } from '../../src/board/document.js';
import { sha256Hex } from '../../src/core/hash.js';

async function setup() {
  const dir = await fs.mkdtemp(path.join(tmpdir(), 'wb-feed-'));
  const board = await Board.init(dir, { name: 'feed', actor: 'test' });
  const runId = `r-${ulid().toLowerCase()}`;
  const rel = `runs/${runId}/work.md`;
  const told: CommitEvent[] = [];
  board.store.onCommit((c) => told.push(c));
  return { board, runId, rel, told };
}

const seed = (board: Board, runId: string, rel: string, k: number) =>
  board.store.transact({ kind: 'run', id: runId }, (tx) => {
    tx.write(rel, { id: 'work', kind: 'agent', state: 'ready', output: { k } });
    tx.audit({ actor: 'test', action: 'seeded', entity: rel });
  });

describe('the store publishes what each commit changed', () => {
  it('a transaction: its scope, the files it wrote and its sealed events', async () => {
    const { board, runId, rel, told } = await setup();
    await seed(board, runId, rel, 1);
    expect(told).toHaveLength(1);
    expect(told[0]).toMatchObject({ scope: { kind: 'run', id: runId }, source: 'transaction', files: [rel] });
    expect(told[0]!.events.map((e) => [e.action, e.entity, e.seq])).toEqual([['seeded', rel, 0]]);
  });

  it('a transaction that writes nothing, or is refused, tells nothing', async () => {
    const { board, runId, rel, told } = await setup();
    await seed(board, runId, rel, 1);
    told.length = 0;
    await board.store.transact({ kind: 'run', id: runId }, () => undefined);
    await expect(
      board.store.transact({ kind: 'run', id: runId }, (tx) => {
        tx.write(rel, { id: 'work', kind: 'agent', state: 'ready', output: { k: 2 } });
        throw new Error('refused');
      }),
    ).rejects.toThrow('refused');
    expect(told).toEqual([]);
  });

  it("a dead writer's whole journal, rolled forward by the next transaction", async () => {
    const { board, runId, rel, told } = await setup();
    await seed(board, runId, rel, 1);
    told.length = 0;
    const before = await fs.readFile(path.join(board.root, rel));
    const bytes = encodeDoc(rel, { id: 'work', kind: 'agent', state: 'ready', output: { k: 2 }, rev: 2 }, '');
    const record = { v: 2, id: 'dead', scope: `run ${runId}`, chain: `runs/${runId}/audit.jsonl`, files: [{ rel, prev: sha256Hex(before), sha256: sha256Hex(bytes), text: bytes }], lines: [], firstSeq: 1, pos: 1, at: 0 };
    await fs.mkdir(path.join(board.root, '.work/journal'), { recursive: true });
    await fs.writeFile(path.join(board.root, `.work/journal/run-${runId}.json`), JSON.stringify(record));
    await board.store.transact({ kind: 'run', id: runId }, () => undefined);
    expect(told).toEqual([{ scope: { kind: 'run', id: runId }, source: 'roll-forward', files: [rel], events: [] }]);
    expect((await board.store.read(rel))?.data.output).toEqual({ k: 2 });
  });

  it("a merge's replacement of a scope's files", async () => {
    const { board, runId, rel, told } = await setup();
    await seed(board, runId, rel, 1);
    told.length = 0;
    const from = sha256Hex(await fs.readFile(path.join(board.root, rel)));
    const other = `runs/${runId}/other.md`;
    await board.store.replace([{ scope: { kind: 'run', id: runId }, files: [{ rel, from, to: null }, { rel: other, from: null, to: Buffer.from(encodeDoc(other, { id: 'other', kind: 'agent', state: 'ready', rev: 1 }, '')) }] }]);
    expect(told).toEqual([{ scope: { kind: 'run', id: runId }, source: 'merge', files: [other, rel], events: [] }]);
  });

  it('every listener is told even when one throws, and the commit stands', async () => {
    const { board, runId, rel, told } = await setup();
    const stop = board.store.onCommit(() => {
      throw new Error('listener broke');
    });
    const after: string[] = [];
    board.store.onCommit((c) => after.push(c.source));
    await expect(seed(board, runId, rel, 1)).rejects.toThrow('listener broke');
    expect(told).toHaveLength(1);
    expect(after).toEqual(['transaction']);
    expect((await board.store.read(rel))?.data.output).toEqual({ k: 1 });
    stop();
    await seed(board, runId, rel, 2);
    expect(told).toHaveLength(2);
  });
});
