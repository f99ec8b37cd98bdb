import { describe, expect, it } from 'vitest';
import { graceFor, heldElsewhere, MOST_HELD_MS, offerGrace, offerLines, ownKeys, type OfferLine } from '../../src/service/clone-offer.js';

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

  it('each clone draws, for each step, a further wait of up to the grace again, the same on every call', () => {
    expect(offerGrace({ everyMs: 20_000, goodAt: [] }, false, 'key-c')).toEqual({ ms: 60_000, drawKey: 'key-c' });
    const steps = Array.from({ length: 200 }, (_, i) => `r-${i}/draft`);
    const waits = (key: string) => steps.map((e) => graceFor({ ms: 60_000, drawKey: key }, e, at(0)));
    const [c, d] = [waits('key-c'), waits('key-d')];
    // Every wait lies between the grace and twice it, and is drawn again the same.
    for (const w of [...c, ...d]) expect(w >= 60_000 && w < 120_000, `wait ${w}`).toBe(true);
    expect(waits('key-c')).toEqual(c);
    // Spread across that span, and different from another clone's for almost every step.
    const quarters = new Set(c.map((w) => Math.floor((w - 60_000) / 15_000)));
    expect([...quarters].sort()).toEqual([0, 1, 2, 3]);
    expect(c.filter((w, i) => Math.abs(w - d[i]!) >= 5_000).length).toBeGreaterThan(150);
    // The same step made ready again later is a new draw.
    expect(steps.filter((e, i) => graceFor({ ms: 60_000, drawKey: 'key-c' }, e, at(30)) !== c[i]).length).toBeGreaterThan(190);
  });

  it('the drawn wait holds the work back as the grace does, and the most it may be still ends it', () => {
    const lines = [line('step.ready', 'key-b', 0)];
    const grace = { ms: 60_000, drawKey: 'key-a' };
    const wait = graceFor(grace, STEP, at(0));
    expect(heldElsewhere(lines, STEP, MINE, new Date(Date.parse(at(0)) + wait - 1), grace)).toEqual({ why: 'ready-elsewhere', until: new Date(Date.parse(at(0)) + wait).toISOString() });
    expect(heldElsewhere(lines, STEP, MINE, new Date(Date.parse(at(0)) + wait), grace)).toBeNull();
    const failing = { ...grace, goodSyncs: [at(-30), at(-20), at(-10)] };
    expect(heldElsewhere(lines, STEP, MINE, new Date(Date.parse(at(0)) + MOST_HELD_MS), failing)).toBeNull();
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
