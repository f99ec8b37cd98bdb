/**
 * Journals left by a writer that died: a whole one (it carries every file's
 * new bytes) is rolled forward, and a lock-free reader already sees its new
 * state; a torn one means the commit never reached its flush, so readers see
 * the old state and the next writer discards it with its temp files.
 */
import { spawnSync } from 'node:child_process';
import { promises as fs } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ulid } from 'ulid';
import { describe, expect, it } from 'vitest';
import { Board } from '../../src/board/board.js';
import { sha256Hex } from '../../src/core/hash.js';
import { encodeDoc } from '../../src/board/document.js';
import { verifyBoard } from '../../src/board/verify.js';
import { HOST } from '../../src/board/fsutil.js';
import { scopeFiles } from '../../src/board/layout.js';

async function setup() {
  const dir = await fs.mkdtemp(path.join(tmpdir(), 'wb-journal-'));
  const board = await Board.init(dir, { name: 'j', actor: 'test' });
  const runId = `r-${ulid().toLowerCase()}`;
  const rel = `runs/${runId}/work.md`;
  await board.store.transact({ kind: 'run', id: runId }, (tx) => {
    tx.write(rel, { id: 'work', kind: 'agent', state: 'ready', output: { k: 1 } });
    tx.audit({ actor: 'test', action: 'seeded', entity: rel });
  });
  return { board, runId, rel };
}

const read = (board: Board, runId: string, rel: string) => board.store.snapshot({ kind: 'run', id: runId }, async (r) => (await r(rel))?.data.output);

/** A journal as a writer leaves it on disk (the format of journal.ts), written by hand. */
function journal(runId: string, files: { rel: string; prev: string | null; bytes: string; tmp?: string; sha256?: string }[]) {
  return JSON.stringify({
    v: 2,
    id: 'hand',
    scope: `run ${runId}`,
    chain: `runs/${runId}/audit.jsonl`,
    files: files.map((f) => ({ rel: f.rel, prev: f.prev, sha256: f.sha256 ?? sha256Hex(f.bytes), ...(f.tmp ? { tmp: f.tmp } : {}), text: f.bytes })),
    lines: [],
    firstSeq: 1,
    pos: 1,
    at: 0,
  });
}

