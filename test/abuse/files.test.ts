/**
 * The board's files attacked, and ids that try to leave the board.
 *
 * A run or step file replaced by an alias bomb, 10k-deep YAML, a 5 MB
 * document, binary junk, an empty file, or a symbolic link to a secret
 * outside the board: every tool that touches the run refuses with `conflict`
 * and `board_file_invalid`, naming the file and the problem; reads of the
 * whole board go on (docs/processes.md "The choices we made"). Ids with path
 * traversal (`../`, absolute paths, NUL, `%2e%2e`) given to every tool that
 * takes one are refused with the contract's codes (`not_found` for what does
 * not exist, `invalid` for what can never be an id, `not_accepted` for
 * evidence that does not verify). Throughout: nothing crashes, the secret's
 * content never appears in any answer, and not one file outside the board is
 * created or changed (a listing with hashes of the folder around the board).
 */
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt, workboard } from '../support/cli-run.js';
import { CAST, cleanupHarnesses, Harness, rid, sha256, states, type BoardSpec } from '../support/svc-harness.js';
import { deep, traversalIds, tree } from './abuse-support.js';

const SECRET = 'SECRET-7c1e9a55-do-not-leak';

afterAll(cleanupHarnesses);

interface Arena {
  h: Harness;
  /** The temp folder holding the board (h.root) and `outside/`. */
  base: string;
  outside: string;
  secretFile: string;
  /** The folder around the board, the board itself left out: must never change. */
  around(): Promise<Record<string, string>>;
}

async function arena(spec: BoardSpec): Promise<Arena> {
  const h = await Harness.open(spec);
  const base = path.dirname(h.root);
  const outside = path.join(base, 'outside');
  await fs.mkdir(outside);
  const secretFile = path.join(outside, 'secret.txt');
  await fs.writeFile(secretFile, `${SECRET}\n`);
  return { h, base, outside, secretFile, around: () => tree(base, [path.basename(h.root)]) };
}

const CLAIM_REVIEW: BoardSpec = { groups: { finance: [CAST.fin] }, processes: [{ folder: 'claim-review', roles: { 'finance-approver': 'finance' } }] };

function leaks(v: unknown): boolean {
  return JSON.stringify(v).includes(SECRET);
}

// ---- hostile board files -----------------------------------------------------------

type Attack = { name: string; problem: RegExp; apply: (file: string, a: Arena) => Promise<void> };

const ALIAS_BOMB = `---
rev: 9
a: &a ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]
b: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a]
c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b]
d: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c]
e: &e [*d, *d, *d, *d, *d, *d, *d, *d, *d]
f: &f [*e, *e, *e, *e, *e, *e, *e, *e, *e]
g: [*f, *f, *f, *f, *f, *f, *f, *f, *f]
---
`;

const ATTACKS: Attack[] = [
  { name: 'an alias bomb', problem: /alias|anchor/i, apply: (f) => fs.writeFile(f, ALIAS_BOMB) },
  { name: '10k-deep nested flow lists', problem: /deep|nest|stack/i, apply: (f) => fs.writeFile(f, `---\nrev: 9\nx: ${'['.repeat(10_000)}${']'.repeat(10_000)}\n---\n`) },
  { name: '10k-deep nested flow maps', problem: /deep|nest|stack/i, apply: (f) => fs.writeFile(f, `---\nrev: 9\nx: ${'{a: '.repeat(10_000)}1${'}'.repeat(10_000)}\n---\n`) },
  { name: '100-deep nested block maps', problem: /deep|nest/i, apply: (f) => fs.writeFile(f, `---\nrev: 9\n${Array.from({ length: 100 }, (_, i) => `${' '.repeat(i)}k:`).join('\n')} 1\n---\n`) },
  { name: 'a 5 MB document', problem: /larger|bytes|size/i, apply: (f) => fs.writeFile(f, `---\nrev: 9\nx: "${'y'.repeat(5 * 1024 * 1024)}"\n---\n`) },
  { name: 'binary junk', problem: /NUL|UTF-8|text|---/i, apply: (f) => fs.writeFile(f, Buffer.from(Array.from({ length: 4096 }, (_, i) => (i * 7919 + 13) % 256))) },
  { name: 'an empty file', problem: /---|frontmatter/i, apply: (f) => fs.writeFile(f, '') },
  {
    name: 'a symlink to a secret outside the board',
    problem: /symbolic link/i,
    apply: async (f, a) => {
      await fs.rm(f);
      await fs.symlink(a.secretFile, f);
    },
  },
];

