/** What a notification says on email and to a webhook, as pure functions of the notification (no SMTP, no HTTP). */
import { describe, expect, it } from 'vitest';
import { emailOf, webhookPayload } from '../../src/notify/message.js';
import type { Notification } from '../../src/notify/rules.js';

const note: Notification = {
  id: 'n-1',
  kind: 'work_item',
  at: '2026-12-02T05:00:00.000Z',
  mode: 'live',
  board: 'team',
  runId: 'r-1',
  runTitle: 'Expense approval · Jon Berg · 184.50 EUR',
  process: 'expense-approval',
  stepId: 'approve',
  stepTitle: 'Approve the payout',
  workItemId: 'w-1',
  due: '2026-12-04T05:00:00.000Z',
  recipients: ['mira@example.com', 'nameless@example.com'],
  subject: 'Expense approval · Jon Berg · 184.50 EUR: approve the payout',
  text: 'Receipt URL: https://files.example/r/1.pdf\nSee javascript:alert(1) & <b>this</b>\nWhat was found:\n⚠ Within policy: No',
  path: '/work/r-1/w-1',
};

describe('email', () => {
  it('links web addresses in the HTML, escapes the rest, keeps the text as written, and signs with the board title', () => {
    const m = emailOf(note, 'https://work.example.com', 'Team board');
    expect(m.subject).toBe('Expense approval · Jon Berg · 184.50 EUR: approve the payout');
    expect(m.html).toContain('<p>Receipt URL: <a href="https://files.example/r/1.pdf">https://files.example/r/1.pdf</a></p>');
    expect(m.html).toContain('<p>See javascript:alert(1) &amp; &lt;b&gt;this&lt;/b&gt;</p>');
    expect(m.html).toContain('<p>⚠ Within policy: No</p>');
    expect(m.html).toContain('<a href="https://work.example.com/work/r-1/w-1">');
    expect(m.text).toBe(`${note.text}\n\nOpen it: https://work.example.com/work/r-1/w-1\n\n— workboard (Team board)\n`);
    expect(m.html).toContain('<p style="color:#666">workboard (Team board)</p>');
    expect(`${m.text}${m.html}`).not.toContain('(team)');
  });
});

describe('the webhook payload', () => {
  it('is exactly these keys, people named where WORK.md names them', () => {
    const withState = { ...note, deliveries: { webhook: { attempts: 2, nextAt: '2026-12-02T06:00:00Z' } } } as Notification;
    expect(webhookPayload(withState, 'https://work.example.com', [{ email: 'mira@example.com', name: 'Mira Okafor' }])).toEqual({
      kind: 'work_item',
      id: 'n-1',
      at: '2026-12-02T05:00:00.000Z',
      board: 'team',
      run: { id: 'r-1', title: 'Expense approval · Jon Berg · 184.50 EUR', process: 'expense-approval' },
      step: { id: 'approve', title: 'Approve the payout' },
      workItem: 'w-1',
      due: '2026-12-04T05:00:00.000Z',
      recipients: [
        { email: 'mira@example.com', name: 'Mira Okafor' },
        { email: 'nameless@example.com', name: null },
      ],
      subject: 'Expense approval · Jon Berg · 184.50 EUR: approve the payout',
      text: 'Expense approval · Jon Berg · 184.50 EUR: approve the payout — https://work.example.com/work/r-1/w-1',
      details: note.text,
      link: 'https://work.example.com/work/r-1/w-1',
    });
  });

  it('a board notice names no run and no step', () => {
    const p = webhookPayload({ id: 'n-2', kind: 'internal_fault', at: note.at, mode: 'live', board: 'team', recipients: [], subject: 's', text: 't', path: '/operators' }, 'https://w.example', []);
    expect(p).toMatchObject({ run: null, step: null, workItem: null, due: null, link: 'https://w.example/operators' });
  });
});
