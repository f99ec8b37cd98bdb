/**
 * `workboard publish` and `workboard audit verify` on one board, in order:
 * refusals first (nothing is published), then a hand edit of WORK.md that the
 * next transaction adopts, then v1, an identical republish, v2.
 */
import { createHash } from 'node:crypto';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadProcess } from '../../src/process/load.js';
import { parseMarkdown } from '../../src/core/markdown.js';
import { FULL_OFFER } from '../../src/protocol/offer.js';
import { ensureBuilt, workboard, type CliResult } from '../support/cli-run.js';
import { cleanupTmp, snapshotDir, tmpDir } from '../support/tmp-board.js';

const PROCESS = `---
name: expense-check
description: Check an expense claim and approve it.
inputs:
  amountEur: number
steps:
  - id: review
    person: finance-approver
    approve: Approve the claim when the receipt matches the amount.
  - id: file_it
    person: records-keeper
    task: File the receipt in the archive and give its reference.
    output:
      archiveRef: string
  - id: paid
    finish: paid
---
# Expense check

Pays back what staff spent.
`;

const sha256 = (b: Buffer | string) => createHash('sha256').update(b).digest('hex');

let base: string;
let board: string;
let source: string; // processes to publish live outside the board, in a folder named after the process

const wb = (...args: string[]): Promise<CliResult> => workboard(args, { cwd: board, env: { WORKBOARD_AS: 'ann@example.com' } });
const ROLES = ['--role', 'finance-approver=finance', '--role', 'records-keeper=records'];

async function frontmatter(file: string): Promise<Record<string, unknown>> {
  const p = parseMarkdown(await fs.readFile(file, 'utf8'));
  if (!p.ok) throw new Error(JSON.stringify(p.issues));
  return p.value.data as Record<string, unknown>;
}

