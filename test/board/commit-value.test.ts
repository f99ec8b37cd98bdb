/**
 * One transition as one value (BoardStore.apply): the builder only reads; the
 * store applies the commit it returns all or nothing, refusing it when a
 * file is no longer at the rev the builder read it at.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { afterEach, expect, it } from 'vitest';
import type { Commit } from '../../src/board/commit.js';
import { revRecording } from '../../src/board/commit.js';
import { BoardError } from '../../src/board/errors.js';
import { chainEvents, cleanupTmp, newBoard, readText, runData, runId, snapshotDir } from '../support/tmp-board.js';

afterEach(cleanupTmp);

const LEASE = (id: string) => `.work/leases/${id}/a.json`;

function started(id: string, readRev: number, state = 'active'): Commit {
  return {
    files: [{ rel: `runs/${id}/RUN.md`, data: { ...runData(id), state }, body: '# Run\n', readRev }],
    state: [{ rel: LEASE(id), bytes: '{"stepId":"a"}' }],
    events: [{ actor: 'user:tester', action: `run.${state}`, entity: id }],
  };
}

it('writes the files, the .work/ records and the audit events of the value in one commit, and removes a record given as null', async () => {
  const { root, board } = await newBoard();
  const id = runId(1);
  const { value, commit } = await board.store.apply({ kind: 'run', id }, async (reads) => ({ value: await reads.read(`runs/${id}/RUN.md`), commit: started(id, 0) }));
  expect(value).toBeNull();
  expect(commit.written).toEqual({ [`runs/${id}/RUN.md`]: 1 });
  expect(await readText(path.join(board.root, `runs/${id}/RUN.md`))).toContain('state: active');
  expect(await readText(path.join(board.root, LEASE(id)))).toBe('{"stepId":"a"}');
  const events = await chainEvents(`${root}/runs/${id}/audit.jsonl`);
  expect(events.map((e) => e.action)).toEqual(['run.active']);

  await board.store.apply({ kind: 'run', id }, async (reads) => {
    const read = revRecording(reads);
    await read.read(`runs/${id}/RUN.md`);
    const next = started(id, read.revOf(`runs/${id}/RUN.md`), 'waiting');
    return { value: null, commit: { ...next, state: [{ rel: LEASE(id), bytes: null }] } };
  });
  expect(await readText(path.join(board.root, `runs/${id}/RUN.md`))).toContain('rev: 2');
  expect(existsSync(path.join(board.root, LEASE(id)))).toBe(false);
});

it('refuses a value whose file moved past the rev it names, naming every such file, and writes nothing', async () => {
  const { root, board } = await newBoard();
  const id = runId(2);
  await board.store.apply({ kind: 'run', id }, async () => ({ value: null, commit: started(id, 0) }));
  const before = await snapshotDir(root, { includeState: true });
  const stale: Commit = {
    ...started(id, 0, 'waiting'),
    files: [
      { rel: `runs/${id}/RUN.md`, data: { ...runData(id), state: 'waiting' }, body: '# Run\n', readRev: 0 },
      { rel: `runs/${id}/b.md`, data: { id: 'b', kind: 'agent', state: 'ready' }, body: '', readRev: 3 },
    ],
  };
  const refused = await board.store
    .apply({ kind: 'run', id }, async () => ({ value: null, commit: stale }))
    .then(
      () => null,
      (e: unknown) => e,
    );
  expect(refused).toBeInstanceOf(BoardError);
  expect((refused as BoardError).code).toBe('conflict');
  expect((refused as BoardError).issues.map((i) => i.path)).toEqual([`runs/${id}/RUN.md`, `runs/${id}/b.md`]);
  expect(await snapshotDir(root, { includeState: true })).toEqual(before);
});

it('writes nothing when the builder throws or returns no commit', async () => {
  const { root, board } = await newBoard();
  const id = runId(3);
  const before = await snapshotDir(root);
  await expect(
    board.store.apply({ kind: 'run', id }, async () => {
      throw new Error('refused');
    }),
  ).rejects.toThrow('refused');
  const { commit } = await board.store.apply({ kind: 'run', id }, async () => ({ value: 1, commit: null }));
  expect(commit.events).toEqual([]);
  expect(await snapshotDir(root)).toEqual(before);
});
