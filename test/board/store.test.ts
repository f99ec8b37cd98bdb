/**
 * The board store through its public surface (`Board.init`, `board.store`):
 * transactions on real files in real temporary directories.
 *
 * Rules under test (docs/architecture.md "The write path", "External edits"):
 *  - an applied write gives rev + 1 and exactly one audit line;
 *  - an unchanged rewrite writes nothing at all;
 *  - a refused or failed transaction changes no file and audits nothing;
 *  - a rev mismatch is a conflict carrying the current file;
 *  - no path can address a file outside the board;
 *  - a hand edit is adopted when valid and not older, refused otherwise.
 */
import { createHash } from 'node:crypto';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { verifyChain } from '../../src/board/audit.js';
import { Board } from '../../src/board/board.js';
import { BoardError } from '../../src/board/errors.js';
import type { Tx } from '../../src/board/tx.js';
import { verifyBoard } from '../../src/board/verify.js';
import { parseMarkdown } from '../../src/core/markdown.js';
import { chainEvents, cleanupTmp, exists, newBoard, readText, runData, runId, snapshotDir, stepData, tmpDir } from '../support/tmp-board.js';

afterEach(cleanupTmp);

const sha256 = (b: string | Buffer) => createHash('sha256').update(b).digest('hex');
const BOARD_CHAIN = 'audit/board.jsonl';

/** The frontmatter of a file as data (parsed independently of the store). */
async function frontmatter(file: string): Promise<Record<string, unknown>> {
  const p = parseMarkdown(await readText(file));
  if (!p.ok) throw new Error(`${file} does not parse: ${JSON.stringify(p.issues)}`);
  return p.value.data as Record<string, unknown>;
}

/** Expect `p` to reject with a BoardError and return it. */
async function boardError(p: Promise<unknown>): Promise<BoardError> {
  let caught: unknown;
  try {
    await p;
  } catch (e) {
    caught = e;
  }
  expect(caught, 'expected the transaction to be refused').toBeInstanceOf(BoardError);
  return caught as BoardError;
}

async function writeRun(board: Board, id: string, extra: Record<string, unknown> = {}) {
  const rel = `runs/${id}/RUN.md`;
  return board.store.transact({ kind: 'run', id }, (tx) => {
    tx.write(rel, runData(id, extra), `# Run ${id}\n`);
    tx.audit({ actor: 'user:tester', action: 'run.updated', entity: id });
  });
}

/** Change WORK.md's title through the store (a normal, audited write). */
async function retitle(board: Board, title: string) {
  return board.store.transact({ kind: 'board' }, async (tx) => {
    const cur = await tx.read('WORK.md');
    tx.write('WORK.md', { ...cur!.data, title }, cur!.body);
    tx.audit({ actor: 'user:tester', action: 'board.retitled', entity: 'WORK.md' });
  });
}

