import { describe, expect, it } from 'vitest';
import { currentKeys, heldElsewhere, MOST_HELD_MS, offerGrace, offerLines, ownKeys, turnOf, waitFor, type OfferLine } from '../../src/service/clone-offer.js';

const STEP = 'r-1/draft';
const at = (s: number) => new Date(Date.UTC(2026, 11, 5, 12, 0, s)).toISOString();
const line = (action: string, signer: string | undefined, s: number, expiresAt?: string, entity = STEP): OfferLine => ({
  ts: at(s),
  action,
  entity,
  ...(signer ? { signer } : {}),
  ...(expiresAt ? { expiresAt } : {}),
});
const now = (s: number) => new Date(at(s));
const MINE = new Set(['key-a']);
const GRACE = { ms: 60_000 };

describe('offered first where it became ready (docs/git.md "Offered first where it became ready")', () => {
  it('work made ready on this clone is offered at once', () => {
    expect(heldElsewhere([line('run.started', 'key-a', 0, undefined, 'run:r-1'), line('step.ready', 'key-a', 0)], STEP, MINE, now(1), GRACE)).toBeNull();
  });

  it('work made ready on another clone waits out the grace, then is offered', () => {
    const lines = [line('step.ready', 'key-b', 0)];
    expect(heldElsewhere(lines, STEP, MINE, now(1), GRACE)).toEqual({ why: 'ready-elsewhere', until: at(60) });
    expect(heldElsewhere(lines, STEP, MINE, now(59), GRACE)?.why).toBe('ready-elsewhere');
    expect(heldElsewhere(lines, STEP, MINE, now(60), GRACE)).toBeNull();
  });

  it('a claim made on another clone holds the work until its lease ends, grace or not', () => {
    const lines = [line('step.ready', 'key-a', 0), line('step.claimed', 'key-b', 5, at(600))];
    expect(heldElsewhere(lines, STEP, MINE, now(10), GRACE)).toEqual({ why: 'claimed-elsewhere', until: at(600) });
    expect(heldElsewhere(lines, STEP, MINE, now(599), GRACE)?.why).toBe('claimed-elsewhere');
    expect(heldElsewhere(lines, STEP, MINE, now(600), GRACE)).toBeNull();
    // A renewal there moves the end.
    expect(heldElsewhere([...lines, line('step.renewed', 'key-b', 500, at(1200))], STEP, MINE, now(900), GRACE)?.until).toBe(at(1200));
  });

  it('a claim that ended (its lease ran out, its agent was removed) frees the work, from the clone that wrote the end', () => {
    const claimed = [line('step.ready', 'key-a', 0), line('step.claimed', 'key-b', 5, at(600))];
    expect(heldElsewhere([...claimed, line('lease.expired', 'key-a', 600)], STEP, MINE, now(601), GRACE)).toBeNull();
    // Ended on another clone: ready there again, so offered here after the grace.
    expect(heldElsewhere([...claimed, line('lease.expired', 'key-b', 600)], STEP, MINE, now(601), GRACE)?.why).toBe('ready-elsewhere');
    expect(heldElsewhere([...claimed, line('claim.ended', 'key-b', 100)], STEP, MINE, now(161), GRACE)).toBeNull();
  });

  it("this clone's own claim is not a claim elsewhere (its lease is read from .work/)", () => {
    expect(heldElsewhere([line('step.ready', 'key-b', 0), line('step.claimed', 'key-a', 5, at(600))], STEP, MINE, now(100), GRACE)).toBeNull();
  });

  it("an approval opened on another clone waits as a step does; other steps' lines do not count", () => {
    expect(heldElsewhere([line('work-item.opened', 'key-b', 0, undefined, 'r-1/approve')], 'r-1/approve', MINE, now(1), GRACE)?.why).toBe('ready-elsewhere');
    expect(heldElsewhere([line('step.ready', 'key-b', 0, undefined, 'r-1/other')], STEP, MINE, now(1), GRACE)).toBeNull();
    expect(heldElsewhere([line('step.ready', 'key-b', 0), line('step.claimed', 'key-b', 1, at(600), 'r-1/other')], STEP, MINE, now(61), GRACE)).toBeNull();
  });

  it("a line without a signer (a board older than signing) is this clone's", () => {
    expect(heldElsewhere([line('step.ready', undefined, 0)], STEP, MINE, now(1), GRACE)).toBeNull();
  });

  it('the grace is three intervals of serve --git-sync, else three minutes; its good syncs count only while it runs', () => {
    const goodAt = [at(1), at(2)];
    expect(offerGrace({ everyMs: 20_000, goodAt }, true)).toEqual({ ms: 60_000, goodSyncs: goodAt });
    expect(offerGrace({ everyMs: 20_000, goodAt }, false)).toEqual({ ms: 60_000 });
    expect(offerGrace(null, false)).toEqual({ ms: 180_000 });
  });

  it('while a serve syncs here, the grace also waits for three of its syncs to get through after the line', () => {
    const lines = [line('step.ready', 'key-b', 0)];
    // Syncs failing since before the line: held past the time grace, until the most it may be.
    const failing = { ms: 60_000, goodSyncs: [at(-30), at(-20), at(-10)] };
    expect(heldElsewhere(lines, STEP, MINE, now(61), failing)).toEqual({ why: 'ready-elsewhere', until: new Date(Date.parse(at(0)) + MOST_HELD_MS).toISOString() });
    expect(heldElsewhere(lines, STEP, MINE, new Date(Date.parse(at(0)) + MOST_HELD_MS - 1), failing)?.why).toBe('ready-elsewhere');
    expect(heldElsewhere(lines, STEP, MINE, new Date(Date.parse(at(0)) + MOST_HELD_MS), failing)).toBeNull();
    // Two got through since: still held; the third frees it.
    expect(heldElsewhere(lines, STEP, MINE, now(61), { ms: 60_000, goodSyncs: [at(-10), at(20), at(40)] })?.why).toBe('ready-elsewhere');
    expect(heldElsewhere(lines, STEP, MINE, now(61), { ms: 60_000, goodSyncs: [at(20), at(40), at(60)] })).toBeNull();
    // Three syncs soon after the line do not cut the time grace short.
    expect(heldElsewhere(lines, STEP, MINE, now(30), { ms: 60_000, goodSyncs: [at(1), at(2), at(3)] })?.until).toBe(at(60));
    // Work made ready here, or claimed here, is never held by syncs.
    expect(heldElsewhere([line('step.ready', 'key-a', 0)], STEP, MINE, now(1), failing)).toBeNull();
  });

  it('the clones other than the one where it became ready take turns, one grace each, in an order each step draws', () => {
    const current = currentKeys(['key-a', 'key-b', 'key-c', 'key-d'].map((fingerprint) => ({ fingerprint })));
    expect(offerGrace({ everyMs: 20_000, goodAt: [] }, false, { key: 'key-c', current })).toEqual({ ms: 60_000, turns: { key: 'key-c', current } });
    const steps = Array.from({ length: 300 }, (_, i) => `r-${i}/draft`);
    const waits = (key: string) => steps.map((e) => waitFor({ ms: 60_000, turns: { key, current } }, e, at(0), 'key-b').ms);
    const [a, c, d] = [waits('key-a'), waits('key-c'), waits('key-d')];
    // For every step, the three other clones wait one, two and three graces: never two at one moment.
    for (const [i, step] of steps.entries())
      expect(
        [a[i], c[i], d[i]].sort((x, y) => x! - y!),
        step,
      ).toEqual([60_000, 120_000, 180_000]);
    // The same every call; each clone goes first for about a third of the steps.
    expect(waits('key-c')).toEqual(c);
    for (const w of [a, c, d]) expect(w.filter((x) => x === 60_000).length).toBeGreaterThan(70);
    // The same step made ready again later draws its order again.
    expect(steps.filter((e, i) => waitFor({ ms: 60_000, turns: { key: 'key-c', current } }, e, at(30), 'key-b').ms !== c[i]).length).toBeGreaterThan(100);
  });

  it('a rotated key keeps its clone one turn; a clone with no key on record goes last; the turns end by the most a wait may be', () => {
    const current = currentKeys([{ fingerprint: 'key-a' }, { fingerprint: 'old-b' }, { fingerprint: 'key-b', rotates: 'old-b' }, { fingerprint: 'key-c' }]);
    expect(current.get('old-b')).toBe('key-b');
    // Made ready by key-b's older key: key-b takes no turn, a and c share turns 0 and 1.
    const turns = (key?: string) => Array.from({ length: 50 }, (_, i) => turnOf({ ...(key ? { key } : {}), current }, `r-${i}/draft`, at(0), 'old-b'));
    for (const [i, ta] of turns('key-a').entries()) expect([ta, turns('key-c')[i]].sort((x, y) => x! - y!)).toEqual([0, 1]);
    expect(new Set([...turns(), ...turns('key-new')])).toEqual(new Set([2]));
    // Many clones: no wait passes the most a step is held.
    const many = currentKeys(Array.from({ length: 12 }, (_, i) => ({ fingerprint: `k${i}` })));
    const longest = Math.max(...Array.from({ length: 12 }, (_, i) => waitFor({ ms: 180_000, turns: { key: `k${i}`, current: many } }, STEP, at(0), 'k0').ms));
    expect(longest).toBe(MOST_HELD_MS);
  });

  it('a turn holds the work back until its graces have passed and, while a serve syncs here, three syncs since the turn before began', () => {
    const current = currentKeys(['key-a', 'key-b', 'key-c'].map((fingerprint) => ({ fingerprint })));
    const lines = [line('step.ready', 'key-b', 0)];
    // The step for which key-a's turn is the second.
    const step = Array.from({ length: 50 }, (_, i) => `r-${i}/draft`).find((e) => turnOf({ key: 'key-a', current }, e, at(0), 'key-b') === 1)!;
    const held = (s: number, goodSyncs?: string[]) =>
      heldElsewhere([{ ...lines[0]!, entity: step }], step, MINE, now(s), { ms: 60_000, turns: { key: 'key-a', current }, ...(goodSyncs ? { goodSyncs } : {}) });
    expect(held(119)).toEqual({ why: 'ready-elsewhere', until: at(120) });
    expect(held(120)).toBeNull();
    // Three good syncs, but one of them before the first turn began (at 60 s): still held; three after it free it.
    expect(held(121, [at(50), at(70), at(90)])?.why).toBe('ready-elsewhere');
    expect(held(121, [at(70), at(90), at(110)])).toBeNull();
    // Syncs that keep failing hold it no longer than the most it may be.
    expect(held(MOST_HELD_MS / 1000, [at(-30), at(-20), at(-10)])).toBeNull();
  });

  it("a clone's keys are its own and those it was rotated from", () => {
    const recs = [{ fingerprint: 'k1' }, { fingerprint: 'k2', rotates: 'k1' }, { fingerprint: 'k3', rotates: 'k2' }, { fingerprint: 'other' }];
    expect([...ownKeys('k3', recs)].sort()).toEqual(['k1', 'k2', 'k3']);
    expect([...ownKeys('other', recs)]).toEqual(['other']);
  });

  it("reads a chain file's lines, skipping what is not a line", () => {
    const text = [
      JSON.stringify({ seq: 0, ts: at(0), actor: 'server', action: 'step.ready', entity: STEP, input: { fromRev: 1, toRev: 2 }, signer: 'key-b' }),
      '{"torn',
      JSON.stringify({ seq: 1, ts: at(1), actor: 'bot', action: 'step.claimed', entity: STEP, input: { fromRev: 2, toRev: 2, changes: { expiresAt: at(601) } }, signer: 'key-b' }),
      '',
    ].join('\n');
    expect(offerLines(text)).toEqual([line('step.ready', 'key-b', 0), line('step.claimed', 'key-b', 1, at(601))]);
  });
});
