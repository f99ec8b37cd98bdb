/**
 * The hash-linked audit chain (docs/architecture.md "The audit chain"): one JSON object per
 * line; seq from 0, +1 each; ts non-decreasing; prevHash "GENESIS" for seq 0,
 * else the previous line's hash; hash = SHA-256 hex of the RFC 8785 canonical
 * JSON of the line without `hash`. Anyone can verify it without a secret. A
 * torn last line is reported, never silently dropped or truncated.
 *
 * Hashes here are computed independently with `canonicalize` + node:crypto.
 */
import { createHash } from 'node:crypto';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import canonicalize from 'canonicalize';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GENESIS, sealEvent, verifyChain, type AuditDraft, type AuditEvent, type ChainHead } from '../../src/board/audit.js';
import { Board } from '../../src/board/board.js';
import { BoardError } from '../../src/board/errors.js';
import { publish } from '../../src/board/processes.js';
import { verifyBoard } from '../../src/board/verify.js';
import { FULL_OFFER } from '../../src/protocol/offer.js';
import { cleanupTmp, readText, runData, runId, stepData, tmpDir } from '../support/tmp-board.js';

const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');

/** The hash as docs/architecture.md "The audit chain" defines it, computed without the code under test. */
function independentHash(line: Record<string, unknown>): string {
  const { hash: _omit, ...rest } = line;
  const c = canonicalize(rest);
  if (c === undefined) throw new Error('not canonicalizable');
  return sha256(c);
}

function draft(i: number, input: Record<string, unknown> = {}): AuditDraft {
  return { actor: `agent:a${i}`, action: 'step.submitted', entity: `r-x/step${i}`, input: { fromRev: i, toRev: i + 1, ...input } };
}

const headOf = (e: AuditEvent): ChainHead => ({ seq: e.seq, hash: e.hash, ts: e.ts });
const text = (events: object[]) => events.map((e) => `${JSON.stringify(e)}\n`).join('');

