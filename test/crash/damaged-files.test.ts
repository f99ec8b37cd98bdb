/**
 * Crash suite, scenario 3: directories and deletions in place of board files
 * (issue 13, items 7, 8 and 9).
 *
 * On a board with three runs, B, A and C (started in that order, so `runs/`
 * lists them so), A's draft claimed through a long-lived stdio MCP server that
 * has read A, and C's draft.md edited by hand (a finding `doctor` must keep
 * reporting after A's), one fault is made in A:
 *   - RUN.md replaced by a directory;     - draft.md replaced by a directory;
 *   - RUN.md deleted;                     - draft.md deleted;
 *   - the run folder replaced by a symbolic link to it, moved outside the board.
 * Then:
 *   - reads (get_run over the MCP server that read A before, `workboard show`
 *     from a fresh process) serve A's last valid state, or refuse clearly
 *     (`conflict`, `board_file_invalid`, naming the file); never `retry`
 *     ("internal error"), never `not_found`, never a state that never existed;
 *   - writes (send_event, renew, submit over MCP; `workboard event` and
 *     `workboard cancel`) answer `conflict` with `board_file_invalid` first in
 *     issues and the file named, and write nothing, inside the board or out;
 *   - `workboard doctor` names the file, still reports run C after A, and exits
 *     1 (problems found), not 70;
 *   - `workboard audit verify` reports the file as a break (exit 1, not 70),
 *     and never follows the symlinked run folder outside the board.
 * Then the file is restored (and C's edit undone): reads serve A as before, a
 * write succeeds again, and `audit verify` and `doctor` are clean.
 */
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tree } from '../abuse/abuse-support.js';
import {
  AGENT,
  brief,
  built,
  cleanup,
  cli,
  EXIT,
  freshBoard,
  healthProblems,
  Mcp,
  OPERATOR,
  recoverAndCheck,
  said,
  saidVerify,
  saidShort,
  startArgs,
  submitArgs,
  tmp,
  type Json,
  type ToolResult,
} from './crash-support.js';

interface Arena {
  base: string;
  root: string;
  outside: string;
  mcp: Mcp;
  a: string;
  c: string;
  token: string;
  /** A as read before the fault: what "the last valid state" must be. */
  before: Json;
  /** C's draft.md as workboard wrote it. */
  cDraft: Buffer;
}

interface Fault {
  name: string;
  /** The board path every answer must name (relative to the board root). */
  names: (a: string) => string;
  apply: (x: Arena) => Promise<void>;
  restore: (x: Arena) => Promise<void>;
}

const saved = new Map<string, Buffer>();
const runFile = (x: Arena, f: string) => path.join(x.root, 'runs', x.a, f);

function replaceWithDir(file: string): Fault['apply'] {
  return async (x) => {
    const abs = runFile(x, file);
    saved.set(abs, await fs.readFile(abs));
    await fs.rm(abs);
    await fs.mkdir(abs);
    await fs.writeFile(path.join(abs, 'inside.md'), '---\nrev: 1\n---\n');
  };
}

function remove(file: string): Fault['apply'] {
  return async (x) => {
    const abs = runFile(x, file);
    saved.set(abs, await fs.readFile(abs));
    await fs.rm(abs);
  };
}

function putBack(file: string): Fault['restore'] {
  return async (x) => {
    const abs = runFile(x, file);
    await fs.rm(abs, { recursive: true, force: true });
    await fs.writeFile(abs, saved.get(abs)!);
  };
}

const FAULTS: Fault[] = [
  { name: 'RUN.md replaced by a directory', names: (a) => `runs/${a}/RUN.md`, apply: replaceWithDir('RUN.md'), restore: putBack('RUN.md') },
  { name: 'a step file (draft.md) replaced by a directory', names: (a) => `runs/${a}/draft.md`, apply: replaceWithDir('draft.md'), restore: putBack('draft.md') },
  { name: 'RUN.md deleted', names: (a) => `runs/${a}/RUN.md`, apply: remove('RUN.md'), restore: putBack('RUN.md') },
  { name: 'a step file (draft.md) deleted', names: (a) => `runs/${a}/draft.md`, apply: remove('draft.md'), restore: putBack('draft.md') },
  {
    name: 'the run folder a symbolic link to a folder outside the board',
    names: (a) => `runs/${a}`,
    apply: async (x) => {
      await fs.rename(path.join(x.root, 'runs', x.a), path.join(x.outside, x.a));
      await fs.symlink(path.join(x.outside, x.a), path.join(x.root, 'runs', x.a));
    },
    restore: async (x) => {
      await fs.rm(path.join(x.root, 'runs', x.a));
      await fs.rename(path.join(x.outside, x.a), path.join(x.root, 'runs', x.a));
    },
  },
];

