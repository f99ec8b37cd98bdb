/**
 * The map commands as real subprocesses on a copy of the example board:
 * `map <name>` and `map <path>` (a draft, with its problems on stderr and
 * exit 1), and `show <run> --map` as SVG and as Mermaid with the path taken;
 * and the bundle in dist/bundle, run from another folder, drawing exactly
 * what the source draws (so it found the font beside itself).
 */
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { XMLValidator } from 'fast-xml-parser';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadDraft } from '../../src/map/draft.js';
import { processMapSvg } from '../../src/map/index.js';
import { FULL_OFFER } from '../../src/protocol/offer.js';

const BIN = fileURLToPath(new URL('../../bin/workboard.js', import.meta.url));
const EXAMPLE = fileURLToPath(new URL('../../examples/board', import.meta.url));
let b: string;
const wb = (...args: string[]) => {
  const r = spawnSync(process.execPath, [BIN, '--board', b, ...args], { encoding: 'utf8', cwd: b });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
};

beforeAll(() => {
  b = path.join(mkdtempSync(path.join(tmpdir(), 'wb-map-')), 'board');
  cpSync(EXAMPLE, b, { recursive: true });
});

const BUNDLE = fileURLToPath(new URL('../../dist/bundle/main.js', import.meta.url));
const SUPPLIER = fileURLToPath(new URL('../../fixtures/valid/supplier-onboarding/PROCESS.md', import.meta.url));

describe.skipIf(!existsSync(BUNDLE))(`the bundled CLI (dist/bundle${existsSync(BUNDLE) ? '' : ' is not built: npm run build; skipped'})`, () => {
  it('finds the map font from its own folder and draws the map the source draws', async () => {
    const run = `const { main } = await import(${JSON.stringify(BUNDLE)}); process.exitCode = await main(['node', 'workboard', 'map', ${JSON.stringify(SUPPLIER)}, '--format', 'svg']);`;
    const r = spawnSync(process.execPath, ['--input-type=module', '-e', run], { encoding: 'utf8', cwd: tmpdir() });
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    const d = loadDraft(readFileSync(SUPPLIER, 'utf8'), FULL_OFFER);
    expect(r.stdout).toBe(await processMapSvg({ process: d.process }, { problems: d.problems }));
  });
});

describe('map commands', () => {
  it('draws a published version with its groups, and a draft by path', () => {
    const pub = wb('map', 'expense-approval', '--format', 'svg');
    expect(pub.code).toBe(0);
    expect(XMLValidator.validate(pub.stdout)).toBe(true);
    expect(pub.stdout).toContain('1 member, as finance approver');
    const draft = wb('map', 'processes/expense-approval', '--format', 'svg');
    expect(draft.code).toBe(0);
    expect(draft.stdout).toContain('Expense approval · draft');
    expect(wb('map', 'processes/expense-approval').stdout.startsWith('flowchart LR\n')).toBe(true);
  });

  it('a broken draft is drawn with its problems marked, printed as validate prints them, and exits 1', () => {
    const file = path.join(b, 'typo.md');
    writeFileSync(file, '---\nname: typo\ndescription: Typo.\nsteps:\n  - id: a\n    agent: Do it.\n    next: aprove\n  - id: b\n    finish: done\n---\n');
    const r = wb('map', file, '--format', 'svg');
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`${file}:7:11: steps[0].next: no step "aprove"`);
    expect(XMLValidator.validate(r.stdout)).toBe(true);
    expect(r.stdout).toContain('No step &quot;aprove&quot; in this file.');
  });

  it('show --map --format svg draws the run with its current step', () => {
    const run = wb('start', 'expense-approval', '--input', 'claimant=jon@example.com', '--input', 'amount=12', '--input', 'receiptUrl=https://x.example/r', '--as', 'mira@example.com');
    expect(run.code).toBe(0);
    const id = run.stdout.trim();
    const svg = wb('show', id, '--map', '--format', 'svg');
    expect(svg.code).toBe(0);
    expect(XMLValidator.validate(svg.stdout)).toBe(true);
    expect(svg.stdout).toMatch(/<g class="node node-agent state-now" data-id="review_claim"/);
    const mermaid = wb('show', id, '--map').stdout;
    expect(mermaid.startsWith('flowchart LR\n')).toBe(true);
    // The run has only left Start: its first line is drawn bold.
    expect(mermaid).toContain('linkStyle 0 stroke:#0969da,stroke-width:3px');
    expect(wb('show', id, '--map', '--format', 'png').code).toBe(2);
  });
});
