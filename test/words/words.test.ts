import { describe, expect, test } from 'vitest';
import {
  exactTime,
  fieldLabel,
  findings,
  formatValue,
  humanize,
  inList,
  inSentence,
  isLinkField,
  linkHref,
  personName,
  processTitle,
  relativeTime,
  runTitle,
  stepTitle,
  stepTitleOf,
} from '../../src/words/index.js';
import type { Fields, Step } from '../../src/process/model.js';

const people = [{ email: 'jon@example.com', name: 'Jon Berg' }, { email: 'mira@example.com', name: 'Mira Okafor', formerEmails: ['mira@old.example'] }, { email: 'nameless@example.com' }];
const ctx = { people, timeZone: 'Europe/Berlin' };

const step = (s: Partial<Step> & Pick<Step, 'id' | 'kind'>): Step => ({ value: '', next: null, ...s });

describe('humanize', () => {
  test.each([
    ['withinPolicy', 'Within policy'],
    ['plan_trip', 'Plan trip'],
    ['receiptUrl', 'Receipt URL'],
    ['cohortStart', 'Cohort start'],
    ['expense-approval', 'Expense approval'],
    ['QA lead', 'QA lead'],
    ['CFO', 'CFO'],
    ['ReleaseManager', 'Release manager'],
    ['runId', 'Run ID'],
    ['apiKey', 'API key'],
    ['receiptURLText', 'Receipt URL text'],
    ['finance-approver', 'Finance approver'],
  ])('%s reads "%s"', (key, words) => expect(humanize(key)).toBe(words));
});

describe('titles', () => {
  test('a process is named by its body heading, else its humanised name', () => {
    expect(processTitle({ name: 'expense-approval', body: '\nSome intro.\n\n# Expense *approval*\n\nText.' })).toBe('Expense approval');
    expect(processTitle({ name: 'expense-approval', body: '```\n# not a heading\n```\nNo heading here.' })).toBe('Expense approval');
    expect(processTitle({ name: 'laptop-refresh', body: '' })).toBe('Laptop refresh');
  });

  test("a step is named by its text's first sentence, cut at a word when long, else its humanised id", () => {
    expect(stepTitle(step({ id: 'approve', kind: 'approve', value: 'Approve the payout when the review found the claim within policy.' }))).toBe(
      'Approve the payout when the review found the claim within policy',
    );
    expect(stepTitle(step({ id: 'review_claim', kind: 'agent', value: 'Read the receipt and compare the claim with the travel policy.\nRecord whether it is within policy and why.' }))).toBe(
      'Read the receipt and compare the claim with the travel policy',
    );
    expect(stepTitle(step({ id: 't', kind: 'task', value: 'Check the **draft** in [the doc](https://x.example/d). Then send it.' }))).toBe('Check the draft in the doc');
    const long = stepTitle(step({ id: 'x', kind: 'task', value: 'Collect every receipt from the trip including hotels taxis trains meals and conference fees then upload them' }));
    expect(long).toBe('Collect every receipt from the trip including hotels taxis trains…');
    expect(stepTitle(step({ id: 'cool_off', kind: 'wait', value: '2d' }))).toBe('Cool off');
    expect(stepTitle(step({ id: 'paid', kind: 'finish', value: 'paid' }))).toBe('Paid');
  });

  test('a step by id: its title where the process declares it, else the id humanised', () => {
    const process = { steps: [step({ id: 'approve', kind: 'approve', value: 'Approve the payout.' })] };
    expect(stepTitleOf(process, 'approve')).toBe('Approve the payout');
    expect(stepTitleOf(process, 'ask_claimant')).toBe('Ask claimant');
    expect(stepTitleOf(null, 'plan_trip')).toBe('Plan trip');
  });

  test("a field is labelled by its description's first sentence, else its humanised key", () => {
    expect(fieldLabel('amount', { description: 'Amount claimed in EUR' })).toBe('Amount claimed in EUR');
    expect(fieldLabel('notes', { description: 'what the reviewer found. Keep it short.' })).toBe('What the reviewer found');
    expect(fieldLabel('withinPolicy', {})).toBe('Within policy');
    expect(fieldLabel('receiptUrl')).toBe('Receipt URL');
  });
});

