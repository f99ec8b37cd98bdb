// The reviewer's submission every bench sends for the example's expense-approval: within policy, one link, on to the approval.
export const REVIEWED = { output: { withinPolicy: true, notes: 'ok' }, evidence: [{ kind: 'link', ref: 'https://example.com/r' }], summary: 'Checked.', next: 'approve', reason: 'in policy' };