describe('sealEvent and verifyChain (pure)', () => {
  it('seals the first event with seq 0, prevHash GENESIS and the hash of its canonical JSON', () => {
    const ev = sealEvent(draft(0), null, '2026-11-29T09:00:00.000Z');
    expect(ev.seq).toBe(0);
    expect(ev.prevHash).toBe('GENESIS');
    expect(GENESIS).toBe('GENESIS');
    expect(ev.ts).toBe('2026-11-29T09:00:00.000Z');
    expect(ev).toMatchObject({ actor: 'agent:a0', action: 'step.submitted', entity: 'r-x/step0', input: { fromRev: 0, toRev: 1 } });
    expect(ev.hash).toMatch(/^[0-9a-f]{64}$/);
    expect(ev.hash).toBe(independentHash(ev as unknown as Record<string, unknown>));
  });

  it('links each event to the previous one: seq +1, prevHash = previous hash, each hash independent-verifiable', () => {
    const events: AuditEvent[] = [];
    let head: ChainHead | null = null;
    for (let i = 0; i < 6; i++) {
      const ev = sealEvent(draft(i), head, `2026-11-29T09:0${i}:00.000Z`);
      events.push(ev);
      head = headOf(ev);
    }
    events.forEach((e, i) => {
      expect(e.seq).toBe(i);
      expect(e.prevHash).toBe(i === 0 ? 'GENESIS' : events[i - 1]!.hash);
      expect(e.hash).toBe(independentHash(e as unknown as Record<string, unknown>));
    });
    const report = verifyChain(text(events));
    expect(report.breaks).toEqual([]);
    expect(report.events).toHaveLength(6);
    expect(report.head).toEqual(headOf(events[5]!));
  });

  it('hashes the canonical form (RFC 8785: sorted keys, canonical numbers), not the insertion order', () => {
    const input = { toRev: 2, fromRev: 1, changes: { zeta: 1e21, alpha: 0.1, é: 'ü', nested: { b: [3, 'x'], a: null } } };
    const ev = sealEvent({ entity: 'WORK.md', action: 'board.updated', actor: 'user:x', input }, null, '2026-11-29T09:00:00.000Z');
    expect(ev.hash).toBe(independentHash(JSON.parse(JSON.stringify(ev)) as Record<string, unknown>));
    // And the line as stored (JSON.stringify order) verifies.
    expect(verifyChain(text([ev])).breaks).toEqual([]);
  });

  it('never lets time go backwards when sealing with an earlier clock', () => {
    const first = sealEvent(draft(0), null, '2026-11-29T10:00:00.000Z');
    const second = sealEvent(draft(1), headOf(first), '2026-11-29T09:59:59.000Z'); // clock stepped back
    const third = sealEvent(draft(2), headOf(second), '2026-11-28T00:00:00.000Z');
    expect(Date.parse(second.ts)).toBeGreaterThanOrEqual(Date.parse(first.ts));
    expect(Date.parse(third.ts)).toBeGreaterThanOrEqual(Date.parse(second.ts));
    expect(second.hash).toBe(independentHash(second as unknown as Record<string, unknown>));
    expect(verifyChain(text([first, second, third])).breaks).toEqual([]);
  });

  it('verifies a chain written by someone else, without any secret', () => {
    const lines: Record<string, unknown>[] = [];
    let prev = 'GENESIS';
    for (let seq = 0; seq < 4; seq++) {
      const line: Record<string, unknown> = {
        seq,
        ts: `2026-11-29T09:00:0${seq}.000Z`,
        actor: 'user:x',
        action: 'run.started',
        entity: 'r-1',
        input: { fromRev: seq, toRev: seq + 1 },
        prevHash: prev,
      };
      line.hash = independentHash(line);
      prev = line.hash as string;
      lines.push(line);
    }
    const r = verifyChain(text(lines));
    expect(r.breaks).toEqual([]);
    expect(r.events).toHaveLength(4);
  });

  it('reports a line whose ts goes backwards, even with correct hashes and links', () => {
    const mk = (seq: number, ts: string, prevHash: string) => {
      const line: Record<string, unknown> = { seq, ts, actor: 'user:x', action: 'a', entity: 'e', input: { fromRev: 0, toRev: 0 }, prevHash };
      line.hash = independentHash(line);
      return line;
    };
    const a = mk(0, '2026-11-29T10:00:00.000Z', 'GENESIS');
    const b = mk(1, '2026-11-29T09:00:00.000Z', a.hash as string);
    const r = verifyChain(text([a, b]));
    expect(r.breaks.map((x) => x.line)).toContain(2);
  });

  it('reports a first line that is not seq 0 from GENESIS', () => {
    const mk = (seq: number, prevHash: string) => {
      const line: Record<string, unknown> = { seq, ts: '2026-11-29T10:00:00.000Z', actor: 'u', action: 'a', entity: 'e', input: { fromRev: 0, toRev: 0 }, prevHash };
      line.hash = independentHash(line);
      return line;
    };
    expect(verifyChain(text([mk(1, 'GENESIS')])).breaks.length).toBeGreaterThan(0);
    expect(verifyChain(text([mk(0, 'ab'.repeat(32))])).breaks.length).toBeGreaterThan(0);
  });

  it('reports a seq gap in the middle of a chain whose hashes and links are all right, also when continuing from a head', () => {
    const mk = (seq: number, prevHash: string) => {
      const line: Record<string, unknown> = { seq, ts: '2026-11-29T10:00:00.000Z', actor: 'u', action: 'a', entity: 'e', input: { fromRev: 0, toRev: 0 }, prevHash };
      line.hash = independentHash(line);
      return line;
    };
    const a = mk(0, 'GENESIS');
    const b = mk(1, a.hash as string);
    const d = mk(3, b.hash as string); // seq 2 skipped; the link to line 2 is right
    expect(verifyChain(text([a, b, d])).breaks).toEqual([{ line: 3, reason: 'seq gap: expected 2, found 3' }]);
    // The same line verified as the continuation of a chain already verified up to b.
    const head = { seq: 1, hash: b.hash as string, ts: b.ts as string };
    expect(verifyChain(text([d]), head, 3).breaks).toEqual([{ line: 3, reason: 'seq gap: expected 2, found 3' }]);
  });

  it('reports a middle line rewritten with a valid hash of its own but a prevHash that is not the line before', () => {
    let head: ChainHead | null = null;
    const events: AuditEvent[] = [];
    for (let i = 0; i < 5; i++) {
      const e = sealEvent(draft(i), head, '2026-11-29T10:00:00.000Z');
      events.push(e);
      head = headOf(e);
    }
    // Line 3 changed and re-hashed on its own: its hash is right for its content, its link is not.
    const forged: Record<string, unknown> = { ...events[2]!, actor: 'agent:mallory', prevHash: 'cd'.repeat(32) };
    forged.hash = independentHash(forged);
    const lines = [...events.slice(0, 2), forged, ...events.slice(3)];
    const r = verifyChain(text(lines));
    expect(r.breaks.find((b) => b.line === 3)?.reason).toBe("broken link: prevHash is not the previous line's hash");
    // And line 4, which still links to the original line 3, breaks too.
    expect(r.breaks.find((b) => b.line === 4)?.reason).toBe("broken link: prevHash is not the previous line's hash");
    expect(r.breaks.some((b) => b.reason.startsWith('bad hash'))).toBe(false);
  });

  it('an empty chain is a valid empty chain', () => {
    expect(verifyChain('')).toEqual({ events: [], breaks: [], head: null });
  });
});