async function auditLines(): Promise<Record<string, unknown>[]> {
  const text = await fs.readFile(path.join(board, 'audit', 'board.jsonl'), 'utf8');
  return text
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

beforeAll(async () => {
  await ensureBuilt();
  base = await tmpDir();
  board = path.join(base, 'board');
  source = path.join(base, 'src', 'expense-check');
  await fs.mkdir(source, { recursive: true });
  await fs.writeFile(path.join(source, 'PROCESS.md'), PROCESS);
  const r = await workboard(['init', board, '--name', 'acme'], { cwd: base });
  expect(r.code, r.stderr).toBe(0);
}, 120_000);
afterAll(cleanupTmp);

describe('workboard publish (one board, in order)', () => {
  it('refuses a folder whose name differs from the process name (exit 1), publishing nothing', async () => {
    const wrong = path.join(base, 'src', 'expenses');
    await fs.mkdir(wrong, { recursive: true });
    await fs.writeFile(path.join(wrong, 'PROCESS.md'), PROCESS);
    const before = await snapshotDir(board);
    const r = await wb('publish', wrong, ...ROLES);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('expenses');
    expect(await snapshotDir(board)).toEqual(before);
  });

  it('refuses missing role mappings, listing every unmapped role (exit 1), publishing nothing', async () => {
    const before = await snapshotDir(board);
    const r = await wb('publish', source);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('finance-approver');
    expect(r.stderr).toContain('records-keeper');
    expect(await snapshotDir(board)).toEqual(before);
  });

  it('refuses a role mapped to a group WORK.md does not declare (exit 1)', async () => {
    const before = await snapshotDir(board);
    const r = await wb('publish', source, ...ROLES);
    expect(r.code).toBe(1);
    // Names the undeclared group itself ("finance"), not just the role ("finance-approver").
    expect(r.stderr).toMatch(/(^|[^\w-])finance([^\w-]|$)/m);
    expect(await snapshotDir(board)).toEqual(before);
  });

  it('publishes v1 with --role once WORK.md declares the groups (a hand edit, adopted by the publish)', async () => {
    const workFile = path.join(board, 'WORK.md');
    const edited = (await fs.readFile(workFile, 'utf8')).replace(/^groups: \{\}$/m, 'groups:\n  # added by hand\n  finance:\n    - ann@example.com\n  records:\n    - bob@example.com');
    expect(edited).toContain('# added by hand');
    await fs.writeFile(workFile, edited);

    const r = await wb('publish', source, ...ROLES);
    expect(r.code, r.stderr).toBe(0);

    // The hand edit was adopted: kept byte for byte except the rev line, and audited.
    expect(await fs.readFile(workFile, 'utf8')).toBe(edited.replace(/^rev: 1$/m, 'rev: 2'));
    const actions = (await auditLines()).map((e) => e.action);
    expect(actions).toEqual(['board.created', 'work.external-edit', 'process.published']);

    // v1 holds the published bytes exactly, and VERSION.md describes them.
    const v1 = path.join(board, 'processes', 'expense-check', 'v1');
    expect(await fs.readFile(path.join(v1, 'PROCESS.md'), 'utf8')).toBe(PROCESS);
    const meta = await frontmatter(path.join(v1, 'VERSION.md'));
    const loaded = loadProcess(PROCESS, FULL_OFFER);
    expect(loaded.ok).toBe(true);
    expect(meta).toMatchObject({
      process: 'expense-check',
      version: 1,
      hash: loaded.ok ? loaded.hash : '',
      publishedBy: 'ann@example.com',
      roles: { 'finance-approver': 'finance', 'records-keeper': 'records' },
    });

    const v = await wb('audit', 'verify');
    expect(v.code, v.stdout).toBe(0);
  });

  it('publishing identical content again creates no new version and writes nothing', async () => {
    const before = await snapshotDir(board);
    const r = await wb('--json', 'publish', source, ...ROLES);
    expect(r.code, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout) as { ok: boolean; data: { version: number; created: boolean } };
    expect(out.ok).toBe(true);
    expect(out.data).toMatchObject({ version: 1, created: false });
    expect(await snapshotDir(board)).toEqual(before);
  });

  it('a changed PROCESS.md creates v2, and v1 stays byte for byte', async () => {
    const v1 = path.join(board, 'processes', 'expense-check', 'v1');
    const v1Bytes = { process: await fs.readFile(path.join(v1, 'PROCESS.md')), version: await fs.readFile(path.join(v1, 'VERSION.md')) };
    const changed = PROCESS.replace('Check an expense claim and approve it.', 'Check an expense claim, then approve and file it.');
    await fs.writeFile(path.join(source, 'PROCESS.md'), changed);

    const r = await wb('publish', source, ...ROLES);
    expect(r.code, r.stderr).toBe(0);
    const v2 = path.join(board, 'processes', 'expense-check', 'v2');
    expect(await fs.readFile(path.join(v2, 'PROCESS.md'), 'utf8')).toBe(changed);
    expect(await frontmatter(path.join(v2, 'VERSION.md'))).toMatchObject({ process: 'expense-check', version: 2 });
    expect(sha256(await fs.readFile(path.join(v1, 'PROCESS.md')))).toBe(sha256(v1Bytes.process));
    expect(sha256(await fs.readFile(path.join(v1, 'VERSION.md')))).toBe(sha256(v1Bytes.version));

    const list = await wb('--json', 'processes');
    expect(list.code, list.stderr).toBe(0);
    const items = (JSON.parse(list.stdout) as { data: { items: { name: string; version: number }[] } }).data.items;
    expect(items).toEqual([expect.objectContaining({ name: 'expense-check', version: 2 })]);
  });
});

describe('workboard audit verify', () => {
  it('exits 0 on the clean board, and 1 once an audit line is tampered with', async () => {
    const clean = await wb('audit', 'verify');
    expect(clean.code, clean.stdout).toBe(0);

    const chain = path.join(board, 'audit', 'board.jsonl');
    const original = await fs.readFile(chain, 'utf8');
    const tampered = original.replace('"actor":"ann@example.com"', '"actor":"eve@example.com"');
    expect(tampered).not.toBe(original);
    await fs.writeFile(chain, tampered);
    try {
      const [human, json] = await Promise.all([wb('audit', 'verify'), wb('--json', 'audit', 'verify')]);
      expect(human.code).toBe(1);
      expect(human.stdout).toContain('audit/board.jsonl');
      expect(json.code).toBe(1);
      expect((JSON.parse(json.stdout) as { ok: boolean }).ok).toBe(false);
    } finally {
      await fs.writeFile(chain, original);
    }
    expect((await wb('audit', 'verify')).code).toBe(0);
  });
});