describe('a run or step file replaced by hostile content', () => {
  const cases = ATTACKS.flatMap((attack) => [
    { attack, target: 'RUN.md' },
    { attack, target: 'check.md' },
  ]);

  it.each(cases)(
    '$target as $attack.name: refused by every tool on the run (conflict, board_file_invalid, file and problem named); board-wide reads go on; no leak, nothing written',
    async ({ attack, target }) => {
      const a = await arena(CLAIM_REVIEW);
      const { h } = a;
      const v = await h.start('claim-review', { claimant: CAST.ann, amount: 5 });
      const runId = v.run.id as string;
      const token = (await h.claim(runId, 'check')).token as string;
      const rel = `runs/${runId}/${target}`;
      await attack.apply(path.join(h.root, rel), a);
      const board = await tree(h.root);
      const around = await a.around();

      const onRun: [string, Record<string, unknown>, string][] = [
        ['get_run', { runId }, CAST.ann],
        ['claim', { runId, stepId: 'check', requestId: rid() }, CAST.rival],
        [
          'submit',
          { token, output: { withinPolicy: true, notes: 'n', risk: 'low', lines: [] }, evidence: [{ kind: 'link', ref: 'https://p' }], summary: 's', next: 'approve', reason: 'r', requestId: rid() },
          CAST.agent,
        ],
        ['renew', { token, requestId: rid() }, CAST.agent],
        ['escalate', { token, note: 'Stuck.', requestId: rid() }, CAST.agent],
        ['cancel', { runId, reason: 'Broken.', requestId: rid() }, CAST.operator],
        ['send_event', { runId, name: 'anything', requestId: rid() }, CAST.agent],
        ['decide', { runId, workItemId: 'w-0000', snapshot: 'f'.repeat(64), decision: 'approved', requestId: rid() }, CAST.fin],
      ];
      for (const [tool, args, who] of onRun) {
        const r = await h.call(tool, args, who);
        expect(leaks(r), tool).toBe(false);
        expect(r.ok, `${tool} answered ${JSON.stringify(r).slice(0, 300)}`).toBe(false);
        if (r.ok) continue;
        expect(r.error.code, tool).toBe('conflict');
        expect(r.error.issues?.[0], tool).toBe('board_file_invalid');
        const said = `${r.error.message}\n${(r.error.issues ?? []).join('\n')}`;
        expect(said, tool).toContain(rel);
        expect((r.error.issues ?? []).slice(1).join('\n'), tool).toMatch(attack.problem);
      }
      // Reads over the whole board still answer; nothing of the secret in them.
      for (const [tool, args, who] of [
        ['list_runs', {}, CAST.ann],
        ['get_work', {}, CAST.agent],
        ['get_work', {}, CAST.fin],
        ['list_processes', {}, CAST.agent],
        ['describe', {}, CAST.agent],
      ] as const) {
        const r = await h.call(tool, args, who);
        expect(r.ok, `${tool}: ${JSON.stringify(r).slice(0, 300)}`).toBe(true);
        expect(leaks(r), tool).toBe(false);
      }
      expect(await tree(h.root)).toEqual(board);
      expect(await a.around()).toEqual(around);
    },
  );

  it('a run folder that is a symlink to a copy of the run outside the board: refused, never followed, nothing written there', async () => {
    const a = await arena(CLAIM_REVIEW);
    const { h } = a;
    const v = await h.start('claim-review', { claimant: CAST.ann, amount: 5 });
    const runId = v.run.id as string;
    const moved = path.join(a.outside, runId);
    await fs.rename(path.join(h.root, 'runs', runId), moved);
    await fs.symlink(moved, path.join(h.root, 'runs', runId));
    const board = await tree(h.root);
    const around = await a.around();
    // Nothing read this run before the swap, so there is no last valid state to serve: reads are refused too.
    for (const [tool, args, who] of [
      ['get_run', { runId }, CAST.ann],
      ['claim', { runId, stepId: 'check', requestId: rid() }, CAST.agent],
      ['cancel', { runId, reason: 'x', requestId: rid() }, CAST.operator],
      ['send_event', { runId, name: 'x', requestId: rid() }, CAST.agent],
    ] as const) {
      const r = await h.call(tool, args, who);
      expect(r.ok ? 'ok' : r.error.code, tool).toBe('conflict');
      if (!r.ok) expect(`${r.error.message} ${(r.error.issues ?? []).join(' ')}`, tool).toMatch(/symbolic link/);
    }
    expect(await tree(h.root)).toEqual(board);
    expect(await a.around()).toEqual(around);
  });
});