describe('writes', () => {
  it('a write creates the file with rev 1 and exactly one audit line recording it', async () => {
    const { root, board } = await newBoard();
    const id = runId(1);
    const rel = `runs/${id}/RUN.md`;
    const { commit } = await writeRun(board, id);

    const bytes = await fs.readFile(path.join(root, rel));
    const data = await frontmatter(path.join(root, rel));
    expect(data).toEqual({ ...runData(id), rev: 1 });
    expect(commit.written).toEqual({ [rel]: 1 });

    const chainText = await readText(path.join(root, 'runs', id, 'audit.jsonl'));
    expect(chainText.split('\n')).toHaveLength(2); // one line + the final newline
    const [ev] = await chainEvents(path.join(root, 'runs', id, 'audit.jsonl'));
    expect(ev).toMatchObject({ seq: 0, prevHash: 'GENESIS', actor: 'user:tester', action: 'run.updated', entity: id });
    expect(ev!.input.fromRev).toBe(0);
    expect(ev!.input.toRev).toBe(1);
    expect(ev!.input.files[rel]).toEqual({ rev: 1, sha256: sha256(bytes) });
    expect(verifyChain(chainText).breaks).toEqual([]);
  });

  it('each applied write bumps rev by exactly one and appends exactly one linked audit line', async () => {
    const { root, board } = await newBoard();
    const id = runId(2);
    const rel = `runs/${id}/RUN.md`;
    for (let i = 1; i <= 4; i++) {
      await writeRun(board, id, { inputs: { n: i } });
      expect((await frontmatter(path.join(root, rel))).rev).toBe(i);
      const events = await chainEvents(path.join(root, 'runs', id, 'audit.jsonl'));
      expect(events).toHaveLength(i);
      expect(events[i - 1]!.seq).toBe(i - 1);
      expect(events[i - 1]!.input).toMatchObject({ fromRev: i - 1, toRev: i });
      if (i > 1) expect(events[i - 1]!.prevHash).toBe(events[i - 2]!.hash);
    }
  });

  it('writing unchanged content writes nothing: no rev bump, no audit line, same inode and mtime', async () => {
    const { root, board } = await newBoard();
    const id = runId(3);
    const rel = `runs/${id}/RUN.md`;
    await writeRun(board, id, { inputs: { amount: 12 } });
    const file = path.join(root, rel);
    const st1 = await fs.stat(file);
    const before = await snapshotDir(root);
    await new Promise((r) => setTimeout(r, 20)); // so a rewrite would show in the mtime

    // Same data, keys given in another order, no audit event: nothing to commit.
    const reordered = Object.fromEntries(Object.entries(runData(id, { inputs: { amount: 12 } })).reverse());
    const { commit } = await board.store.transact({ kind: 'run', id }, async (tx) => {
      await tx.read(rel);
      tx.write(rel, reordered, `# Run ${id}\n`);
    });
    expect(commit.written).toEqual({});
    expect(commit.events).toEqual([]);
    const st2 = await fs.stat(file);
    expect(st2.ino).toBe(st1.ino);
    expect(st2.mtimeMs).toBe(st1.mtimeMs);
    expect(await snapshotDir(root)).toEqual(before);
    expect((await frontmatter(file)).rev).toBe(1);
  });

  it('refuses to change a committed file without an audit event, and changes nothing', async () => {
    const { root, board } = await newBoard();
    const before = await snapshotDir(root);
    await expect(
      board.store.transact({ kind: 'board' }, async (tx) => {
        const cur = await tx.read('WORK.md');
        tx.write('WORK.md', { ...cur!.data, title: 'Unaudited' }, cur!.body);
      }),
    ).rejects.toThrow();
    expect(await snapshotDir(root)).toEqual(before);
  });

  it('a transaction whose function throws changes no file and appends no audit line', async () => {
    const { root, board } = await newBoard();
    const id = runId(4);
    await writeRun(board, id);
    const before = await snapshotDir(root);
    const boom = new Error('engine refused');
    await expect(
      board.store.transact({ kind: 'run', id }, async (tx) => {
        const cur = await tx.read(`runs/${id}/RUN.md`);
        tx.write(`runs/${id}/RUN.md`, { ...cur!.data, state: 'ended' }, 'changed');
        tx.write(`runs/${id}/review.md`, stepData('review'));
        await tx.create(`runs/${id}/notes.txt`, 'never\n');
        tx.writeState(`.work/leases/${id}/review.json`, '{}');
        tx.audit({ actor: 'user:tester', action: 'run.ended', entity: id });
        throw boom;
      }),
    ).rejects.toBe(boom);
    expect(await snapshotDir(root)).toEqual(before);
    // No state was written either, and the lock was released: the next transaction goes through.
    expect(await exists(path.join(root, '.work', 'leases', id, 'review.json'))).toBe(false);
    expect(await exists(path.join(root, '.work', 'locks', `run-${id}.lock`))).toBe(false);
    await writeRun(board, id, { state: 'waiting' });
    expect((await frontmatter(path.join(root, 'runs', id, 'RUN.md'))).rev).toBe(2);
  });

  it('expectRev on a stale rev is a conflict carrying the current file, and changes nothing', async () => {
    const { root, board } = await newBoard();
    const id = runId(5);
    const rel = `runs/${id}/RUN.md`;
    await writeRun(board, id, { inputs: { n: 1 } });
    await writeRun(board, id, { inputs: { n: 2 } });
    const before = await snapshotDir(root);

    const err = await boardError(
      board.store.transact({ kind: 'run', id }, async (tx) => {
        tx.write(`runs/${id}/review.md`, stepData('review'));
        tx.audit({ actor: 'user:tester', action: 'step.ready', entity: `${id}/review` });
        await tx.expectRev(rel, 1);
        tx.write(rel, runData(id, { inputs: { n: 3 } }));
      }),
    );
    expect(err.code).toBe('conflict');
    const current = err.current as { rev: number; data: Record<string, unknown> };
    expect(current.rev).toBe(2);
    expect(current.data).toEqual(await frontmatter(path.join(root, rel)));
    expect(await snapshotDir(root)).toEqual(before);

    // With the current rev the same write applies.
    await board.store.transact({ kind: 'run', id }, async (tx) => {
      await tx.expectRev(rel, 2);
      tx.write(rel, runData(id, { inputs: { n: 3 } }));
      tx.audit({ actor: 'user:tester', action: 'run.updated', entity: id });
    });
    expect(await frontmatter(path.join(root, rel))).toMatchObject({ rev: 3, inputs: { n: 3 } });
  });

  it('create writes the bytes exactly as given, and refuses a file that exists', async () => {
    const { root, board } = await newBoard();
    const rel = 'processes/expense-check/v1/PROCESS.md';
    const original = '---\r\nname: expense-check   # odd layout kept\r\n---\r\nBody\r\n\r\n';
    await board.store.transact({ kind: 'board' }, async (tx) => {
      await tx.create(rel, original);
      tx.audit({ actor: 'user:tester', action: 'process.published', entity: 'expense-check@v1' });
    });
    expect(await readText(path.join(root, rel))).toBe(original);
    const before = await snapshotDir(root);

    const err = await boardError(
      board.store.transact({ kind: 'board' }, async (tx) => {
        await tx.create(rel, 'something else\n');
        tx.audit({ actor: 'user:tester', action: 'process.published', entity: 'expense-check@v1' });
      }),
    );
    expect(err.issues.map((i) => i.path)).toContain(rel);
    await boardError(
      board.store.transact({ kind: 'board' }, async (tx) => {
        await tx.create('WORK.md', 'replaced\n');
        tx.audit({ actor: 'user:tester', action: 'board.replaced', entity: 'WORK.md' });
      }),
    );
    expect(await snapshotDir(root)).toEqual(before);
  });
});

