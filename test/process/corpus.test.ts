/**
 * The fixture corpus: fixtures/valid/<name>/PROCESS.md must publish, and every
 * file in fixtures/invalid/ must be refused with exactly the issues listed for
 * it in fixtures/invalid/expected.json: same path and message (and line where
 * one is given), every one of them, nothing more.
 *
 * expected.json: { "<file>": { "rule": "...", "offer"?: "...", "issues": [{ path, message, line? }] } }
 * `offer` is a comma-separated list of what the server withholds, starting from
 * everything workboard offers: `no-parallel`, `no-check`, `no-profiles`, or
 * `no-<tool>` such as `no-upload` and `no-send_event`.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { Issue } from '../../src/core/issues.js';
import { loadProcess } from '../../src/process/load.js';
import { FULL_OFFER, TOOLS, type Offer } from '../../src/protocol/offer.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '../../fixtures');
const validDir = join(root, 'valid');
const invalidDir = join(root, 'invalid');

interface ExpectedIssue {
  path: string;
  message: string;
  line?: number;
}
interface Expectation {
  rule: string;
  offer?: string;
  issues: ExpectedIssue[];
}

/** Build an offer from FULL_OFFER minus what the `offer` field withholds. */
export function offerFrom(spec: string | undefined): Offer {
  const profiles = new Set(FULL_OFFER.profiles);
  const tools = new Set(FULL_OFFER.tools);
  for (const token of (spec ?? '')
    .split(',')
    .map((t) => t.trim())
    .filter((t) => t !== '')) {
    if (token === 'no-parallel') profiles.delete('parallel-1');
    else if (token === 'no-check') profiles.delete('check-1');
    else if (token === 'no-profiles') profiles.clear();
    else if (token.startsWith('no-') && (TOOLS as readonly string[]).includes(token.slice(3))) tools.delete(token.slice(3));
    else throw new Error(`unknown offer token "${token}" in expected.json`);
  }
  return { profiles, tools };
}

/** Pair every expected issue with one actual issue; what is left on either side is a failure. */
function compare(actual: Issue[], expected: ExpectedIssue[]) {
  const remaining = [...actual];
  const missing: ExpectedIssue[] = [];
  for (const e of expected) {
    const i = remaining.findIndex((a) => a.path === e.path && a.message === e.message && (e.line === undefined || a.line === e.line));
    if (i === -1) missing.push(e);
    else remaining.splice(i, 1);
  }
  return { missing, extra: remaining.map(({ path, message, line }) => ({ path, message, line })) };
}

const validNames = readdirSync(validDir, { withFileTypes: true })
  .filter((d) => d.isDirectory())
  .map((d) => d.name)
  .sort();
const readValid = (name: string) => readFileSync(join(validDir, name, 'PROCESS.md'), 'utf8');

const expectations = JSON.parse(readFileSync(join(invalidDir, 'expected.json'), 'utf8')) as Record<string, Expectation>;
const invalidFiles = readdirSync(invalidDir)
  .filter((f) => f !== 'expected.json')
  .sort();