describe('formatValue', () => {
  const amount = { type: 'number' as const, optional: false, description: 'Amount claimed in EUR' };
  test('an amount in a currency gets two decimals and grouped thousands', () => {
    expect(formatValue(amount, 184.5, ctx)).toEqual({ text: '184.50 EUR' });
    expect(formatValue(amount, 1240, ctx)).toEqual({ text: '1,240.00 EUR' });
  });
  test('other numbers keep their unit, or none', () => {
    expect(formatValue({ type: 'number', optional: false, description: 'Trip length in days' }, 3, ctx)).toEqual({ text: '3 days' });
    expect(formatValue({ type: 'number', optional: false, description: 'Discount in %' }, 12.5, ctx)).toEqual({ text: '12.5%' });
    expect(formatValue({ type: 'number', optional: false, description: 'Nights spent in Berlin' }, 2, ctx)).toEqual({ text: '2' });
    expect(formatValue(undefined, 12000, ctx)).toEqual({ text: '12,000' });
  });
  test('booleans are Yes and No, and a No (or the text "no") warns', () => {
    expect(formatValue({ type: 'boolean', optional: false }, true, ctx)).toEqual({ text: 'Yes' });
    expect(formatValue({ type: 'boolean', optional: false }, false, ctx)).toEqual({ text: 'No', warning: true });
    expect(formatValue({ type: 'string', optional: false, oneOf: ['yes', 'no'] }, 'no', ctx)).toEqual({ text: 'No', warning: true });
  });
  test('people by their declared names, before or after a rename; an unknown one by email', () => {
    expect(formatValue({ type: 'person', optional: false }, 'JON@example.com', ctx)).toEqual({ text: 'Jon Berg' });
    expect(formatValue({ type: 'person', optional: false }, 'mira@old.example', ctx)).toEqual({ text: 'Mira Okafor' });
    expect(formatValue({ type: 'person', optional: false }, 'who@example.com', ctx)).toEqual({ text: 'who@example.com', href: 'mailto:who@example.com' });
  });
  test('dates and times in words, in the given zone', () => {
    expect(formatValue({ type: 'date', optional: false }, '2027-01-10', ctx)).toEqual({ text: 'Sun 10 Jan 2027' });
    expect(formatValue({ type: 'datetime', optional: false }, '2026-12-03T18:54:55Z', ctx)).toEqual({ text: 'Thu 3 Dec 2026, 19:54 CET' });
  });
  test('web addresses are links; other schemes are text', () => {
    expect(formatValue({ type: 'string', optional: false }, 'https://files.example/r/1.pdf', ctx)).toEqual({ text: 'https://files.example/r/1.pdf', href: 'https://files.example/r/1.pdf' });
    expect(formatValue({ type: 'string', optional: false }, 'javascript:alert(1)', ctx)).toEqual({ text: 'javascript:alert(1)' });
  });
  test('lists are joined, objects labelled, choices in words', () => {
    expect(formatValue({ type: 'list', optional: false, items: { type: 'person', optional: false } }, ['jon@example.com', 'mira@example.com'], ctx)).toEqual({ text: 'Jon Berg, Mira Okafor' });
    expect(formatValue({ type: 'object', optional: false }, { seatCount: 2, aisle: false }, ctx)).toEqual({ text: 'Seat count: 2; Aisle: No', warning: true });
    expect(formatValue({ type: 'string', optional: false, oneOf: ['needs_review', 'ok'] }, 'needs_review', ctx)).toEqual({ text: 'Needs review' });
    expect(formatValue(undefined, null, ctx)).toEqual({ text: '—' });
  });
});

describe('people, links and sentences', () => {
  test('personName', () => {
    expect(personName(people, 'Jon@Example.com')).toBe('Jon Berg');
    expect(personName(people, 'nameless@example.com')).toBe('nameless@example.com');
    expect(personName([], 'a@b.example')).toBe('a@b.example');
  });
  test('linkHref keeps http(s) and mailto only', () => {
    expect(linkHref('https://example.com/a b')).toBe('https://example.com/a%20b');
    expect(linkHref('mailto:jon@example.com')).toBe('mailto:jon@example.com');
    expect(linkHref(' JaVa\tScript:alert(1)')).toBeNull();
    expect(linkHref('/relative')).toBeNull();
  });
  test('a clause inside a sentence starts in lower case unless an acronym or a name opens it', () => {
    expect(inSentence('The claim is within policy.')).toBe('the claim is within policy');
    expect(inSentence('QA signed off')).toBe('QA signed off');
    expect(inSentence('Jon Berg asked for the hotel bill', ['Jon Berg'])).toBe('Jon Berg asked for the hotel bill');
    expect(inSentence('I need the hotel bill')).toBe('I need the hotel bill');
  });
  test('a text field for a web address is told by its key or its description', () => {
    expect(isLinkField('receiptUrl')).toBe(true);
    expect(isLinkField('homepage_link')).toBe(true);
    expect(isLinkField('evidence', 'Link to the receipt')).toBe(true);
    expect(isLinkField('source', 'The URL it was read at')).toBe(true);
    expect(isLinkField('notes', 'What the reviewer found')).toBe(false);
    expect(isLinkField('curly')).toBe(false);
  });
  test('a list reads as a person says it', () => {
    expect(inList([])).toBe('');
    expect(inList(['Ana'])).toBe('Ana');
    expect(inList(['Ana', 'Ben'])).toBe('Ana and Ben');
    expect(inList(['Ana', 'Ben', 'Cy'])).toBe('Ana, Ben and Cy');
  });
});

