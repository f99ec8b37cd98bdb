/**
 * The store tells its subscribers of every commit, whichever way it is made
 * or finished: a transaction, a merge's replacement, a dead writer's journal
 * rolled forward, an earlier boot's commit log replayed. A transaction that
 * writes nothing, or is refused, tells nothing. Real files; the earlier boot
 * is a real process that committed and exited leaving its log.
 */
import { execFile } from 'node:child_process';
import { promises as fs } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { ulid } from 'ulid';
import { beforeAll, describe, expect, it } from 'vitest';
import { Board } from '../../src/board/board.js';
import type { CommitEvent } from '../../src/board/commit-feed.js';
import { encodeDoc } from '../../src/board/document.js';
import { frame, readFrames } from '../../src/board/log-files.js';
import { sha256Hex } from '../../src/core/hash.js';
import { ensureBuilt, ROOT } from '../support/cli-run.js';

beforeAll(ensureBuilt, 300_000);

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
    const record = {
      v: 2,
      id: 'dead',
      scope: `run ${runId}`,
      chain: `runs/${runId}/audit.jsonl`,
      files: [{ rel, prev: sha256Hex(before), sha256: sha256Hex(bytes), text: bytes }],
      lines: [],
      firstSeq: 1,
      pos: 1,
      at: 0,
    };
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
    await board.store.replace([
      {
        scope: { kind: 'run', id: runId },
        files: [
          { rel, from, to: null },
          { rel: other, from: null, to: Buffer.from(encodeDoc(other, { id: 'other', kind: 'agent', state: 'ready', rev: 1 }, '')) },
        ],
      },
    ]);
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

  it("an earlier boot's commit log, replayed before this process's first commit: the files it restored", async () => {
    const dir = await fs.mkdtemp(path.join(tmpdir(), 'wb-feed-boot-'));
    const runId = `r-${ulid().toLowerCase()}`;
    const rel = `runs/${runId}/work.md`;
    // Another process makes the board and commits once, then exits leaving its commit log (no checkpoint).
    const child = `
      const { Board } = await import(${JSON.stringify(pathToFileURL(path.join(ROOT, 'dist/board/board.js')).href)});
      const board = await Board.init(process.argv[1], { name: 'feed', actor: 'test' });
      await board.store.transact({ kind: 'run', id: process.argv[2] }, (tx) => {
        tx.write(process.argv[3], { id: 'work', kind: 'agent', state: 'ready', output: { k: 1 } });
        tx.audit({ actor: 'test', action: 'seeded', entity: process.argv[3] });
      });`;
    await promisify(execFile)(process.execPath, ['--input-type=module', '-e', child, dir, runId, rel]);
    const logDir = path.join(dir, '.work/log');
    const logs = (await fs.readdir(logDir)).filter((n) => n.endsWith('.log'));
    expect(logs, 'the other process left its commit log').toHaveLength(1);
    // A reboot: the log's header names another boot; the power loss left the file it wrote empty.
    const file = path.join(logDir, logs[0]!);
    const bytes = await fs.readFile(file);
    const header = readFrames(bytes).values[0] as Record<string, unknown>;
    await fs.writeFile(file, Buffer.concat([frame({ ...header, boot: 'an-earlier-boot' }), bytes.subarray(frame(header).length)]));
    const written = await fs.readFile(path.join(dir, rel));
    await fs.writeFile(path.join(dir, rel), '');

    const board = await Board.open(dir);
    const told: CommitEvent[] = [];
    board.store.onCommit((c) => told.push(c));
    const other = `r-${ulid().toLowerCase()}`;
    await seed(board, other, `runs/${other}/work.md`, 1);
    expect(told.map((c) => [c.source, c.scope, c.files])).toEqual([
      ['replay', { kind: 'run', id: runId }, [rel]],
      ['transaction', { kind: 'run', id: other }, [`runs/${other}/work.md`]],
    ]);
    expect(await fs.readFile(path.join(dir, rel))).toEqual(written);
  }, 120_000);
});
