/**
 * Audit lines in words and commit messages, without git: the pure functions
 * behind `workboard log`, `audit-text` (the textconv) and `serve --git-commit`.
 * Lines are sealed as the board seals them; the words are written out here.
 */
import { describe, expect, it } from 'vitest';
import { sealEvent, type AuditDraft, type AuditEvent, type ChainHead } from '../../src/board/audit.js';
import { fileText, type Words } from '../../src/git/audit-words.js';
import { commitMessage } from '../../src/git/commit-message.js';

const A = 'r-01jd0000000000000000000001';
const B = 'r-01jd0000000000000000000002';
const C = 'r-01jd0000000000000000000003';

type Draft = Omit<AuditDraft, 'input'> & { changes?: Record<string, unknown> };

/** A chain of these drafts, sealed one after another a second apart, each with a signature field as a signed line has. */
function chain(drafts: Draft[]): AuditEvent[] {
  let head: ChainHead | null = null;
  return drafts.map(({ changes, ...rest }, i) => {
    const ev = sealEvent({ ...rest, input: { fromRev: i, toRev: i + 1, ...(changes ? { changes } : {}) } }, head, `2026-12-01T21:34:4${i}.123Z`);
    head = ev;
    return { ...ev, signer: 'ab'.repeat(16), sig: 'c2lnbmF0dXJl' };
  });
}

const words: Words = {
  names: new Map([['mira@example.com', 'Mira Okafor']]),
  runs: new Map([
    [
      A,
      {
        process: 'expense-approval',
        version: 1,
        inputs: { amount: 184.5, claimant: 'mira@example.com', receiptUrl: `https://example.com/${'x'.repeat(60)}` },
        kinds: new Map([
          ['draft', 'agent'],
          ['approve', 'approve'],
        ] as const),
      },
    ],
    [B, { process: 'expense-approval', version: 1, inputs: { amount: 12 }, kinds: new Map() }],
    [C, { process: 'release-notes', version: 2, inputs: {}, kinds: new Map() }],
  ]),
};

const jsonl = (evs: object[]) => evs.map((e) => `${JSON.stringify(e)}\n`).join('');

describe('audit lines in words (log, audit-text)', () => {
  const lines = chain([
    { actor: 'mira@example.com', action: 'run.started', entity: `run:${A}`, changes: { process: 'expense-approval', version: 1, mode: 'live' } },
    { actor: 'server', action: 'step.ready', entity: `${A}/draft` },
    { actor: 'helper', action: 'step.claimed', entity: `${A}/draft`, changes: { expiresAt: '2026-12-01T21:44:41.000Z' } },
    { actor: 'helper', action: 'step.completed', entity: `${A}/draft`, changes: { next: 'approve', note: 'Ready\nfor review.\u001b[31m' } },
    { actor: 'server', action: 'work-item.opened', entity: `${A}/approve`, changes: { workItem: 'w-1' } },
    { actor: 'mira@example.com', action: 'step.rejected', entity: `${A}/approve`, changes: { note: 'Receipt missing.', to: 'draft' } },
    { actor: 'server', action: 'run.ended', entity: `run:${A}`, changes: { outcome: 'paid', note: null } },
  ]);

  it('says each line as one sentence, people by name, with no hash or signature', () => {
    expect(fileText(jsonl(lines), words)).toBe(
      [
        '#0 2026-12-01 21:34:40Z Mira Okafor started expense-approval v1',
        '#1 2026-12-01 21:34:41Z draft is ready',
        '#2 2026-12-01 21:34:42Z helper claimed draft (until 2026-12-01 21:44:41Z)',
        // Free text is kept to one line, and a control character never reaches the terminal.
        '#3 2026-12-01 21:34:43Z helper submitted draft → approve ("Ready for review. [31m")',
        '#4 2026-12-01 21:34:44Z approve waits for an approval',
        '#5 2026-12-01 21:34:45Z Mira Okafor rejected approve → back to draft ("Receipt missing.")',
        '#6 2026-12-01 21:34:46Z the run ended: paid',
        '',
      ].join('\n'),
    );
  });

  it('shows a line that is not JSON, or not an audit line, as it is, marked; a superseded branch under its heading', () => {
    const superseded = { fork: { seq: 4, hash: lines[4]!.hash }, kept: lines[6]!.hash, lines: [lines[5]], files: { 'RUN.md': '---\nrev: 3\n---\n' } };
    const text = `${jsonl([lines[0]!])}{"seq": 1, "torn\u001b[2J\n{"hello":"world"}\n${jsonl([superseded])}`;
    expect(fileText(text, words)).toBe(
      [
        '#0 2026-12-01 21:34:40Z Mira Okafor started expense-approval v1',
        '!! not valid JSON: {"seq": 1, "torn [2J',
        '!! not an audit line: {"hello":"world"}',
        "superseded on merge (1 transition after #4, made on another clone's side of the merge):",
        '  #5 2026-12-01 21:34:45Z Mira Okafor rejected approve → back to draft ("Receipt missing.")',
        '',
      ].join('\n'),
    );
  });

  it('names the process and steps by their titles when the pinned version is known, and keeps a long note whole', () => {
    const titled: Words = {
      ...words,
      runs: new Map([
        [
          A,
          {
            ...words.runs.get(A)!,
            titles: {
              process: 'Expense approval',
              steps: new Map([
                ['draft', 'Draft the claim'],
                ['approve', 'Approve the payout'],
              ]),
            },
          },
        ],
      ]),
    };
    const long = `Receipt missing. ${'The hotel bill covers two nights, the trip one. '.repeat(4)}Attach the right one.`;
    const titledLines = chain([
      { actor: 'mira@example.com', action: 'run.started', entity: `run:${A}`, changes: { process: 'expense-approval', version: 1, mode: 'live' } },
      { actor: 'helper', action: 'step.completed', entity: `${A}/draft`, changes: { next: 'approve' } },
      { actor: 'mira@example.com', action: 'step.completed', entity: `${A}/approve`, changes: { note: 'Fine.' } },
      { actor: 'mira@example.com', action: 'step.rejected', entity: `${A}/approve`, changes: { note: long, to: 'draft' } },
    ]);
    expect(fileText(jsonl(titledLines), titled)).toBe(
      [
        '#0 2026-12-01 21:34:40Z Mira Okafor started Expense approval v1',
        '#1 2026-12-01 21:34:41Z helper submitted “Draft the claim” → “Approve the payout”',
        '#2 2026-12-01 21:34:42Z Mira Okafor approved “Approve the payout” ("Fine.")',
        `#3 2026-12-01 21:34:43Z Mira Okafor rejected “Approve the payout” → back to “Draft the claim” ("${long.trim()}")`,
        '',
      ].join('\n'),
    );
  });

  it('says a line of an action it does not know by its name, even one named like a property of every object', () => {
    const odd = {
      seq: 0,
      ts: '2026-12-01T21:34:40Z',
      actor: 'bot\u001b[2J',
      action: 'constructor',
      entity: 'WORK.md',
      input: { fromRev: 0, toRev: 0, changes: { count: 2, sha256: 'ab'.repeat(32) } },
      prevHash: 'GENESIS',
      hash: 'cd'.repeat(32),
    };
    expect(fileText(jsonl([odd]), words)).toBe('#0 2026-12-01 21:34:40Z bot [2J constructor WORK.md (count 2)\n');
  });
});