// ---- symbolic links the write path or the evidence check may follow ----------------------

describe('links inside the board are never followed', () => {
  /**
   * BUG (found before the fix; now src/board/chain-file.ts, ChainFiles.state and appendMissing via
   * fsutil.appendDurable): the audit chain is opened and appended by path without
   * the symlink check every other board file gets (assertNoLinks), so a chain
   * committed as a link (git can commit links) makes every write append its
   * audit lines to the file outside the board.
   */
  it("a run's audit chain that is a symlink to a file outside the board is never appended to", async () => {
    const a = await arena(CLAIM_REVIEW);
    const { h } = a;
    const v = await h.start('claim-review', { claimant: CAST.ann, amount: 5 });
    const runId = v.run.id as string;
    const chain = path.join(h.root, 'runs', runId, 'audit.jsonl');
    const target = path.join(a.outside, 'chain.jsonl');
    await fs.copyFile(chain, target);
    await fs.rm(chain);
    await fs.symlink(target, chain);
    const around = await a.around();
    const r = await h.call('claim', { runId, stepId: 'check', requestId: rid() }, CAST.agent);
    expect(await a.around()).toEqual(around);
    expect(r.ok ? 'ok' : r.error.code).toBe('conflict');
  });

  /** BUG: the same as above for the board's own chain (audit/board.jsonl), appended by every upload. */
  it('the board audit chain as a symlink to a file outside the board is never appended to', async () => {
    const a = await arena(CLAIM_REVIEW);
    const { h } = a;
    const chain = path.join(h.root, 'audit', 'board.jsonl');
    const target = path.join(a.outside, 'board.jsonl');
    await fs.copyFile(chain, target);
    await fs.rm(chain);
    await fs.symlink(target, chain);
    const around = await a.around();
    const r = await h.call('upload', { fileName: 'a.txt', contentType: 'text/plain', contentBase64: Buffer.from('hello').toString('base64'), requestId: rid() }, CAST.agent);
    expect(await a.around()).toEqual(around);
    expect(r.ok ? 'ok' : r.error.code).toBe('conflict');
  });

  /**
   * BUG (src/service/service.ts, Service.checkFile): evidence bytes are read with
   * readIfExists on the absolute path, not through the store's link check, so an
   * upload whose content is a symlink to a file outside the board (with meta.json
   * naming that file's hash) is accepted as verified evidence; docs/architecture.md says no
   * link inside a board is ever followed.
   */
  it('file evidence whose stored content is a symlink to a file outside the board is not_accepted naming the ref, and nothing of it leaks', async () => {
    const a = await arena({ groups: { clerks: [CAST.cat] }, processes: [{ folder: 'receipt-filing', roles: { clerks: 'clerks' } }] });
    const { h } = a;
    const v = await h.start('receipt-filing', {}, CAST.ann);
    const c = await h.claim(v.run.id, 'scan');
    const up = await h.upload('an honest scan');
    const dir = path.join(h.root, 'files', up.id);
    await fs.rm(path.join(dir, 'content'));
    await fs.symlink(a.secretFile, path.join(dir, 'content'));
    const meta = JSON.parse(await fs.readFile(path.join(dir, 'meta.json'), 'utf8')) as Record<string, unknown>;
    await fs.writeFile(path.join(dir, 'meta.json'), JSON.stringify({ ...meta, sha256: sha256(`${SECRET}\n`) }));
    const around = await a.around();
    const r = await h.call('submit', { token: c.token, output: { amount: 1 }, evidence: [{ kind: 'file', ref: up.id }], summary: 'Scanned.', requestId: rid() }, CAST.agent);
    expect(leaks(r)).toBe(false);
    expect(await a.around()).toEqual(around);
    expect(r.ok ? 'accepted' : r.error.code).toBe('not_accepted');
    if (!r.ok) expect(r.error.issues).toEqual([expect.stringMatching(new RegExp(`^evidence ${up.id}:`))]);
  });
});

