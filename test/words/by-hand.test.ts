/**
 * Numbers and UTC times are written by hand, not by Intl, so a CLI call does
 * not load ICU's data (src/words/values.ts `grouped`, src/words/time.ts
 * `utcParts`). Intl stays the reference: each answer here must be the one an
 * Intl formatter of this Node gives for the same value.
 */
import { describe, expect, it } from 'vitest';
import { dateWords, exactTime } from '../../src/words/index.js';
import { grouped } from '../../src/words/values.js';

/** A fixed pseudo-random sequence (Park–Miller), so a failure names the same values every run. */
function* seeded(count: number, seed = 20261207): Generator<number> {
  let r = seed;
  for (let i = 0; i < count; i++) {
    r = (r * 16807) % 2147483647;
    yield r / 2147483647;
  }
}

describe('numbers by hand, as Intl writes them in en-US', () => {
  const formats = new Map([undefined, 0, 2].map((d) => [d, new Intl.NumberFormat('en-US', d === undefined ? { maximumFractionDigits: 6 } : { minimumFractionDigits: d, maximumFractionDigits: d })]));
  const intl = (n: number, decimals?: number) => formats.get(decimals)!.format(n);
  const edges = [
    0,
    -0,
    1,
    -1,
    0.5,
    -0.5,
    1.005,
    2.675,
    0.125,
    1234.5,
    -1234.5678901,
    999.9995,
    999999.9999995,
    9.9999995,
    1e20,
    123456789.12345679,
    0.1 + 0.2,
    1e-7,
    -1e-7,
    5e-7,
    4.9999995e-6,
    0.0000005,
    1e21,
    -1e22,
    NaN,
    Infinity,
    -Infinity,
  ];
  const random = [...seeded(20_000)].map((u, i) => (u - 0.5) * 10 ** ((i % 40) - 15));

  it('groups thousands and rounds half away from zero on the shortest decimal form, with six places at most or exactly the places asked', () => {
    const wrong: string[] = [];
    for (const n of [...edges, ...random])
      for (const decimals of [undefined, 0, 2]) {
        const mine = grouped(n, decimals);
        const theirs = intl(n, decimals);
        if (mine !== theirs) wrong.push(`${n} (${decimals ?? 'up to 6'} places): ${mine}, Intl ${theirs}`);
      }
    expect(wrong).toEqual([]);
  });

  it('reads as people expect', () => {
    expect([grouped(1234567.891), grouped(12.5, 2), grouped(1.005, 2), grouped(-0.0000001), grouped(1000)]).toEqual(['1,234,567.891', '12.50', '1.01', '-0', '1,000']);
  });
});

describe('UTC times by hand, as Intl writes them in en-GB', () => {
  const day = { weekday: 'short', day: 'numeric', month: 'short', year: 'numeric' } as const;
  const zones = new Map(
    ['UTC', 'Etc/UTC'].map((timeZone) => [
      timeZone,
      {
        moment: new Intl.DateTimeFormat('en-GB', { timeZone, ...day, hour: '2-digit', minute: '2-digit', hourCycle: 'h23' }),
        name: new Intl.DateTimeFormat('en-GB', { timeZone, timeZoneName: 'short' }),
      },
    ]),
  );
  const dates = new Intl.DateTimeFormat('en-GB', { timeZone: 'UTC', ...day });
  const fields = (f: Intl.DateTimeFormat, at: Date) => Object.fromEntries(f.formatToParts(at).map((x) => [x.type, x.value]));
  const intlExact = (iso: string, timeZone: string) => {
    const p = fields(zones.get(timeZone)!.moment, new Date(iso));
    return `${p.weekday} ${p.day} ${p.month} ${p.year}, ${p.hour}:${p.minute} ${fields(zones.get(timeZone)!.name, new Date(iso)).timeZoneName}`;
  };
  const intlDate = (ymd: string) => {
    const p = fields(dates, new Date(`${ymd}T12:00:00Z`));
    return `${p.weekday} ${p.day} ${p.month} ${p.year}`;
  };
  // Every month and weekday, midnight and the last minute of a day, leap days, from 1970 to 2099.
  const moments = [...seeded(3_000, 7)].map((u) => new Date(Math.floor(u * Date.UTC(2100, 0, 1))).toISOString());
  moments.push('2024-02-29T00:00:00.000Z', '2026-12-31T23:59:59.999Z', '2026-09-01T09:05:00Z', '1970-01-01T00:00:00Z');

  it('gives the words Intl gives for every moment, in UTC and Etc/UTC', () => {
    const wrong: string[] = [];
    for (const iso of moments)
      for (const zone of ['UTC', 'Etc/UTC']) if (exactTime(iso, zone) !== intlExact(iso, zone)) wrong.push(`${iso} ${zone}: ${exactTime(iso, zone)}, Intl ${intlExact(iso, zone)}`);
    for (const iso of moments) if (dateWords(iso.slice(0, 10)) !== intlDate(iso.slice(0, 10))) wrong.push(`${iso.slice(0, 10)}: ${dateWords(iso.slice(0, 10))}, Intl ${intlDate(iso.slice(0, 10))}`);
    expect(wrong).toEqual([]);
  });

  it('reads as people expect, and leaves other zones to Intl', () => {
    expect(exactTime('2026-09-03T18:54:00Z', 'UTC')).toBe('Thu 3 Sept 2026, 18:54 UTC');
    expect(exactTime('2026-12-03T18:54:00Z', 'Europe/Berlin')).toBe('Thu 3 Dec 2026, 19:54 CET');
    expect(dateWords('2026-12-03')).toBe('Thu 3 Dec 2026');
  });
});