describe('paths', () => {
  /** Every way to stage a file in a transaction. */
  const stagers: Record<string, (tx: Tx, rel: string) => unknown> = {
    write: (tx, rel) => tx.write(rel, { rev: 1, x: 1 }),
    create: (tx, rel) => tx.create(rel, 'x\n'),
    writeState: (tx, rel) => tx.writeState(rel, 'x\n'),
    removeState: (tx, rel) => tx.removeState(rel),
    readState: (tx, rel) => tx.readState(rel),
  };

  it('refuses paths outside the board (../, absolute, NUL) for every operation, and writes nothing outside', async () => {
    const parent = await tmpDir();
    const root = path.join(parent, 'board');
    await Board.init(root, { name: 'board', actor: 'user:tester' });
    const board = await Board.open(root);
    const outsideAbs = path.join(parent, 'abs-target.md');
    const bad = ['../x.md', '../../x.md', 'runs/../../x.md', '.work/../../x.md', outsideAbs, 'x\0.md', '.work/x\0'];
    const before = await snapshotDir(root);
    for (const [op, stage] of Object.entries(stagers)) {
      for (const rel of bad) {
        const err = await boardError(
          board.store.transact({ kind: 'board' }, async (tx) => {
            await stage(tx, rel);
            tx.audit({ actor: 'user:tester', action: 'x', entity: 'x' });
          }),
        );
        expect(err.code, `${op}(${JSON.stringify(rel)})`).toBe('invalid');
      }
    }
    expect((await fs.readdir(parent)).sort()).toEqual(['board']);
    expect(await snapshotDir(root)).toEqual(before);
    expect((await boardError(board.store.read('../x.md'))).code).toBe('invalid');
  });

  it('a state path cannot be used to reach a committed file (.work/../WORK.md)', async () => {
    const { root, board } = await newBoard();
    const before = await snapshotDir(root);
    await expect(
      board.store.transact({ kind: 'board' }, (tx) => {
        tx.writeState('.work/../WORK.md', 'not a board file\n');
      }),
    ).rejects.toThrow();
    expect(await snapshotDir(root)).toEqual(before);
  });

  // docs/architecture.md "The write path": one run = one lock scope. A run's transaction holds only that run's lock,
  // so it must not write a board-scope file (or another run's) under it.
  it('a run transaction cannot write a file of another scope (WORK.md, another run), and changes nothing', async () => {
    const { root, board } = await newBoard();
    const id = runId(10);
    const other = runId(11);
    const before = await snapshotDir(root);
    await expect(
      board.store.transact({ kind: 'run', id }, async (tx) => {
        const w = await tx.read('WORK.md');
        tx.write('WORK.md', { ...w!.data, title: 'Written under a run lock' }, w!.body);
        tx.audit({ actor: 'user:tester', action: 'board.retitled', entity: 'WORK.md' });
      }),
    ).rejects.toThrow();
    await expect(
      board.store.transact({ kind: 'run', id }, (tx) => {
        tx.write(`runs/${other}/RUN.md`, runData(other));
        tx.audit({ actor: 'user:tester', action: 'run.started', entity: other });
      }),
    ).rejects.toThrow();
    expect(await snapshotDir(root)).toEqual(before);
  });

  it('a symlink inside the board (e.g. one committed to git) cannot send a write outside it', async () => {
    const parent = await tmpDir();
    const root = path.join(parent, 'board');
    await Board.init(root, { name: 'board', actor: 'user:tester' });
    const board = await Board.open(root);
    const outside = path.join(parent, 'elsewhere');
    await fs.mkdir(outside);
    const id = runId(6);
    await fs.symlink(outside, path.join(root, 'runs', id));
    await expect(writeRun(board, id)).rejects.toThrow();
    expect(await fs.readdir(outside)).toEqual([]);
  });
});