// ---- ids with path traversal ----------------------------------------------------------

describe('ids with path traversal given to every tool that takes one', () => {
  it('are refused with the contract codes; no answer leaks the secret; nothing is written inside or outside the board', async () => {
    const a = await arena({ groups: { clerks: [CAST.cat] }, processes: [{ folder: 'receipt-filing', roles: { clerks: 'clerks' } }] });
    const { h } = a;
    // A run at the clerk's task (countersign, evidence: file), and a run whose scan is claimed.
    const r1 = await h.start('receipt-filing', {}, CAST.ann);
    const c1 = await h.claim(r1.run.id, 'scan');
    const up = await h.upload('scan one');
    await h.ok('submit', { token: c1.token, output: { amount: 3 }, evidence: [{ kind: 'file', ref: up.id }], summary: 'Scanned.' }, CAST.agent);
    const view = await h.view(r1.run.id, CAST.cat);
    const wi = h.item(view, 'countersign');
    const r2 = await h.start('receipt-filing', {}, CAST.ann);
    const c2 = await h.claim(r2.run.id, 'scan');
    const r3 = await h.start('receipt-filing', {}, CAST.ann); // scan ready, unclaimed
    const goodRun = r1.run.id as string;

    const NOT_THERE = ['not_found', 'invalid'];
    const calls = (x: string): { tool: string; args: Record<string, unknown>; who: string; codes: string[]; issueFor?: string }[] => [
      { tool: 'get_run', args: { runId: x }, who: CAST.ann, codes: NOT_THERE },
      { tool: 'claim', args: { runId: x, stepId: 'scan', requestId: rid() }, who: CAST.agent, codes: NOT_THERE },
      { tool: 'claim', args: { runId: r3.run.id, stepId: x, requestId: rid() }, who: CAST.agent, codes: NOT_THERE },
      { tool: 'cancel', args: { runId: x, reason: 'x', requestId: rid() }, who: CAST.operator, codes: NOT_THERE },
      { tool: 'send_event', args: { runId: x, name: 'payment', requestId: rid() }, who: CAST.agent, codes: NOT_THERE },
      { tool: 'send_event', args: { runId: goodRun, name: x, requestId: rid() }, who: CAST.agent, codes: ['invalid'] },
      { tool: 'decide', args: { runId: x, workItemId: wi.id, snapshot: wi.snapshot, decision: 'completed', requestId: rid() }, who: CAST.cat, codes: NOT_THERE },
      { tool: 'decide', args: { runId: goodRun, workItemId: x, snapshot: wi.snapshot, decision: 'completed', requestId: rid() }, who: CAST.cat, codes: NOT_THERE },
      { tool: 'decide', args: { runId: goodRun, workItemId: wi.id, snapshot: x, decision: 'completed', requestId: rid() }, who: CAST.cat, codes: ['stale', 'invalid'] },
      {
        tool: 'decide',
        args: { runId: goodRun, workItemId: wi.id, snapshot: wi.snapshot, decision: 'completed', evidence: [{ kind: 'file', ref: x }], requestId: rid() },
        who: CAST.cat,
        codes: ['not_accepted'],
        issueFor: x,
      },
      { tool: 'submit', args: { token: c2.token, output: { amount: 1 }, evidence: [{ kind: 'file', ref: x }], summary: 's', requestId: rid() }, who: CAST.agent, codes: ['not_accepted'], issueFor: x },
      { tool: 'submit', args: { token: x, output: { amount: 1 }, summary: 's', requestId: rid() }, who: CAST.agent, codes: ['invalid'] },
      { tool: 'renew', args: { token: x, requestId: rid() }, who: CAST.agent, codes: ['invalid'] },
      { tool: 'escalate', args: { token: x, note: 'n', requestId: rid() }, who: CAST.agent, codes: ['invalid'] },
      { tool: 'start_run', args: { process: x, inputs: {}, requestId: rid() }, who: CAST.ann, codes: NOT_THERE },
    ];
    // Filters (an answer naming nothing, or invalid) and cursors (any answer, or invalid; never a leak).
    const reads = (x: string): { tool: string; args: Record<string, unknown>; filter: boolean }[] => [
      { tool: 'list_runs', args: { process: x }, filter: true },
      { tool: 'list_runs', args: { inputs: { [x]: x } }, filter: true },
      { tool: 'get_work', args: { process: x }, filter: true },
      { tool: 'list_processes', args: { cursor: x }, filter: false },
      { tool: 'list_runs', args: { cursor: x }, filter: false },
    ];

    const around = await a.around();
    const ids = traversalIds(a.secretFile, h.root);
    let refused = 0;
    for (const x of ids) {
      const before = await tree(h.root);
      for (const c of calls(x)) {
        const r = await h.call(c.tool, c.args, c.who);
        const label = `${c.tool} ${JSON.stringify(c.args).slice(0, 160)}`;
        expect(leaks(r), label).toBe(false);
        expect(r.ok ? 'ok' : r.error.code, `${label} → ${JSON.stringify(r).slice(0, 300)}`).toBeOneOf(c.codes);
        if (r.ok) continue;
        refused++;
        if (c.issueFor !== undefined) expect(r.error.issues, label).toContainEqual(expect.stringMatching(/not found|does not|no longer|missing/));
        if (c.issueFor !== undefined)
          expect(
            (r.error.issues ?? []).some((i) => i.startsWith(`evidence ${c.issueFor}`)),
            label,
          ).toBe(true);
      }
      // Refused calls write nothing committed (spec §4.3 not_accepted: "Nothing changed").
      expect(await tree(h.root), x).toEqual(before);
      for (const c of reads(x)) {
        const r = await h.call(c.tool, c.args, CAST.ann);
        expect(leaks(r), c.tool).toBe(false);
        if (!r.ok) expect(r.error.code, c.tool).toBe('invalid');
        else if (c.filter) expect((r.data as { items: unknown[] }).items, `${c.tool} ${JSON.stringify(c.args)}`).toEqual([]);
      }
      // fileName, contentType and requestId are data, never paths: an upload lands under files/ only.
      const content = `upload named ${JSON.stringify(x)}`;
      const beforeUp = await tree(h.root);
      const u = await h.call('upload', { fileName: x.slice(0, 255), contentType: x.slice(0, 160), contentBase64: Buffer.from(content).toString('base64'), requestId: x.slice(0, 128) }, CAST.agent);
      expect(leaks(u)).toBe(false);
      if (u.ok) {
        const added = Object.keys(await tree(h.root)).filter((k) => !(k in beforeUp));
        const id = (u.data as { id: string }).id;
        expect(
          added.filter((k) => !k.startsWith(`files/${id}/`)),
          x,
        ).toEqual([]);
      } else expect(['invalid', 'conflict']).toContain(u.error.code);
    }
    expect(refused).toBeGreaterThan(ids.length * 10);
    expect(await a.around()).toEqual(around);
    // The real runs are as they were: the countersign item open, scan of r2 claimed, r3's scan ready.
    expect(states(await h.view(goodRun))).toMatchObject({ scan: 'done', countersign: 'waiting' });
    expect(states(await h.view(r2.run.id))).toMatchObject({ scan: 'claimed' });
    expect(states(await h.view(r3.run.id))).toMatchObject({ scan: 'ready' });
  });
});

