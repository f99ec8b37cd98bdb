/**
 * The readers of RUN.md agree (docs/architecture.md "How the run index reads a run"):
 * on every RUN.md of the test boards (the fixtures' boards, and a board
 * driven here to every run state and mode) the run index's fast read of the
 * lines (service/run-summary-scan.ts) gives exactly what the full read gives
 * (the codec and the run schema), and git's head read (board/run-head.ts)
 * gives the same id, process, version, mode and rev. The fast read takes its
 * state and mode names and its field rules from the run schema: they are the
 * engine's names.
 */
import { existsSync, promises as fs, readdirSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { decodeDoc } from '../../src/board/document.js';
import { readRunHead } from '../../src/board/run-head.js';
import { fieldRule } from '../../src/board/schemas.js';
import type { RunRecord } from '../../src/engine/types.js';
import { runFromDoc } from '../../src/service/runfiles.js';
import { scanRunSummary } from '../../src/service/run-summary-scan.js';
import { CAST, cleanupHarnesses, Harness, REPO } from '../support/svc-harness.js';

afterAll(cleanupHarnesses);

/** Every RUN.md under a folder, by path. */
function runFiles(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && e.name === 'RUN.md')
    .map((e) => path.join(e.parentPath, e.name));
}

/** What the codec and the schema read of a RUN.md, as the index keeps it. */
function full(rel: string, text: string) {
  const d = decodeDoc(rel, Buffer.from(text));
  if (!d.ok) return null;
  const r = runFromDoc(d.doc);
  return {
    summary: { id: r.id, process: r.process, version: r.version, state: r.state, outcome: r.outcome, mode: r.mode, startedAt: r.startedAt, updatedAt: r.updatedAt, inputs: r.inputs },
    head: { id: r.id, process: r.process, version: r.version, mode: r.mode, rev: d.doc.rev },
  };
}

/** A board with runs in every state and both modes, written by the service. */
async function drivenBoard(): Promise<string> {
  const h = await Harness.open({ groups: { legal: [CAST.lee] }, processes: [{ folder: 'contract-approval', roles: { legal: 'legal' } }] });
  const start = (supplier: string, extra: Record<string, unknown> = {}) => h.start('contract-approval', { supplier }, CAST.ann, extra);
  await start('Waiting Ltd');
  await start('Test mode', { mode: 'test' });
  const cancelled = await start('Cancelled Ltd');
  await h.ok('cancel', { runId: cancelled.run.id, reason: 'Entered twice.' }, CAST.operator);
  for (const decision of ['approved', 'rejected']) {
    const v = await h.view((await start(`Ended ${decision}`)).run.id);
    await h.decide(v, v.workItems[0].stepId, decision, CAST.lee, decision === 'rejected' ? { note: 'Not this supplier.' } : {});
  }
  return h.root;
}

describe('the readers of RUN.md', () => {
  it('on every RUN.md of the test boards: the fast read is the full read, and the head read agrees', async () => {
    const boards = [path.join(REPO, 'fixtures', 'boards'), path.join(REPO, 'examples'), await drivenBoard()];
    const files = boards.flatMap(runFiles);
    const states = new Set<string>();
    const modes = new Set<string>();
    for (const file of files) {
      const text = await fs.readFile(file, 'utf8');
      const rel = `runs/${path.basename(path.dirname(file))}/RUN.md`;
      const f = full(rel, text);
      expect(f, file).not.toBeNull();
      expect(scanRunSummary(text), file).toEqual(f!.summary);
      expect(readRunHead(text), file).toEqual(f!.head);
      states.add(f!.summary.state);
      modes.add(f!.summary.mode);
    }
    console.log(`${files.length} RUN.md files read three ways: states ${[...states].sort().join(', ')}; modes ${[...modes].sort().join(', ')}`);
    expect(states).toEqual(new Set(['active', 'waiting', 'ended', 'cancelled']));
    expect(modes).toEqual(new Set(['live', 'test']));
  });

  it("the fast read takes the state and mode names from the run schema, and they are the engine's", () => {
    const engineStates: RunRecord['state'][] = ['active', 'waiting', 'ended', 'cancelled'];
    const engineModes: RunRecord['mode'][] = ['live', 'test'];
    expect(fieldRule('run', 'state').enum).toEqual(engineStates);
    expect(fieldRule('run', 'mode').enum).toEqual(engineModes);
    // A state or mode the schema does not name, or a field against its rule: the fast read gives up, and so does the full read.
    const base = [
      '---',
      'id: r-01jd0000000000000000000001',
      'process: hello',
      'version: 1',
      'hash: aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa',
      'mode: live',
      'state: active',
      'outcome: null',
      'startedBy: ann@example.com',
      'startedAt: "2026-10-06T09:00:00.000Z"',
      'updatedAt: "2026-10-06T09:00:00.000Z"',
      'rev: 1',
      'inputs: {}',
      '---',
      '',
    ].join('\n');
    const rel = 'runs/r-01jd0000000000000000000001/RUN.md';
    expect(scanRunSummary(base)).toEqual(full(rel, base)!.summary);
    for (const [from, to] of [
      ['state: active', 'state: paused'],
      ['mode: live', 'mode: demo'],
      ['version: 1', 'version: 0'],
      ['process: hello', 'process: Hello_World'],
    ]) {
      const text = base.replace(from!, to!);
      expect(full(rel, text), to).toBeNull();
      expect(scanRunSummary(text), to).toBeNull();
    }
  });
});