describe('external edits (AIP-20 §4.7)', () => {
  const HAND_EDITED_TITLE = 'Acme operations (renamed by hand)';

  /** A hand edit of WORK.md: new title, a comment, flow style; rev line as it was. */
  async function handEdit(root: string, change: (text: string) => string): Promise<string> {
    const file = path.join(root, 'WORK.md');
    const text = change(await readText(file));
    await fs.writeFile(file, text);
    return text;
  }

  const validEdit = (text: string) => text.replace(/^title: .*$/m, `title: ${HAND_EDITED_TITLE}   # changed in an editor`).replace(/^groups: \{\}$/m, 'groups: { finance: [ann@example.com] }');

  it('adopts a valid hand edit on the next transaction that reads it: rev = known + 1, work.external-edit by external, layout kept', async () => {
    const { root, board } = await newBoard();
    const edited = await handEdit(root, validEdit);
    expect(edited).toMatch(/^rev: 1$/m);

    const { value } = await board.store.transact({ kind: 'board' }, async (tx) => (await tx.read('WORK.md'))!);
    expect(value.data.title).toBe(HAND_EDITED_TITLE);
    expect(value.data.groups).toEqual({ finance: ['ann@example.com'] });

    // The editor's bytes are kept; only the rev line moved on.
    const after = await readText(path.join(root, 'WORK.md'));
    expect(after).toBe(edited.replace(/^rev: 1$/m, 'rev: 2'));

    const events = await chainEvents(path.join(root, BOARD_CHAIN));
    expect(events).toHaveLength(2);
    expect(events[1]).toMatchObject({ actor: 'external', action: 'work.external-edit', entity: 'WORK.md' });
    expect(events[1]!.input).toMatchObject({ fromRev: 1, toRev: 2 });
    // The chain now records the adopted bytes: the board verifies, and the edit is not adopted twice.
    expect((await verifyBoard(board)).ok).toBe(true);
    await board.store.transact({ kind: 'board' }, async (tx) => void (await tx.read('WORK.md')));
    expect(await chainEvents(path.join(root, BOARD_CHAIN))).toHaveLength(2);
    expect(await readText(path.join(root, 'WORK.md'))).toBe(after);
  });

  it('adopts a hand edit that raised rev: rev becomes max(known, file) + 1', async () => {
    const { root, board } = await newBoard();
    await retitle(board, 'Second title'); // known rev 2
    await handEdit(root, (t) => validEdit(t).replace(/^rev: 2$/m, 'rev: 7'));
    await board.store.transact({ kind: 'board' }, async (tx) => void (await tx.read('WORK.md')));
    const data = await frontmatter(path.join(root, 'WORK.md'));
    expect(data.rev).toBe(8);
    expect(data.title).toBe(HAND_EDITED_TITLE);
    const last = (await chainEvents(path.join(root, BOARD_CHAIN))).at(-1)!;
    expect(last).toMatchObject({ actor: 'external', action: 'work.external-edit', entity: 'WORK.md' });
    expect(last.input).toMatchObject({ fromRev: 2, toRev: 8 });
  });

  it('a transaction that adopts a hand edit and then writes the file leaves a rev above both', async () => {
    const { root, board } = await newBoard();
    await handEdit(root, (t) => validEdit(t).replace(/^rev: 1$/m, 'rev: 4'));
    await retitle(board, 'Written after the edit');
    const data = await frontmatter(path.join(root, 'WORK.md'));
    expect(data.title).toBe('Written after the edit');
    expect(data.groups).toEqual({ finance: ['ann@example.com'] }); // read through the adopted edit
    expect(data.rev as number).toBeGreaterThan(4);
    const actions = (await chainEvents(path.join(root, BOARD_CHAIN))).map((e) => e.action);
    expect(actions).toEqual(['board.created', 'work.external-edit', 'board.retitled']);
    expect((await verifyBoard(board)).ok).toBe(true);
  });

  it('refuses a hand edit that breaks the schema: BoardError invalid, every issue naming the file, nothing changed', async () => {
    const { root, board } = await newBoard();
    await handEdit(root, (t) => t.replace(/^title: .*$/m, 'title: Fine\ncolour: blue').replace(/lockStaleSeconds: \d+/, 'lockStaleSeconds: 0'));
    const before = await snapshotDir(root);
    const err = await boardError(board.store.transact({ kind: 'board' }, async (tx) => void (await tx.read('WORK.md'))));
    expect(err.code).toBe('invalid');
    expect(err.issues.length).toBeGreaterThanOrEqual(2); // both problems at once
    for (const i of err.issues) expect(i.path.startsWith('WORK.md')).toBe(true);
    expect(err.issues.some((i) => i.path.includes('colour'))).toBe(true);
    expect(err.issues.some((i) => i.path.includes('lockStaleSeconds'))).toBe(true);
    expect(await snapshotDir(root)).toEqual(before);
  });

  it('refuses a hand edit that breaks the YAML: BoardError invalid naming the file, nothing changed', async () => {
    const { root, board } = await newBoard();
    await handEdit(root, (t) => t.replace(/^title: .*$/m, 'title: [unclosed'));
    const before = await snapshotDir(root);
    const err = await boardError(board.store.transact({ kind: 'board' }, async (tx) => void (await tx.read('WORK.md'))));
    expect(err.code).toBe('invalid');
    expect(err.issues.length).toBeGreaterThan(0);
    for (const i of err.issues) expect(i.path.startsWith('WORK.md')).toBe(true);
    expect(await snapshotDir(root)).toEqual(before);
  });

  it('refuses a hand edit that lowers rev below the recorded one, and changes nothing', async () => {
    const { root, board } = await newBoard();
    await retitle(board, 'Second title');
    await retitle(board, 'Third title'); // recorded rev 3
    await handEdit(root, (t) => validEdit(t).replace(/^rev: 3$/m, 'rev: 2'));
    const before = await snapshotDir(root);
    const err = await boardError(board.store.transact({ kind: 'board' }, async (tx) => void (await tx.read('WORK.md'))));
    expect(err.issues.some((i) => i.path.startsWith('WORK.md'))).toBe(true);
    expect(await snapshotDir(root)).toEqual(before);
  });

  it('refuses a tracked file deleted by hand, and does not recreate it', async () => {
    const { root, board } = await newBoard();
    const id = runId(7);
    await board.store.transact({ kind: 'run', id }, (tx) => {
      tx.write(`runs/${id}/RUN.md`, runData(id));
      tx.write(`runs/${id}/review.md`, stepData('review'));
      tx.audit({ actor: 'user:tester', action: 'run.started', entity: id });
    });
    await fs.rm(path.join(root, 'runs', id, 'review.md'));
    const before = await snapshotDir(root);
    const err = await boardError(board.store.transact({ kind: 'run', id }, async (tx) => void (await tx.read(`runs/${id}/review.md`))));
    expect(err.issues.some((i) => i.path.startsWith(`runs/${id}/review.md`))).toBe(true);
    expect(await snapshotDir(root)).toEqual(before);
  });

  // A write that does not read the file first must not skip §4.7: the hand edit is still
  // adopted (and audited) or refused, never silently overwritten, and rev never goes back.
  it('a write without a read over a valid hand edit still audits the external edit (or refuses), and rev moves past it', async () => {
    const { root, board } = await newBoard();
    await handEdit(root, (t) => validEdit(t).replace(/^rev: 1$/m, 'rev: 5'));
    const before = await snapshotDir(root);
    const data = await frontmatter(path.join(root, 'WORK.md'));
    let refused = false;
    try {
      await board.store.transact({ kind: 'board' }, (tx) => {
        tx.write('WORK.md', { ...data, title: 'Blind write' }, '');
        tx.audit({ actor: 'user:tester', action: 'board.retitled', entity: 'WORK.md' });
      });
    } catch (e) {
      expect(e).toBeInstanceOf(BoardError);
      refused = true;
    }
    if (refused) {
      expect(await snapshotDir(root)).toEqual(before);
    } else {
      const events = await chainEvents(path.join(root, BOARD_CHAIN));
      expect(events.map((e) => e.action)).toContain('work.external-edit');
      expect((await frontmatter(path.join(root, 'WORK.md'))).rev as number).toBeGreaterThan(5);
    }
  });

  it('a write without a read over an invalid hand edit is refused; rev never goes below the recorded rev', async () => {
    const { root, board } = await newBoard();
    await retitle(board, 'Second title'); // recorded rev 2
    await handEdit(root, (t) => t.replace(/^title: .*$/m, 'title: Fine\ncolour: blue'));
    const before = await snapshotDir(root);
    const err = await boardError(
      board.store.transact({ kind: 'board' }, (tx) => {
        tx.write('WORK.md', { schema: 'workboard/v1', name: 'board', title: 'Blind write', description: 'd' }, '');
        tx.audit({ actor: 'user:tester', action: 'board.retitled', entity: 'WORK.md' });
      }),
    );
    expect(err.code).toBe('invalid');
    expect(await snapshotDir(root)).toEqual(before);
  });

  it('a write without a read over a file deleted by hand never restarts its rev', async () => {
    const { root, board } = await newBoard();
    await retitle(board, 'Second title');
    await retitle(board, 'Third title'); // recorded rev 3
    await fs.rm(path.join(root, 'WORK.md'));
    const before = await snapshotDir(root);
    try {
      await board.store.transact({ kind: 'board' }, (tx) => {
        tx.write('WORK.md', { schema: 'workboard/v1', name: 'board', title: 'Recreated', description: 'd' }, '');
        tx.audit({ actor: 'user:tester', action: 'board.retitled', entity: 'WORK.md' });
      });
    } catch (e) {
      expect(e).toBeInstanceOf(BoardError);
      expect(await snapshotDir(root)).toEqual(before);
      return;
    }
    expect((await frontmatter(path.join(root, 'WORK.md'))).rev as number).toBeGreaterThan(3);
  });
});