// ---- the server must not write what it cannot read back ----------------------------

const BLOB = `---
name: blob
description: An agent returns a structured blob, then waits for a delivery event.
steps:
  - id: produce
    agent: Produce the blob.
    output: { blob: object }
  - id: delivered
    wait_for: delivery
  - id: done
    finish: done
---
Our own process: an object output and a wait_for.
`;

describe('the server never writes a board file it then refuses to read', () => {
  let a: Arena;
  const INTAKE = { title: 'Chair', amount: 80, urgent: false, neededBy: '2026-11-01', receivedAt: '2026-10-06T09:00:00Z', requester: CAST.bob, tags: [], details: {}, size: 'small' };
  beforeAll(async () => {
    const h0 = await Harness.open({}); // only for a temp folder of our own process
    const folder = path.join(path.dirname(h0.root), 'blob');
    await fs.mkdir(folder);
    await fs.writeFile(path.join(folder, 'PROCESS.md'), BLOB);
    a = await arena({ groups: { 'desk-team': [CAST.ann] }, processes: [{ folder: 'intake-form', roles: { desk: 'desk-team' } }, { folder: 'two-payments' }, { folder }] });
  });

  /**
   * Either the call is refused (and nothing changes), or the run it wrote can
   * still be read and worked on. Today a write whose data nests deeper than the
   * YAML reader's 64 levels (src/core/markdown.ts MAX_DEPTH), or whose step file
   * grows past 1 MiB (MAX_FILE_BYTES), is accepted, written, and from then on
   * every call on the run answers conflict board_file_invalid: the run is lost.
   * BUG: src/service/service.ts (startRun, runWrite) and src/engine/commands.ts
   * (startRun, submit, sendEvent) accept such data; nothing checks it against
   * what src/board/store.ts decodeDoc will accept back.
   */
  async function stillReadable(h: Harness, runId: string, label: string) {
    const g = await h.call('get_run', { runId }, CAST.operator);
    expect(g.ok ? 'ok' : `${g.error.code} ${(g.error.issues ?? []).join('; ').slice(0, 200)}`, `${label}: get_run afterwards`).toBe('ok');
    const c = await h.call('cancel', { runId, reason: 'Done testing.', requestId: rid() }, CAST.operator);
    expect(c.ok ? 'ok' : `${c.error.code} ${(c.error.issues ?? []).join('; ').slice(0, 200)}`, `${label}: a write afterwards`).toBe('ok');
  }

  it.each([
    { depth: 100, what: 'an object input nested 100 deep' },
    { depth: 10_000, what: 'an object input nested 10,000 deep' },
  ])('start_run with $what: refused as invalid, or the run stays readable', async ({ depth }) => {
    const { h } = a;
    const before = await tree(h.root);
    const r = await h.call('start_run', { process: 'intake-form', inputs: { ...INTAKE, details: { d: deep(depth, 'object') } }, requestId: rid() }, CAST.ann);
    if (!r.ok) {
      expect(r.error.code).toBe('invalid');
      expect(await tree(h.root)).toEqual(before);
      return;
    }
    await stillReadable(h, (r.data as { run: { id: string } }).run.id, `depth ${depth}`);
  });

  it('a held event whose data nests 100 deep: refused, or the run stays readable', async () => {
    const { h } = a;
    const v = await h.start('two-payments', {});
    const before = await tree(h.root);
    const r = await h.call('send_event', { runId: v.run.id, name: 'not-awaited', data: { d: deep(100, 'mixed') }, requestId: rid() }, CAST.agent);
    if (!r.ok) {
      expect(r.error.code).toBeOneOf(['invalid', 'not_accepted']);
      expect(await tree(h.root)).toEqual(before);
      return;
    }
    await stillReadable(h, v.run.id, 'held event');
  });

  it('an object output nested 100 deep: not_accepted, or the run stays readable', async () => {
    const { h } = a;
    const v = await h.start('blob', {});
    const c = await h.claim(v.run.id, 'produce');
    const before = await tree(h.root);
    const r = await h.call('submit', { token: c.token, output: { blob: deep(100, 'object') }, summary: 'Produced.', requestId: rid() }, CAST.agent);
    if (!r.ok) {
      expect(r.error.code).toBeOneOf(['invalid', 'not_accepted']);
      expect(await tree(h.root)).toEqual(before);
      return;
    }
    await stillReadable(h, v.run.id, 'deep output');
  });

  it('an event of 1.5 MB delivered to a waiting wait_for: refused, or the run stays readable', async () => {
    const { h } = a;
    const v = await h.start('blob', {});
    const c = await h.claim(v.run.id, 'produce');
    await h.ok('submit', { token: c.token, output: { blob: { ok: true } }, summary: 'Produced.' }, CAST.agent);
    expect(states(await h.view(v.run.id))).toMatchObject({ delivered: 'waiting' });
    const before = await tree(h.root);
    const r = await h.call('send_event', { runId: v.run.id, name: 'delivery', data: { manifest: 'm'.repeat(1_500_000) }, requestId: rid() }, CAST.agent);
    if (!r.ok) {
      expect(r.error.code).toBeOneOf(['invalid', 'not_accepted']);
      expect(await tree(h.root)).toEqual(before);
      return;
    }
    await stillReadable(h, v.run.id, 'big delivered event');
  });
});