describe('valid fixtures', () => {
  it('there are four to six of them', () => {
    expect(validNames.length).toBeGreaterThanOrEqual(4);
    expect(validNames.length).toBeLessThanOrEqual(6);
  });

  describe.each(validNames)('%s', (name) => {
    const text = readValid(name);
    const result = loadProcess(text, FULL_OFFER);

    it('loads with everything offered', () => {
      expect(result.ok ? [] : result.issues).toEqual([]);
    });

    it('is in a folder named after it, with a body after the frontmatter', () => {
      if (!result.ok) throw new Error('did not load');
      expect(result.process.name).toBe(name);
      expect(result.process.body.trim()).not.toBe('');
      expect(text.endsWith(result.process.body)).toBe(true);
      expect(result.hash).toMatch(/^[0-9a-f]{64}$/);
    });

    it('loads without profiles exactly when it uses none', () => {
      if (!result.ok) throw new Error('did not load');
      const steps = result.process.frontmatter.steps as Record<string, unknown>[];
      const usesParallel = steps.some((s) => 'parallel' in s);
      const usesCheck = steps.some((s) => 'check' in s);
      const bare = loadProcess(text, { profiles: new Set(), tools: FULL_OFFER.tools });
      if (!usesParallel && !usesCheck) expect(bare.ok ? [] : bare.issues).toEqual([]);
      else {
        expect(bare.ok).toBe(false);
        const messages = bare.ok ? [] : bare.issues.map((i) => i.message);
        expect(new Set(messages)).toEqual(new Set([...(usesParallel ? ['needs profile parallel-1, not enabled'] : []), ...(usesCheck ? ['needs profile check-1, not enabled'] : [])]));
      }
    });
  });

  it('together use every key and form of the format', () => {
    const seen = new Set<string>();
    const field = (def: unknown, where: 'inputs' | 'output' | 'items') => {
      if (typeof def === 'string') {
        seen.add(`${where}:shorthand`);
        seen.add(`${where}:type:${def}`);
        return;
      }
      const f = def as Record<string, unknown>;
      seen.add(`${where}:object`);
      seen.add(`${where}:type:${String(f.type)}`);
      if ('description' in f) seen.add('field:description');
      if (f.optional === true) seen.add('field:optional');
      if ('one_of' in f) seen.add(`field:one_of:${String(f.type)}`);
      if ('items' in f) {
        seen.add(typeof f.items === 'string' ? 'field:items:type-name' : 'field:items:field-object');
        field(f.items, 'items');
      }
    };
    for (const name of validNames) {
      const r = loadProcess(readValid(name), FULL_OFFER);
      if (!r.ok) continue;
      const fm = r.process.frontmatter;
      for (const k of Object.keys(fm)) seen.add(`top:${k}`);
      for (const def of Object.values((fm.inputs ?? {}) as Record<string, unknown>)) field(def, 'inputs');
      if (fm.requires) seen.add('requires:systems');
      for (const s of fm.steps as Record<string, unknown>[]) {
        for (const k of Object.keys(s)) seen.add(`step:${k}`);
        for (const def of Object.values((s.output ?? {}) as Record<string, unknown>)) field(def, 'output');
        for (const e of (s.evidence ?? []) as string[]) seen.add(`evidence:${e}`);
        if (typeof s.next === 'string') seen.add('next:id');
        else if (Array.isArray(s.next)) {
          if (s.next.every((r) => typeof r === 'string')) seen.add('next:ids');
          if (s.next.some((r) => typeof r === 'object' && r !== null && 'to' in r && 'when' in r)) seen.add('next:routes');
        }
        if (typeof s.person === 'string') {
          if (s.person === 'initiator') seen.add('person:initiator');
          else if (s.person.startsWith('inputs.')) seen.add('person:inputs-path');
          else if (s.person.startsWith('steps.')) seen.add('person:output-path');
          else seen.add('person:role');
        }
        if (typeof s.wait_until === 'string') seen.add(s.wait_until.startsWith('inputs.') ? 'wait_until:inputs-path' : 'wait_until:output-path');
        if (typeof s.check === 'string') seen.add('check:short');
        else if (Array.isArray(s.check)) {
          seen.add('check:full');
          for (const q of s.check as Record<string, unknown>[]) {
            const kind = 'one_of' in q ? 'choice' : 'levels' in q ? 'rubric' : 'yes_no';
            for (const k of Object.keys(q)) seen.add(`check:${kind}:${k}`);
          }
        }
      }
    }
    const needed = [
      ...['name', 'description', 'inputs', 'requires', 'steps'].map((k) => `top:${k}`),
      'requires:systems',
      ...['string', 'number', 'boolean', 'date', 'datetime', 'list', 'object', 'person'].map((t) => `inputs:type:${t}`),
      'inputs:shorthand',
      'inputs:object',
      'output:shorthand',
      'output:object',
      'field:description',
      'field:optional',
      ...['string', 'number', 'boolean', 'date'].map((t) => `field:one_of:${t}`),
      'field:items:type-name',
      'field:items:field-object',
      ...['id', 'agent', 'task', 'approve', 'wait', 'wait_until', 'wait_for', 'finish', 'parallel'].map((k) => `step:${k}`),
      ...['output', 'evidence', 'next', 'person', 'on_reject', 'due', 'timeout', 'on_timeout', 'check', 'advisory'].map((k) => `step:${k}`),
      'evidence:file',
      'evidence:link',
      'next:id',
      'next:ids',
      'next:routes',
      'person:role',
      'person:initiator',
      'person:inputs-path',
      'person:output-path',
      'wait_until:inputs-path',
      'wait_until:output-path',
      'check:short',
      'check:full',
      'check:yes_no:ask',
      'check:yes_no:pass',
      'check:yes_no:fail',
      ...['ask', 'one_of', 'pass', 'unsure', 'confidence'].map((k) => `check:choice:${k}`),
      ...['ask', 'levels', 'pass', 'confidence'].map((k) => `check:rubric:${k}`),
    ];
    expect(needed.filter((n) => !seen.has(n))).toEqual([]);
  });
});

describe('invalid fixtures', () => {
  it('every file has an expectation and every expectation a file', () => {
    expect(Object.keys(expectations).sort()).toEqual(invalidFiles);
  });

  it('there are at least 60, and at least 4 break several rules at once', () => {
    expect(invalidFiles.length).toBeGreaterThanOrEqual(60);
    const several = Object.values(expectations).filter((e) => e.issues.length >= 3);
    expect(several.length).toBeGreaterThanOrEqual(4);
  });

  it.each(invalidFiles)('%s is refused with exactly the expected issues', (file) => {
    const exp = expectations[file];
    if (!exp) throw new Error(`no expectation for ${file}`);
    expect(exp.issues.length).toBeGreaterThan(0);
    const result = loadProcess(readFileSync(join(invalidDir, file), 'utf8'), offerFrom(exp.offer));
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(compare(result.issues, exp.issues)).toEqual({ missing: [], extra: [] });
  });
});
