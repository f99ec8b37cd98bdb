/**
 * The twelve upstream conformance fixtures (../shared/conformance/fixtures,
 * outside this repository). The ten core ones publish with every profile and
 * with none; major-incident needs parallel-1 and vendor-check needs check-1,
 * and each is refused, naming its profile, when that profile is off.
 *
 * Skipped when ../shared is not there (a fresh clone elsewhere).
 */
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { loadProcess } from '../../src/process/load.js';
import { FULL_OFFER, type Offer } from '../../src/protocol/offer.js';

const dir = resolve(dirname(fileURLToPath(import.meta.url)), '../../../shared/conformance/fixtures');
const present = existsSync(dir);

const CORE = [
  'blog-publication',
  'contract-review',
  'customer-offboarding',
  'employee-onboarding',
  'expense-reimbursement',
  'incident-postmortem',
  'invoice-approval',
  'major-incident-response',
  'supplier-rfp',
  'support-escalation',
];
const PROFILED: { name: string; profile: string; path: string }[] = [
  { name: 'major-incident', profile: 'parallel-1', path: 'steps[1].parallel' },
  { name: 'vendor-check', profile: 'check-1', path: 'steps[0].check' },
];

const offer = (profiles: string[]): Offer => ({ profiles: new Set(profiles), tools: FULL_OFFER.tools });
const read = (name: string) => readFileSync(join(dir, name, 'PROCESS.md'), 'utf8');

describe.skipIf(!present)('upstream conformance fixtures', () => {
  it('are the twelve we expect', () => {
    expect(readdirSync(dir).sort()).toEqual([...CORE, ...PROFILED.map((p) => p.name)].sort());
  });

  describe.each(CORE)('%s (core)', (name) => {
    it('publishes with every profile', () => {
      const r = loadProcess(read(name), FULL_OFFER);
      expect(r.ok ? [] : r.issues).toEqual([]);
      if (r.ok) expect(r.process.name).toBe(name);
    });

    it('publishes with no profile', () => {
      const r = loadProcess(read(name), offer([]));
      expect(r.ok ? [] : r.issues).toEqual([]);
    });
  });

  describe.each(PROFILED)('$name ($profile)', ({ name, profile, path }) => {
    it('publishes with its profile', () => {
      const r = loadProcess(read(name), offer([profile]));
      expect(r.ok ? [] : r.issues).toEqual([]);
      if (r.ok) expect(r.process.name).toBe(name);
    });

    it('is refused, naming the profile, when it is off', () => {
      const other = FULL_OFFER.profiles.has(profile) ? [...FULL_OFFER.profiles].filter((p) => p !== profile) : [];
      for (const profiles of [other, []]) {
        const r = loadProcess(read(name), offer(profiles));
        expect(r.ok).toBe(false);
        if (r.ok) continue;
        expect(r.issues.map(({ path, message }) => ({ path, message }))).toEqual([{ path, message: `needs profile ${profile}, not enabled` }]);
      }
    });
  });
});