describe('snapshot', () => {
  it('sees one consistent state of several files while commits are in flight', async () => {
    const { board } = await newBoard();
    const id = runId(8);
    const runRel = `runs/${id}/RUN.md`;
    const stepRel = `runs/${id}/review.md`;
    const N = 25;
    let done = false;
    const writer = (async () => {
      try {
        for (let n = 1; n <= N; n++) {
          await board.store.transact({ kind: 'run', id }, (tx) => {
            tx.write(runRel, runData(id, { inputs: { n } }));
            tx.write(stepRel, stepData('review', { output: { n } }));
            tx.audit({ actor: 'user:tester', action: 'run.updated', entity: id });
          });
        }
      } finally {
        done = true;
      }
    })();
    const seen: number[] = [];
    while (!done) {
      const pair = await board.store.snapshot({ kind: 'run', id }, async (read) => {
        const run = await read(runRel);
        await new Promise((r) => setImmediate(r)); // let a commit interleave between the two reads
        const step = await read(stepRel);
        return { run, step };
      });
      const a = (pair.run?.data.inputs as { n?: number } | undefined)?.n ?? 0;
      const b = (pair.step?.data.output as { n?: number } | undefined)?.n ?? 0;
      expect(b).toBe(a);
      if (pair.run) expect(pair.step!.rev).toBe(pair.run.rev);
      seen.push(a);
    }
    await writer;
    expect(seen.length).toBeGreaterThan(0);
    for (let i = 1; i < seen.length; i++) expect(seen[i]!).toBeGreaterThanOrEqual(seen[i - 1]!);
    const final = await board.store.snapshot({ kind: 'run', id }, async (read) => [await read(runRel), await read(stepRel)] as const);
    expect(final[0]!.rev).toBe(N);
    expect(final[1]!.data.output).toEqual({ n: N });
  });

  it('returns null for a file that is not there', async () => {
    const { board } = await newBoard();
    const v = await board.store.snapshot({ kind: 'run', id: runId(9) }, (read) => read(`runs/${runId(9)}/RUN.md`));
    expect(v).toBeNull();
  });
});