describe('times', () => {
  const now = new Date('2026-12-02T18:00:00Z');
  test.each([
    ['2026-12-04T18:54:55Z', 'in 2 days'],
    ['2026-12-02T15:00:00Z', '3 hours ago'],
    ['2026-12-02T18:05:00Z', 'in 5 minutes'],
    ['2026-12-02T17:59:30Z', 'just now'],
    ['2026-12-02T18:00:20Z', 'in under a minute'],
    ['2026-11-11T18:00:00Z', '3 weeks ago'],
  ])('%s is "%s"', (iso, words) => expect(relativeTime(iso, now)).toBe(words));
  test('exact times in the zone, with its short name', () => {
    expect(exactTime('2026-12-03T18:54:55Z', 'Europe/Berlin')).toBe('Thu 3 Dec 2026, 19:54 CET');
    expect(exactTime('2026-07-03T18:54:55Z', 'Europe/Berlin')).toBe('Fri 3 Jul 2026, 20:54 CEST');
    expect(exactTime('2026-12-03T18:54:55Z', 'America/New_York')).toBe('Thu 3 Dec 2026, 13:54 EST');
    expect(exactTime('2026-12-03T18:54:55Z', 'UTC')).toBe('Thu 3 Dec 2026, 18:54 UTC');
  });
});

const inputs: Fields = {
  receiptUrl: { type: 'string', optional: false },
  amount: { type: 'number', optional: false, description: 'Amount claimed in EUR' },
  claimant: { type: 'person', optional: false },
  purpose: { type: 'string', optional: true },
};
const expense = {
  name: 'expense-approval',
  body: '# Expense approval\n\nStart a run…',
  inputs,
  steps: [
    step({
      id: 'review_claim',
      kind: 'agent',
      value: 'Read the receipt and compare the claim with the travel policy.',
      output: { notes: { type: 'string', optional: false }, withinPolicy: { type: 'boolean', optional: false }, receipt: { type: 'string', optional: false } },
    }),
    step({
      id: 'classify',
      kind: 'agent',
      value: 'Classify the claim.',
      output: { category: { type: 'string', optional: false, oneOf: ['travel', 'meals'] }, report: { type: 'string', optional: false } },
    }),
    step({ id: 'approve', kind: 'approve', value: 'Approve the payout.' }),
  ],
};