/** The parts of a run view that are the run's state (the same at any moment while nothing fell due). */
function state(view: Json): Json {
  return { run: view.run, steps: view.steps, data: view.data, workItems: view.workItems };
}

async function arena(): Promise<Arena> {
  const base = await tmp('wb-crash-damage-');
  const root = await freshBoard(base);
  const outside = path.join(base, 'outside');
  await fs.mkdir(outside);
  await fs.writeFile(path.join(outside, 'keep.txt'), 'outside the board\n');
  const mcp = await Mcp.start(root);
  const ok = async (tool: string, args: Record<string, unknown>) => {
    const r = await mcp.call(tool, args);
    if (!r.ok) throw new Error(`${tool}: ${brief(r)}`);
    return r.data;
  };
  await ok('start_run', startArgs('run-b'));
  const a = (await ok('start_run', startArgs('run-a'))).run.id as string;
  const token = (await ok('claim', { runId: a, stepId: 'draft', requestId: 'claim-a' })).token as string;
  const c = (await ok('start_run', startArgs('run-c'))).run.id as string;
  const before = await ok('get_run', { runId: a });
  const cDraft = await fs.readFile(path.join(root, 'runs', c, 'draft.md'));
  const verify = await cli(root, ['audit', 'verify'], { json: false });
  if (verify.code !== 0) throw new Error(`the board is not clean before the fault: ${said(verify)}`);
  return { base, root, outside, mcp, a, c, token, before, cDraft };
}

/** A read of the damaged run: the last valid state, or a clear refusal naming the file. */
function readProblem(label: string, r: ToolResult | null, x: Arena, named: string): string | null {
  if (!r) return `${label}: no result`;
  if (r.ok) return JSON.stringify(state(r.data)) === JSON.stringify(state(x.before)) ? null : `${label} served a state that never existed: ${JSON.stringify(state(r.data).steps)}`;
  const text = `${r.error?.message} ${(r.error?.issues ?? []).join(' ')}`;
  if (r.error?.code !== 'conflict' || r.error.issues?.[0] !== 'board_file_invalid' || !text.includes(named))
    return `${label} answered ${brief(r)} (want the last valid state, or conflict board_file_invalid naming ${named})`;
  return null;
}

/** A write on the damaged run: conflict, board_file_invalid first, the file named. */
function writeProblem(label: string, r: ToolResult | null, named: string): string | null {
  if (!r) return `${label}: no result`;
  const text = `${r.error?.message ?? ''} ${(r.error?.issues ?? []).join(' ')}`;
  if (r.ok || r.error?.code !== 'conflict' || r.error.issues?.[0] !== 'board_file_invalid' || !text.includes(named))
    return `${label} answered ${brief(r)} (want conflict, board_file_invalid, naming ${named})`;
  return null;
}

beforeAll(built, 120_000);
afterAll(cleanup);