describe('Board.init', () => {
  it('creates a valid WORK.md at rev 1, a .gitignore excluding .work/, and a one-line board chain', async () => {
    const root = path.join(await tmpDir(), 'acme-ops');
    const board = await Board.init(root, { actor: 'user:tester' });
    expect(board.manifest.name).toBe('acme-ops');
    const data = await frontmatter(path.join(root, 'WORK.md'));
    expect(data).toMatchObject({ schema: 'workboard/v1', name: 'acme-ops', rev: 1 });
    expect((await readText(path.join(root, '.gitignore'))).split('\n').map((l) => l.trim())).toContain('.work/');
    expect(await chainEvents(path.join(root, BOARD_CHAIN))).toHaveLength(1);
    expect((await verifyBoard(board)).ok).toBe(true);
  });

  it('keeps an existing .gitignore, and refuses a folder that already has a board', async () => {
    const root = await tmpDir();
    await fs.writeFile(path.join(root, '.gitignore'), 'node_modules/\n*.log');
    await Board.init(root, { name: 'b', actor: 'user:tester' });
    const gi = (await readText(path.join(root, '.gitignore'))).split('\n');
    expect(gi).toEqual(expect.arrayContaining(['node_modules/', '*.log', '.work/']));
    const before = await snapshotDir(root);
    await boardError(Board.init(root, { name: 'b', actor: 'user:tester' }));
    expect(await snapshotDir(root)).toEqual(before);
  });
});