describe('runs', () => {
  test('a run is named by its process, then people, amounts and short text; never a URL', () => {
    expect(runTitle(expense, { receiptUrl: 'https://files.example/r.pdf', amount: 184.5, claimant: 'jon@example.com' }, people)).toBe('Expense approval · Jon Berg · 184.50 EUR');
    expect(runTitle(expense, { purpose: 'Berlin offsite', amount: 1240, claimant: 'jon@example.com', receiptUrl: 'https://x.example' }, people)).toBe(
      'Expense approval · Jon Berg · 1,240.00 EUR · Berlin offsite',
    );
    expect(runTitle(expense, { purpose: 'x'.repeat(200) }, people)).toBe('Expense approval');
  });

  test.each([
    ['javascript:alert(1)'],
    ['JavaScript:alert(1)'],
    [' java\tscript:alert(1)'],
    ['data:text/html,<script>alert(1)</script>'],
    ['mailto:jon@example.com'],
    ['vbscript:msgbox(1)'],
    ['Re: offsite'],
    ['ftp://files.example/r.pdf'],
    ['https://files.example/r.pdf'],
    ['two\nlines'],
    ['Berlin \u202Eoffsite'],
    ['a purpose far longer than any name should carry'],
  ])('a run name never carries %j, in a text or a person field', (bad) => {
    expect(runTitle(expense, { purpose: bad }, people)).toBe('Expense approval');
    expect(runTitle(expense, { claimant: bad, amount: 12 }, people)).toBe('Expense approval · 12.00 EUR');
  });

  test('a run name holds people, numbers with units, dates and short plain text', () => {
    expect(runTitle(expense, { purpose: '2026-12-03', claimant: 'nameless@example.com', amount: 9 }, people)).toBe('Expense approval · nameless@example.com · 9.00 EUR · Thu 3 Dec 2026');
    expect(runTitle(expense, { purpose: 'Berlin offsite (Q4), 10:30' }, people)).toBe('Expense approval · Berlin offsite (Q4), 10:30');
  });

  test('findings: booleans and choices first, warnings marked, links kept, long text left out, steps not done skipped', () => {
    const run = {
      data: {
        steps: {
          review_claim: { output: { notes: 'Hotel is over the nightly cap.', withinPolicy: false, receipt: 'https://files.example/r.pdf' }, history: [] },
          classify: { output: { category: 'travel', report: 'long '.repeat(40) }, history: [] },
        },
      },
    };
    expect(findings(expense, run, ctx)).toEqual([
      { step: 'Read the receipt and compare the claim with the travel policy', stepId: 'review_claim', label: 'Within policy', text: 'No', warning: true },
      { step: 'Classify the claim', stepId: 'classify', label: 'Category', text: 'Travel', warning: false },
      { step: 'Read the receipt and compare the claim with the travel policy', stepId: 'review_claim', label: 'Notes', text: 'Hotel is over the nightly cap.', warning: false },
      {
        step: 'Read the receipt and compare the claim with the travel policy',
        stepId: 'review_claim',
        label: 'Receipt',
        text: 'https://files.example/r.pdf',
        href: 'https://files.example/r.pdf',
        warning: false,
      },
    ]);
    expect(findings(expense, { data: { steps: {} } })).toEqual([]);
  });

  test("findings: a subprocess step's child is not named by its id, its outcome and data are", () => {
    const onboarding = { steps: [step({ id: 'approve_contract', kind: 'subprocess', value: 'contract-approval' }), step({ id: 'register', kind: 'task' })] };
    const run = { data: { steps: { approve_contract: { output: { run: 'r-01m93zdhdr5re3b7wreqvtsk69', outcome: 'approved', reference: 'C-12' }, history: [] } } } };
    expect(findings(onboarding, run, ctx).map((f) => `${f.label}: ${f.text}`)).toEqual(['Outcome: approved', 'Reference: C-12']);
  });

  test('findings: a label two steps share names its step on each; long text comes in only when asked, on one line and cut at a word', () => {
    const twice = {
      ...expense,
      steps: [
        expense.steps[0]!,
        step({
          id: 'review_again',
          kind: 'agent',
          value: "Review the claim once more with the claimant's answer.",
          output: { withinPolicy: { type: 'boolean', optional: false }, notes: { type: 'string', optional: false } },
        }),
      ],
    };
    const notes = `The hotel bill now shows one night.\n${'It matches the boarding passes. '.repeat(12)}`;
    const run = {
      data: {
        steps: {
          review_claim: { output: { notes: 'Hotel is over the nightly cap.', withinPolicy: false, receipt: 'x' }, history: [] },
          review_again: { output: { withinPolicy: true, notes }, history: [] },
        },
      },
    };
    const first = 'Read the receipt and compare the claim with the travel policy';
    const again = "Review the claim once more with the claimant's answer";
    expect(findings(twice, run, ctx).map((f) => [f.label, f.text])).toEqual([
      [`Within policy (${first})`, 'No'],
      [`Within policy (${again})`, 'Yes'],
      // The second notes are long, so left out: the first are the only notes shown, and need no step named.
      ['Notes', 'Hotel is over the nightly cap.'],
      ['Receipt', 'x'],
    ]);
    const withText = findings(twice, run, ctx, { longText: 120 });
    const long = withText.find((f) => f.label === `Notes (${again})`)!;
    expect(long.text.startsWith('The hotel bill now shows one night. It matches the boarding passes.')).toBe(true);
    expect(long.text.endsWith('…')).toBe(true);
    expect(long.text.length).toBeLessThanOrEqual(120);
    expect(long.text).not.toContain('\n');
    expect(withText.indexOf(long)).toBe(withText.length - 1);
    expect(withText.some((f) => f.label === `Notes (${first})`)).toBe(true);
  });
});

describe('cutAtWord', () => {
  test('a word ending at the cut stays whole; a word across it goes', async () => {
    const { cutAtWord } = await import('../../src/words/index.js');
    expect(cutAtWord('Approve the payout when the check found the claim within policy', 50)).toBe('Approve the payout when the check found the claim…');
    expect(cutAtWord('Approve the payout when the check found the claims within policy', 50)).toBe('Approve the payout when the check found the…');
    expect(cutAtWord('Short enough', 50)).toBe('Short enough');
  });
});