describe('commit messages (serve --git-commit)', () => {
  it('sums up transitions in several runs of two processes and a board change, one line each, with a trailer per identity', () => {
    const evs = [
      ...chain([{ actor: 'server', action: 'step.ready', entity: `${A}/approve` }]),
      ...chain([{ actor: 'helper', action: 'step.claimed', entity: `${B}/draft`, changes: { expiresAt: '2026-12-01T21:44:40.000Z' } }]),
      ...chain([{ actor: 'mira@example.com', action: 'process.published', entity: 'release-notes@v2', changes: { version: 2, hash: 'ff'.repeat(32) } }]),
      ...chain([{ actor: 'jon@example.com', action: 'run.cancelled', entity: `run:${C}`, changes: { outcome: null, note: 'Duplicate.' } }]),
      ...chain([{ actor: 'user:ops', action: 'step.ready', entity: `${C}/write` }]),
    ];
    const { message, author } = commitMessage(evs, words, []);
    expect(author).toBeNull();
    expect(message).toBe(
      [
        '4 transitions in 3 runs of expense-approval and release-notes; 1 board change',
        '',
        `expense-approval ${A} (amount 184.5, claimant Mira Okafor):`,
        '- #0 2026-12-01 21:34:40Z approve is ready',
        '',
        `expense-approval ${B} (amount 12):`,
        '- #0 2026-12-01 21:34:40Z helper claimed draft (until 2026-12-01 21:44:40Z)',
        '',
        'the board:',
        '- #0 2026-12-01 21:34:40Z Mira Okafor published release-notes v2',
        '',
        `release-notes ${C}:`,
        '- #0 2026-12-01 21:34:40Z jon@example.com cancelled the run ("Duplicate.")',
        '- #0 2026-12-01 21:34:40Z write is ready',
        '',
        'Acted-by: agent helper',
        'Acted-by: Mira Okafor <mira@example.com>',
        'Acted-by: jon@example.com',
        'Acted-by: user:ops',
        '',
      ].join('\n'),
    );
  });

  it('makes the one person who acted the author, and names changed files when no transition was recorded', () => {
    const evs = chain([
      { actor: 'mira@example.com', action: 'step.completed', entity: `${A}/approve` },
      { actor: 'server', action: 'run.ended', entity: `run:${A}`, changes: { outcome: 'paid', note: null } },
    ]);
    const one = commitMessage(evs, words, []);
    expect(one.author).toBe('Mira Okafor <mira@example.com>');
    expect(one.message.split('\n')[0]).toBe(`Mira Okafor approved approve in expense-approval ${A} (amount 184.5, claimant Mira Okafor)`);
    expect(one.message).not.toContain('Acted-by');
    expect(commitMessage([], words, ['processes/a/PROCESS.md', 'processes/b/PROCESS.md', '.gitattributes', 'files/x']).message).toBe(
      'Board files changed: processes/a/PROCESS.md, processes/b/PROCESS.md, .gitattributes and 1 more\n',
    );
  });
});