describe('Board.locate', () => {
  async function layout() {
    const base = await tmpDir();
    const outer = path.join(base, 'outer');
    const inner = path.join(outer, 'inner');
    const deep = path.join(inner, 'a', 'b');
    const other = path.join(base, 'other');
    await fs.mkdir(deep, { recursive: true });
    await fs.mkdir(other, { recursive: true });
    for (const d of [outer, inner, other]) await fs.writeFile(path.join(d, 'WORK.md'), '---\nrev: 1\n---\n');
    return { base, outer, inner, deep, other };
  }

  it('an explicit board wins over WORKBOARD_DIR and the cwd, resolved from the cwd', async () => {
    const { base, deep, other, outer } = await layout();
    expect(Board.locate(other, { WORKBOARD_DIR: outer }, deep)).toBe(other);
    expect(Board.locate('../../../../other', { WORKBOARD_DIR: outer }, deep)).toBe(other);
    expect(Board.locate('other', {}, base)).toBe(other);
  });

  it('WORKBOARD_DIR wins over walking up from the cwd', async () => {
    const { deep, other } = await layout();
    expect(Board.locate(undefined, { WORKBOARD_DIR: other }, deep)).toBe(other);
  });

  it('walks up from the cwd to the nearest folder holding WORK.md', async () => {
    const { deep, inner, outer } = await layout();
    expect(Board.locate(undefined, {}, deep)).toBe(inner);
    expect(Board.locate(undefined, {}, inner)).toBe(inner);
    expect(Board.locate(undefined, {}, path.join(outer))).toBe(outer);
  });

  it('is an error when there is no board anywhere up from the cwd', async () => {
    const dir = await tmpDir();
    for (let d = dir; ; d = path.dirname(d)) {
      if (await exists(path.join(d, 'WORK.md'))) return; // a stray WORK.md above the temp dir: nothing to test here
      if (path.dirname(d) === d) break;
    }
    expect(() => Board.locate(undefined, {}, path.join(dir))).toThrow(BoardError);
  });
});
