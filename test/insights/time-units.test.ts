/**
 * The unit a chart of durations is drawn in fits its longest bar: minutes on a
 * minutes axis, never "0.000000 hours".
 */
import { describe, expect, it } from 'vitest';
import { inUnit, timeUnitFor } from '../../src/insights/labels.js';

const S = 1000;
const MIN = 60 * S;
const H = 60 * MIN;
const D = 24 * H;

describe('timeUnitFor', () => {
  it('chooses the largest unit the longest bar fills at least twice', () => {
    expect(timeUnitFor(0).name).toBe('seconds');
    expect(timeUnitFor(45 * S).name).toBe('seconds');
    expect(timeUnitFor(119 * S).name).toBe('seconds');
    expect(timeUnitFor(2 * MIN).name).toBe('minutes');
    expect(timeUnitFor(35 * MIN).name).toBe('minutes');
    expect(timeUnitFor(119 * MIN).name).toBe('minutes');
    expect(timeUnitFor(2 * H).name).toBe('hours');
    expect(timeUnitFor(47 * H).name).toBe('hours');
    expect(timeUnitFor(2 * D).name).toBe('days');
    expect(timeUnitFor(400 * D).name).toBe('days');
  });

  it('gives a value in the unit to two decimals at most', () => {
    expect(inUnit(35 * MIN, timeUnitFor(35 * MIN))).toBe(35);
    expect(inUnit(90 * S, timeUnitFor(35 * MIN))).toBe(1.5);
    expect(inUnit(1 * S, timeUnitFor(5 * H))).toBe(0);
    expect(inUnit(3 * D + 12 * H, timeUnitFor(4 * D))).toBe(3.5);
  });
});
