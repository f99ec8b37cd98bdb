/**
 * The compare-and-swap at the heart of every write: under the lock, just
 * before anything is written, each committed file must still be exactly what
 * the transaction read. An edit landing in between (a person's editor, a
 * `git checkout`) is never overwritten. And a write that would break its
 * file's schema is never committed.
 */
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { BoardError } from '../../src/board/errors.js';
import { chainEvents, cleanupTmp, newBoard, readText, runData, runId, snapshotDir } from '../support/tmp-board.js';

afterEach(cleanupTmp);

describe('compare-and-swap before the rename', () => {
  it('an edit that lands between the read and the commit is kept; the write is refused as busy and writes nothing', async () => {
    const { root, board } = await newBoard();
    const id = runId(1);
    const rel = `runs/${id}/RUN.md`;
    await board.store.transact({ kind: 'run', id }, (tx) => {
      tx.write(rel, runData(id), '# Run\n');
      tx.audit({ actor: 'user:tester', action: 'run.started', entity: id });
    });
    const lines = (await chainEvents(`${root}/runs/${id}/audit.jsonl`)).length;
    let edited = '';
    const attempt = board.store.transact({ kind: 'run', id }, async (tx) => {
      const cur = await tx.read(rel);
      // A person saves the file while this writer is still working on what it read.
      edited = (await readText(path.join(board.root, rel))).replace('# Run', '# Run, with a note from a person');
      await fs.writeFile(path.join(board.root, rel), edited);
      tx.write(rel, { ...cur!.data, state: 'waiting' }, cur!.body);
      tx.audit({ actor: 'user:tester', action: 'run.waiting', entity: id });
    });
    const refused = await attempt.then(
      () => null,
      (e: unknown) => e,
    );
    expect(refused instanceof BoardError && refused.code === 'busy' && refused.message.includes(rel)).toBe(true);
    const before = await snapshotDir(root);
    expect(await readText(path.join(board.root, rel))).toBe(edited);
    // Nothing beyond the person's edit: no temp, journal or audit line was left by the refused write.
    expect(Object.keys(before).filter((f) => f.includes('.tmp-'))).toEqual([]);
    expect(await chainEvents(`${root}/runs/${id}/audit.jsonl`)).toHaveLength(lines);

    // Called again, the write reads the edit, adopts it, and goes through on top of it.
    await board.store.transact({ kind: 'run', id }, async (tx) => {
      const cur = await tx.read(rel);
      tx.write(rel, { ...cur!.data, state: 'waiting' }, cur!.body);
      tx.audit({ actor: 'user:tester', action: 'run.waiting', entity: id });
    });
    const text = await readText(path.join(board.root, rel));
    expect(text).toContain('with a note from a person');
    expect(text).toContain('state: waiting');
    expect((await chainEvents(`${root}/runs/${id}/audit.jsonl`)).map((e) => e.action).slice(lines)).toEqual(['run.external-edit', 'run.waiting']);
  });

  it('a file that appears where the transaction read none is not overwritten', async () => {
    const { root, board } = await newBoard();
    const id = runId(2);
    const rel = `runs/${id}/RUN.md`;
    const attempt = board.store.transact({ kind: 'run', id }, async (tx) => {
      expect(await tx.read(rel)).toBeNull();
      await fs.mkdir(path.join(board.root, `runs/${id}`), { recursive: true });
      await fs.writeFile(path.join(board.root, rel), 'someone else\n');
      tx.write(rel, runData(id), '# Run\n');
      tx.audit({ actor: 'user:tester', action: 'run.started', entity: id });
    });
    await expect(attempt).rejects.toSatisfy((e: unknown) => e instanceof BoardError && e.code === 'busy');
    expect(await readText(path.join(board.root, rel))).toBe('someone else\n');
    await expect(fs.stat(`${root}/runs/${id}/audit.jsonl`)).rejects.toMatchObject({ code: 'ENOENT' });
  });
});

describe('schemas on the way out', () => {
  it('a write that would break its file schema is never committed', async () => {
    const { root, board } = await newBoard();
    const id = runId(3);
    const before = await snapshotDir(root);
    const attempt = board.store.transact({ kind: 'run', id }, (tx) => {
      tx.write(`runs/${id}/RUN.md`, runData(id, { state: 'sometimes' }), '# Run\n');
      tx.audit({ actor: 'user:tester', action: 'run.started', entity: id });
    });
    await expect(attempt).rejects.toThrow(`a write would break the schema of runs/${id}/RUN.md`);
    expect(await snapshotDir(root)).toEqual(before);
  });
});
