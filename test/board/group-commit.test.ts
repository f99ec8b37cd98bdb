/**
 * Group commit (issue 30): commits on different runs of one process that are
 * ready at the same moment share the commit log's flush; a lone commit takes
 * one flush of its own, at once. Counted through fsyncCount (every fsync,
 * fdatasync and syncfs the process asks for), never timed.
 */
import { promises as fs } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ulid } from 'ulid';
import { afterAll, describe, expect, it } from 'vitest';
import { Board } from '../../src/board/board.js';
import { fsyncCount } from '../../src/board/fsutil.js';

const made: string[] = [];
afterAll(async () => {
  for (const d of made) await fs.rm(d, { recursive: true, force: true });
});

async function board(): Promise<Board> {
  const dir = await fs.mkdtemp(path.join(tmpdir(), 'wb-group-'));
  made.push(dir);
  return Board.init(dir, { name: 'g', actor: 'test' });
}

function write(b: Board, runId: string, n: number) {
  const rel = `runs/${runId}/work.md`;
  return b.store.transact({ kind: 'run', id: runId }, (tx) => {
    tx.write(rel, { id: 'work', kind: 'agent', state: 'ready', output: { n } });
    tx.writeState(`.work/leases/${runId}/work.json`, JSON.stringify({ n }));
    tx.audit({ actor: 'test', action: 'wrote', entity: rel });
  });
}

const newRun = () => `r-${ulid().toLowerCase()}`;

describe('group commit', () => {
  it('a lone commit takes exactly one flush of its own, started at once', async () => {
    const b = await board();
    await b.store.checkpoint(); // the log exists and holds nothing: what follows is the commit's own
    const before = fsyncCount();
    await write(b, newRun(), 1);
    expect(fsyncCount() - before).toBe(1);
  });

  it('N commits on different runs at once share flushes: fewer flushes than commits, each commit whole', async () => {
    const b = await board();
    await b.store.checkpoint();
    const N = 8;
    const runs = Array.from({ length: N }, newRun);
    const before = fsyncCount();
    await Promise.all(runs.map((id, i) => write(b, id, i)));
    const flushes = fsyncCount() - before;
    expect(flushes).toBeGreaterThan(0);
    expect(flushes).toBeLessThan(N);
    for (const [i, id] of runs.entries()) {
      expect((await b.store.read(`runs/${id}/work.md`))?.data.output).toEqual({ n: i });
      expect(await fs.readFile(path.join(b.root, `.work/leases/${id}/work.json`), 'utf8')).toBe(JSON.stringify({ n: i }));
    }
  });
});