describe('tampering with a real board', () => {
  let root: string;
  let board: Board;
  let chains: { rel: string; bytes: Buffer; lines: number }[];

  beforeAll(async () => {
    const base = await tmpDir();
    root = path.join(base, 'board');
    await Board.init(root, { name: 'board', actor: 'user:tester' });
    board = await Board.open(root);
    // Several kinds of board-scope commits.
    await board.store.transact({ kind: 'board' }, async (tx) => {
      const w = await tx.read('WORK.md');
      tx.write('WORK.md', { ...w!.data, title: 'Acme operations' }, w!.body);
      tx.audit({ actor: 'user:tester', action: 'board.retitled', entity: 'WORK.md' });
    });
    // A hand edit, adopted: two events in one commit.
    const work = path.join(root, 'WORK.md');
    await fs.writeFile(work, (await readText(work)).replace(/^groups: \{\}$/m, 'groups:\n  finance:\n    - ann@example.com'));
    await board.store.transact({ kind: 'board' }, async (tx) => {
      const w = await tx.read('WORK.md');
      tx.write('WORK.md', { ...w!.data, description: 'Runs of the finance team.' }, w!.body);
      tx.audit({ actor: 'user:tester', action: 'board.described', entity: 'WORK.md' });
    });
    // A published process (create + VERSION.md).
    const folder = path.join(base, 'src', 'expense-check');
    await fs.mkdir(folder, { recursive: true });
    await fs.writeFile(
      path.join(folder, 'PROCESS.md'),
      '---\nname: expense-check\ndescription: Check an expense claim.\nsteps:\n  - id: review\n    agent: Check the receipt against the amount.\n  - id: done\n    finish: done\n---\n# Expense check\n',
    );
    await publish(board, { folder, roles: {}, actor: 'user:tester', offer: FULL_OFFER });
    // A run chain with a few commits.
    const id = runId(1);
    await board.store.transact({ kind: 'run', id }, (tx) => {
      tx.write(`runs/${id}/RUN.md`, runData(id));
      tx.write(`runs/${id}/review.md`, stepData('review'));
      tx.audit({ actor: 'user:tester', action: 'run.started', entity: id });
    });
    for (let n = 1; n <= 2; n++) {
      await board.store.transact({ kind: 'run', id }, (tx) => {
        tx.write(`runs/${id}/review.md`, stepData('review', { output: { n } }));
        tx.audit({ actor: 'agent:clerk', action: 'step.submitted', entity: `${id}/review` });
      });
    }
    // A second run with a single commit: its chain is one line.
    const id2 = runId(2);
    await board.store.transact({ kind: 'run', id: id2 }, (tx) => {
      tx.write(`runs/${id2}/RUN.md`, runData(id2));
      tx.audit({ actor: 'user:tester', action: 'run.started', entity: id2 });
    });
    chains = [];
    for (const rel of ['audit/board.jsonl', `runs/${id}/audit.jsonl`, `runs/${id2}/audit.jsonl`]) {
      const bytes = await fs.readFile(path.join(root, rel));
      chains.push({ rel, bytes, lines: bytes.toString('utf8').split('\n').length - 1 });
    }
    expect(chains[0]!.lines).toBeGreaterThanOrEqual(5);
    expect(chains[1]!.lines).toBe(3);
    expect(chains[2]!.lines).toBe(1);
    expect((await verifyBoard(board)).ok).toBe(true);
  });

  afterAll(cleanupTmp);

  /** Put `bytes` in place of a chain, run `check`, then restore the original. */
  async function withChain(rel: string, bytes: Buffer | string, check: () => Promise<void>) {
    const file = path.join(root, rel);
    const original = chains.find((c) => c.rel === rel)!.bytes;
    await fs.writeFile(file, bytes);
    try {
      await check();
    } finally {
      await fs.writeFile(file, original);
    }
  }

  const lineSpans = (buf: Buffer) => {
    const spans: { start: number; end: number }[] = []; // end = index of the '\n'
    let start = 0;
    for (let i = 0; i < buf.length; i++)
      if (buf[i] === 0x0a) {
        spans.push({ start, end: i });
        start = i + 1;
      }
    return spans;
  };

  it('detects a flip of any byte of any line (every byte in memory; a dense sample through verifyBoard on disk)', async () => {
    let onDisk = 0;
    const undetected: string[] = [];
    for (const chain of chains) {
      const file = path.join(root, chain.rel);
      for (const span of lineSpans(chain.bytes)) {
        for (let pos = span.start; pos <= span.end; pos++) {
          for (const mask of [0x01, 0x20, 0x80]) {
            const bad = Buffer.from(chain.bytes);
            bad[pos] = bad[pos]! ^ mask;
            const where = `${chain.rel} byte ${pos} ^ 0x${mask.toString(16)}`;
            // Every byte, every mask: the chain check alone must see it.
            if (verifyChain(bad.toString('utf8')).breaks.length === 0) undetected.push(`verifyChain: ${where}`);
            // Through the real file and verifyBoard: first and last character, the line end, and every 6th byte.
            const sampled = mask === 0x01 && (pos === span.start || pos === span.end - 1 || pos === span.end || (pos - span.start) % 6 === 0);
            if (sampled) {
              await fs.writeFile(file, bad);
              if ((await verifyBoard(board)).ok) undetected.push(`verifyBoard: ${where}`);
              onDisk++;
            }
          }
        }
      }
      await fs.writeFile(file, chain.bytes);
    }
    expect(undetected).toEqual([]);
    expect(onDisk).toBeGreaterThan(chains.reduce((a, c) => a + c.lines, 0) * 20);
    expect((await verifyBoard(board)).ok).toBe(true);
  });

  it('detects the deletion of any one line, including the last', async () => {
    const undetected: string[] = [];
    for (const chain of chains) {
      const lines = chain.bytes.toString('utf8').split('\n').slice(0, -1);
      for (let i = 0; i < lines.length; i++) {
        const cut = lines.filter((_, j) => j !== i);
        await withChain(chain.rel, cut.map((l) => `${l}\n`).join(''), async () => {
          if ((await verifyBoard(board)).ok) undetected.push(`${chain.rel}: line ${i + 1} of ${lines.length} (${JSON.parse(lines[i]!).action}) deleted`);
        });
      }
    }
    expect(undetected).toEqual([]);
  });

  it('detects the swap of any two adjacent lines', async () => {
    const undetected: string[] = [];
    for (const chain of chains) {
      const lines = chain.bytes.toString('utf8').split('\n').slice(0, -1);
      for (let i = 0; i + 1 < lines.length; i++) {
        const sw = [...lines];
        [sw[i], sw[i + 1]] = [sw[i + 1]!, sw[i]!];
        await withChain(chain.rel, sw.map((l) => `${l}\n`).join(''), async () => {
          if ((await verifyBoard(board)).ok) undetected.push(`${chain.rel}: lines ${i + 1} and ${i + 2} swapped`);
        });
      }
    }
    expect(undetected).toEqual([]);
  });

  it('reports a torn last line as torn, never silently drops or truncates it', async () => {
    for (const chain of chains) {
      const full = chain.bytes.toString('utf8');
      const lastLen = full.slice(0, -1).length - full.slice(0, -1).lastIndexOf('\n') - 1;
      for (const k of [0, 1, 7, Math.floor(lastLen / 2), lastLen - 1]) {
        const torn = full.slice(0, full.length - 1 - k); // the final newline and k more characters gone
        await withChain(chain.rel, torn, async () => {
          const parsed = verifyChain(torn);
          const b = parsed.breaks.find((x) => x.line === chain.lines);
          expect(b, `${chain.rel} torn by ${k}`).toBeDefined();
          expect(b!.reason).toMatch(/torn/i);
          expect(parsed.events).toHaveLength(chain.lines - 1);

          const report = await verifyBoard(board);
          expect(report.ok).toBe(false);
          const c = report.chains.find((x) => x.file === chain.rel)!;
          expect(c.breaks.some((x) => x.line === chain.lines && /torn/i.test(x.reason))).toBe(true);

          // A writer must not repair it by dropping the line: it refuses, and the bytes stay.
          const scope = chain.rel.startsWith('runs/') ? ({ kind: 'run', id: chain.rel.split('/')[1]! } as const) : ({ kind: 'board' } as const);
          let err: unknown;
          try {
            await board.store.transact(scope, (tx) => {
              tx.audit({ actor: 'user:tester', action: 'noop.audited', entity: 'x' });
            });
          } catch (e) {
            err = e;
          }
          expect(err).toBeInstanceOf(BoardError);
          expect((err as BoardError).code).toBe('corrupt');
          expect(await readText(path.join(root, chain.rel))).toBe(torn);
        });
      }
    }
    expect((await verifyBoard(board)).ok).toBe(true);
  });
});