// ---- the CLI --------------------------------------------------------------------------

describe('the CLI on hostile files and ids', () => {
  let a: Arena;
  let linked: string;
  let bombed: string;
  let healthy: string;
  beforeAll(async () => {
    await ensureBuilt();
    a = await arena(CLAIM_REVIEW);
    const { h } = a;
    linked = (await h.start('claim-review', { claimant: CAST.ann, amount: 5 })).run.id;
    bombed = (await h.start('claim-review', { claimant: CAST.ann, amount: 6 })).run.id;
    healthy = (await h.start('claim-review', { claimant: CAST.ann, amount: 7 })).run.id;
    const runMd = path.join(h.root, 'runs', linked, 'RUN.md');
    await fs.rm(runMd);
    await fs.symlink(a.secretFile, runMd);
    await fs.writeFile(path.join(h.root, 'runs', bombed, 'check.md'), ALIAS_BOMB);
  });

  async function cli(args: string[]) {
    const r = await workboard(['--board', a.h.root, ...args], { cwd: a.base });
    expect(`${r.stdout}${r.stderr}`, args.join(' ')).not.toContain(SECRET);
    expect(r.code, `${args.join(' ')}: ${r.stderr}`).not.toBe(70); // 70: an internal error (docs/cli.md "Exit codes")
    expect(r.stderr, args.join(' ')).not.toMatch(/^\s+at .+:\d+:\d+\)?$/m); // no stack trace
    return r;
  }

  it('a symlinked or alias-bombed run file: exit 1, the file and the problem named, nothing leaked or written', async () => {
    const board = await tree(a.h.root);
    const around = await a.around();
    const human = await cli(['--as', CAST.ann, 'show', linked]);
    expect(human.code).toBe(1);
    expect(human.stderr).toContain(`runs/${linked}/RUN.md`);
    expect(human.stderr).toMatch(/symbolic link/);
    const json = await cli(['--json', '--as', CAST.agent, 'claim', bombed, 'check']);
    expect(json.code).toBe(1);
    const res = JSON.parse(json.stdout) as { ok: boolean; error: { code: string; issues: string[] } };
    expect(res.error.code).toBe('conflict');
    expect(res.error.issues[0]).toBe('board_file_invalid');
    expect(res.error.issues.join('\n')).toContain(`runs/${bombed}/check.md`);
    expect(res.error.issues.join('\n')).toMatch(/alias|anchor/);
    const list = await cli(['--json', '--as', CAST.ann, 'runs']);
    expect(list.code).toBe(0);
    expect((JSON.parse(list.stdout) as { data: { items: { id: string }[] } }).data.items.map((i) => i.id)).toContain(healthy);
    expect(await tree(a.h.root)).toEqual(board);
    expect(await a.around()).toEqual(around);
  });

  it('ids with path traversal: exit 1 with one JSON refusal carrying a contract code; nothing leaked or written', async () => {
    const board = await tree(a.h.root);
    const around = await a.around();
    const rel = path.relative(a.h.root, a.secretFile);
    const cases: [string[], string[]][] = [
      [
        ['--as', CAST.ann, 'show', rel],
        ['not_found', 'invalid'],
      ],
      [
        ['--as', CAST.agent, 'claim', healthy, `../../${rel}`],
        ['not_found', 'invalid'],
      ],
      [['--as', CAST.agent, 'renew', `../../${rel}`], ['invalid']],
      [['--as', CAST.agent, 'event', healthy, '../../x'], ['invalid']],
      // Without a terminal, decide names the snapshot it decides on (issue 16, item 10).
      [
        ['--as', CAST.fin, 'decide', healthy, `../${rel}`, 'approved', '--snapshot', 'x'],
        ['not_found', 'invalid'],
      ],
      [
        ['--as', CAST.operator, 'cancel', `/${rel}`, '--reason', 'x'],
        ['not_found', 'invalid'],
      ],
    ];
    for (const [args, codes] of cases) {
      const r = await cli(['--json', ...args]);
      expect(r.code, `${args.join(' ')}: ${r.stdout}${r.stderr}`).toBe(1);
      const res = JSON.parse(r.stdout) as { ok: boolean; error: { code: string } };
      expect(res.ok).toBe(false);
      expect(res.error.code, args.join(' ')).toBeOneOf(codes);
    }
    expect(await tree(a.h.root)).toEqual(board);
    expect(await a.around()).toEqual(around);
  });
});