describe('journals of dead writers', () => {
  it('a torn journal: readers see the old state; the next writer discards it and its temp file', async () => {
    const { board, runId, rel } = await setup();
    const tmp = `${rel}.tmp-deadhost-1-abcd`;
    await fs.writeFile(path.join(board.root, tmp), encodeDoc(rel, { id: 'work', kind: 'agent', state: 'ready', output: { k: 2 }, rev: 2 }, ''));
    await fs.mkdir(path.join(board.root, '.work/journal'), { recursive: true });
    await fs.writeFile(path.join(board.root, `.work/journal/run-${runId}.json`), '{"v":2,"id":"x","files":[{"rel":"runs/');
    expect(await read(board, runId, rel)).toEqual({ k: 1 });
    await board.store.transact({ kind: 'run', id: runId }, () => undefined);
    expect(await fs.readdir(path.join(board.root, '.work/journal'))).toEqual([]);
    expect((await fs.readdir(path.join(board.root, `runs/${runId}`))).filter((n) => n.includes('.tmp-'))).toEqual([]);
    expect((await board.store.read(rel))?.data.output).toEqual({ k: 1 });
  });

  it('a whole journal: readers see the new state at once; the next writer rolls it forward from the journal alone (no temp file needed)', async () => {
    const { board, runId, rel } = await setup();
    const before = await fs.readFile(path.join(board.root, rel));
    const bytes = encodeDoc(rel, { id: 'work', kind: 'agent', state: 'ready', output: { k: 2 }, rev: 2 }, '');
    await fs.mkdir(path.join(board.root, '.work/journal'), { recursive: true });
    // Its temp never reached the disk (a power loss took it): the journal's content is enough.
    await fs.writeFile(path.join(board.root, `.work/journal/run-${runId}.json`), journal(runId, [{ rel, prev: sha256Hex(before), bytes, tmp: `${rel}.tmp-deadhost-1-beef` }]));
    expect(await read(board, runId, rel)).toEqual({ k: 2 });
    // The chain does not record rev 2 (no audit line in this hand-made journal), so the roll-forward's
    // result is an external edit to the next transaction: adopted, as any valid edit is.
    await board.store.transact({ kind: 'run', id: runId }, async (tx) => {
      expect((await tx.read(rel))?.data.output).toEqual({ k: 2 });
    });
    expect(await fs.readdir(path.join(board.root, '.work/journal'))).toEqual([]);
    expect((await fs.readdir(path.join(board.root, `runs/${runId}`))).filter((n) => n.includes('.tmp-'))).toEqual([]);
  });

  it('a whole journal whose writer renamed one file and left a torn temp for the other: rolled forward to both new files', async () => {
    const { board, runId, rel } = await setup();
    const second = `runs/${runId}/other.md`;
    const before = await fs.readFile(path.join(board.root, rel));
    const a = encodeDoc(rel, { id: 'work', kind: 'agent', state: 'ready', output: { k: 2 }, rev: 2 }, '');
    const b = encodeDoc(second, { id: 'other', kind: 'agent', state: 'ready', rev: 1 }, '');
    const tmpB = `${second}.tmp-deadhost-1-b2`;
    await fs.writeFile(path.join(board.root, rel), a); // already renamed into place
    await fs.writeFile(path.join(board.root, tmpB), b.slice(0, 10)); // torn
    await fs.mkdir(path.join(board.root, '.work/journal'), { recursive: true });
    await fs.writeFile(
      path.join(board.root, `.work/journal/run-${runId}.json`),
      journal(runId, [
        { rel, prev: sha256Hex(before), bytes: a, tmp: `${rel}.tmp-deadhost-1-a1` },
        { rel: second, prev: null, bytes: b, tmp: tmpB },
      ]),
    );
    await board.store.transact({ kind: 'run', id: runId }, () => undefined);
    expect(await fs.readFile(path.join(board.root, rel), 'utf8')).toBe(a);
    expect(await fs.readFile(path.join(board.root, second), 'utf8')).toBe(b);
    expect(await fs.readdir(path.join(board.root, '.work/journal'))).toEqual([]);
    expect((await fs.readdir(path.join(board.root, `runs/${runId}`))).filter((n) => n.includes('.tmp-'))).toEqual([]);
  });

  it('a journal whose content does not match its hashes is reported as damage, never applied', async () => {
    const { board, runId, rel } = await setup();
    const before = await fs.readFile(path.join(board.root, rel));
    const a = encodeDoc(rel, { id: 'work', kind: 'agent', state: 'ready', output: { k: 2 }, rev: 2 }, '');
    await fs.mkdir(path.join(board.root, '.work/journal'), { recursive: true });
    await fs.writeFile(path.join(board.root, `.work/journal/run-${runId}.json`), journal(runId, [{ rel, prev: sha256Hex(before), bytes: a, sha256: sha256Hex('something else') }]));
    await expect(board.store.transact({ kind: 'run', id: runId }, () => undefined)).rejects.toMatchObject({ code: 'corrupt' });
    expect(await fs.readdir(path.join(board.root, '.work/journal'))).toEqual([`run-${runId}.json`]);
    expect(await fs.readFile(path.join(board.root, rel))).toEqual(before);
    // audit verify names the journal as the damage.
    const report = await verifyBoard(board);
    expect(report.ok).toBe(false);
    expect(report.chains.flatMap((c) => c.breaks)).toEqual([{ file: `.work/journal/run-${runId}.json`, line: null, reason: expect.stringMatching(/does not match its hashes/) }]);
  });

  it("a whole journal of an earlier version's format is never discarded as torn: the scope answers corrupt and keeps it", async () => {
    const { board, runId, rel } = await setup();
    const before = await fs.readFile(path.join(board.root, rel));
    await fs.mkdir(path.join(board.root, '.work/journal'), { recursive: true });
    const old = JSON.stringify({
      id: 'old',
      scope: `run ${runId}`,
      renames: [{ tmp: `${rel}.tmp-deadhost-1-c3`, to: rel, sha256: sha256Hex('x') }],
      removes: [],
      chain: `runs/${runId}/audit.jsonl`,
      lines: [],
      firstSeq: 1,
    });
    await fs.writeFile(path.join(board.root, `.work/journal/run-${runId}.json`), old);
    await expect(board.store.transact({ kind: 'run', id: runId }, () => undefined)).rejects.toMatchObject({ code: 'corrupt' });
    expect(await fs.readFile(path.join(board.root, `.work/journal/run-${runId}.json`), 'utf8')).toBe(old);
    expect(await fs.readFile(path.join(board.root, rel))).toEqual(before);
  });

  it('audit verify on a torn journal: the old state verifies, and the chain is said to have a commit that never started', async () => {
    const { board, runId } = await setup();
    await fs.mkdir(path.join(board.root, '.work/journal'), { recursive: true });
    await fs.writeFile(path.join(board.root, `.work/journal/run-${runId}.json`), '{"v":2,"id":"x","files":[{"rel":"runs/');
    const report = await verifyBoard(board);
    expect(report.ok, JSON.stringify(report.chains)).toBe(true);
    expect(report.chains.filter((c) => c.pending).map((c) => [c.file, c.pending])).toEqual([[`runs/${runId}/audit.jsonl`, expect.stringMatching(/never reached its commit point/)]]);
  });
});

describe('a writer that died holding a lock, with a temp file in the run folder', () => {
  it('a merge that writes the run (store.replace) breaks the lock and removes the temp, as a transition does', async () => {
    const { board, runId, rel } = await setup();
    const scope = { kind: 'run', id: runId } as const;
    const dead = spawnSync(process.execPath, ['-e', '']).pid;
    await fs.mkdir(path.join(board.root, '.work/locks'), { recursive: true });
    await fs.writeFile(path.join(board.root, scopeFiles(scope).lock), JSON.stringify({ host: HOST, pid: dead, acquiredAt: new Date().toISOString(), token: 'dead' }));
    const tmp = `${rel}.tmp-${HOST}-${dead}-0badf00d`;
    await fs.writeFile(path.join(board.root, tmp), 'half a file');
    const before = (await board.store.readBytes(rel))!;
    const after = Buffer.from(encodeDoc(rel, { id: 'work', kind: 'agent', state: 'ready', output: { k: 3 }, rev: 2 }, ''));
    await board.store.replace([{ scope, files: [{ rel, from: sha256Hex(before), to: after }] }]);
    expect((await fs.readdir(path.join(board.root, `runs/${runId}`))).filter((n) => n.includes('.tmp-'))).toEqual([]);
    expect((await board.store.read(rel))?.data.output).toEqual({ k: 3 });
  });
});