describe('directories and deletions in place of board files', () => {
  const arenas: Arena[] = [];
  afterAll(async () => {
    for (const x of arenas) await x.mcp.close();
  });

  // Each: reads serve the last valid state or refuse naming the file; writes are conflict board_file_invalid;
  // doctor and audit verify report it (exit 1, never 70) and every other run; restored, all is clean.
  it.each(FAULTS)(
    '$name: refused or last valid state, never retry; doctor and verify name it; clean once restored',
    async (fault) => {
      const x = await arena();
      arenas.push(x);
      const named = fault.names(x.a);
      // C edited by hand: a finding doctor must report even though A, listed before it, is broken.
      await fs.writeFile(path.join(x.root, 'runs', x.c, 'draft.md'), `${x.cDraft.toString('utf8')}Edited by hand.\n`);
      await fault.apply(x);
      const boardBefore = await tree(x.root);
      const outsideBefore = await tree(x.outside, []);
      const problems: string[] = [];
      const note = (p: string | null) => p && problems.push(p);

      // Reads.
      note(readProblem('get_run (the MCP server that read A before)', await x.mcp.call('get_run', { runId: x.a }), x, named));
      const show = await cli(x.root, ['show', x.a], { as: AGENT });
      note(show.code === EXIT.internal ? `workboard show: ${saidShort(show)}` : readProblem('workboard show (a fresh process)', show.json, x, named));

      // Writes.
      note(writeProblem('send_event (MCP)', await x.mcp.call('send_event', { runId: x.a, name: 'release-tagged', requestId: `ev-${fault.name}` }), named));
      note(writeProblem('renew (MCP)', await x.mcp.call('renew', { token: x.token, requestId: `renew-${fault.name}` }), named));
      note(writeProblem('submit (MCP)', await x.mcp.call('submit', submitArgs(x.token, `submit-${fault.name}`)), named));
      const event = await cli(x.root, ['event', x.a, 'release-tagged'], { as: AGENT });
      note(event.code === EXIT.refused ? writeProblem('workboard event', event.json, named) : `workboard event: ${saidShort(event)} (want exit 1)`);
      const cancel = await cli(x.root, ['cancel', x.a, '--reason', 'Broken board file.'], { as: OPERATOR });
      note(cancel.code === EXIT.refused ? writeProblem('workboard cancel', cancel.json, named) : `workboard cancel: ${saidShort(cancel)} (want exit 1)`);

      if (JSON.stringify(await tree(x.root)) !== JSON.stringify(boardBefore)) problems.push('a refused call changed the board');
      if (JSON.stringify(await tree(x.outside, [])) !== JSON.stringify(outsideBefore)) problems.push('a call wrote outside the board');

      // doctor and audit verify.
      const doctor = await cli(x.root, ['doctor'], { json: false });
      if (doctor.code !== EXIT.refused || !doctor.stdout.includes(named) || !doctor.stdout.includes(`runs/${x.c}/draft.md`))
        problems.push(`doctor: want exit 1 naming ${named} and runs/${x.c}/draft.md; got ${said(doctor)}`);
      const verify = await cli(x.root, ['audit', 'verify'], { json: false });
      const broken = verify.stdout.split('\n').filter((l) => l.startsWith('BROKEN'));
      if (verify.code !== EXIT.refused || !broken.some((l) => l.includes(named))) problems.push(`audit verify: want exit 1 with a break naming ${named}; got ${saidVerify(verify)}`);
      if (verify.stdout.split('\n').some((l) => l.startsWith('ok ') && l.includes(`runs/${x.a}/`)))
        problems.push(`audit verify reported A's chain verified: ${verify.stdout.split('\n').find((l) => l.includes(`runs/${x.a}/`))}`);

      // Restored: everything as before, and writable again.
      await fault.restore(x);
      await fs.writeFile(path.join(x.root, 'runs', x.c, 'draft.md'), x.cDraft);
      note(readProblem('get_run after the restore (MCP)', await x.mcp.call('get_run', { runId: x.a }), x, '(nothing: it is restored)'));
      const showAgain = await cli(x.root, ['show', x.a], { as: AGENT });
      note(readProblem('workboard show after the restore', showAgain.json, x, '(nothing: it is restored)'));
      const submitted = await x.mcp.call('submit', submitArgs(x.token, `submit-after-${fault.name}`));
      if (!submitted.ok) problems.push(`submit after the restore answered ${brief(submitted)}`);
      await x.mcp.close();
      const h = await recoverAndCheck(x.root);
      if (h.first.code === EXIT.internal) problems.push(`the first doctor after the restore: ${said(h.first)}`);
      problems.push(...healthProblems(h).map((p) => `after the restore: ${p}`));

      expect(problems).toEqual([]);
    },
    60_000,
  );
});
