/**
 * The twelve upstream fixtures (../shared/conformance/fixtures): the ten core
 * ones, and major-incident (parallel-1) and vendor-check (check-1, answered by
 * a command evaluator that passes what it is shown). Each is published
 * on a board with every role mapped to a group we declare, and each driven
 * through the service to every one of its outcomes: each finish outcome,
 * `rejected` where an approval has no on_reject, and `failed`. Alternative
 * routes, rework, escalation and wait_for timeouts are taken on the way.
 *
 * Skipped when ../shared is absent.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { roleNames } from '../../src/board/processes.js';
import type { Process } from '../../src/process/model.js';
import { drive, loadFixture, sampleFields, type Plan } from '../support/svc-drive.js';
import { agreement, DELIBERATELY_STRICTER } from '../support/result-agreement.js';
import { resultIssues } from '../support/result-schemas.js';
import { answers, CAST, cleanupHarnesses, conformanceIssues, HAS_FIXTURES, HAS_SCHEMAS, Harness, keepAnswers, UPSTREAM_FIXTURES, type Data } from '../support/svc-harness.js';

afterAll(cleanupHarnesses);
keepAnswers();

const PERSON = 'pat@example.com'; // every `person` input
const STARTER = 'ivy@example.com'; // starts every run (so `initiator` is a person)

interface Case {
  title: string;
  outcome: string;
  plan?: Plan;
  /** The step whose `failed` decision ends the run. */
  failedAt?: string;
  /** Steps that must be done at the end. */
  done?: string[];
  /** Steps that must never have been reached. */
  untouched?: string[];
  /** Steps whose history must hold this many earlier completions. */
  history?: Record<string, number>;
}

const CASES: Record<string, Case[]> = {
  'blog-publication': [
    { title: 'published', outcome: 'published', done: ['draft', 'editor_review', 'publication_time', 'publish', 'done'] },
    { title: 'published after the editor rejects once', outcome: 'published', plan: { decisions: { editor_review: ['rejected', 'approved'] } }, history: { draft: 1, editor_review: 1 } },
    { title: 'failed by the editor', outcome: 'failed', plan: { decisions: { editor_review: 'failed' } }, failedAt: 'editor_review', untouched: ['publication_time', 'publish'] },
    { title: 'failed by an operator after the agent escalates', outcome: 'failed', plan: { escalate: ['draft'], decisions: { draft: 'failed' } }, failedAt: 'draft' },
  ],
  'contract-review': [
    { title: 'signed', outcome: 'signed', done: ['prepare', 'legal_review', 'finance_review', 'sign', 'done'] },
    { title: 'signed after finance rejects once', outcome: 'signed', plan: { decisions: { finance_review: ['rejected', 'approved'] } }, history: { prepare: 1, legal_review: 1, finance_review: 1 } },
    { title: 'failed at signing', outcome: 'failed', plan: { decisions: { sign: 'failed' } }, failedAt: 'sign' },
  ],
  'customer-offboarding': [
    {
      title: 'offboarded, the balance already settled',
      outcome: 'offboarded',
      plan: { routes: { final_invoice: 'deletion_clearance' } },
      untouched: ['settlement_event', 'verify_settlement', 'finance_followup'],
      done: ['authorize', 'effective_time', 'cancel_services', 'final_invoice', 'deletion_clearance', 'delete_data', 'verify_deletion', 'done'],
    },
    {
      title: 'offboarded after the settlement event',
      outcome: 'offboarded',
      plan: { routes: { final_invoice: 'settlement_event', verify_settlement: 'deletion_clearance' } },
      done: ['settlement_event', 'verify_settlement'],
      untouched: ['finance_followup'],
    },
    {
      title: 'offboarded after the settlement wait times out into finance follow-up',
      outcome: 'offboarded',
      plan: { routes: { final_invoice: 'settlement_event' }, timeouts: ['settlement_event'] },
      done: ['settlement_event', 'finance_followup', 'deletion_clearance'],
      untouched: ['verify_settlement'],
    },
    {
      title: 'offboarded after the ledger check sends it to finance follow-up',
      outcome: 'offboarded',
      plan: { routes: { final_invoice: 'settlement_event', verify_settlement: 'finance_followup' } },
      done: ['verify_settlement', 'finance_followup'],
    },
    { title: 'rejected by the account owner', outcome: 'rejected', plan: { decisions: { authorize: 'rejected' } }, untouched: ['effective_time'] },
    { title: 'failed by an operator after the agent escalates', outcome: 'failed', plan: { escalate: ['cancel_services'], decisions: { cancel_services: 'failed' } }, failedAt: 'cancel_services' },
  ],
  'employee-onboarding': [
    { title: 'ready', outcome: 'ready', done: ['hr_setup', 'access_plan', 'it_setup', 'welcome', 'confirm_ready', 'done'] },
    {
      title: 'ready after the manager rejects once',
      outcome: 'ready',
      plan: { decisions: { confirm_ready: ['rejected', 'approved'] } },
      history: { access_plan: 1, it_setup: 1, welcome: 1, confirm_ready: 1 },
    },
    { title: 'failed by IT', outcome: 'failed', plan: { decisions: { it_setup: 'failed' } }, failedAt: 'it_setup', untouched: ['welcome', 'confirm_ready'] },
  ],
  'expense-reimbursement': [
    { title: 'reimbursed', outcome: 'reimbursed', done: ['receipts', 'check', 'manager_review', 'reimburse', 'done'] },
    {
      title: 'reimbursed after the manager rejects once',
      outcome: 'reimbursed',
      plan: { decisions: { manager_review: ['rejected', 'approved'] } },
      history: { receipts: 1, check: 1, manager_review: 1 },
    },
    { title: 'reimbursed after an escalation is returned to the agent', outcome: 'reimbursed', plan: { escalate: ['check'], decisions: { check: 'returned' } } },
    { title: 'failed by an operator after the agent escalates', outcome: 'failed', plan: { escalate: ['check'], decisions: { check: 'failed' } }, failedAt: 'check' },
  ],
  'incident-postmortem': [
    { title: 'closed', outcome: 'closed', done: ['draft', 'review', 'register_actions', 'track_closure', 'done'] },
    { title: 'closed after two rounds of rework', outcome: 'closed', plan: { decisions: { review: ['rejected', 'rejected', 'approved'] } }, history: { draft: 2, review: 2 } },
    { title: 'failed while tracking closure', outcome: 'failed', plan: { decisions: { track_closure: 'failed' } }, failedAt: 'track_closure' },
  ],
  'invoice-approval': [
    { title: 'approved by the manager', outcome: 'approved', plan: { routes: { validate: 'manager_review' } }, done: ['manager_review', 'record'], untouched: ['finance_review', 'cfo_review'] },
    { title: 'approved by the finance controller', outcome: 'approved', plan: { routes: { validate: 'finance_review' } }, done: ['finance_review'], untouched: ['manager_review', 'cfo_review'] },
    { title: 'approved by the CFO', outcome: 'approved', plan: { routes: { validate: 'cfo_review' } }, done: ['cfo_review'], untouched: ['manager_review', 'finance_review'] },
    { title: 'rejected by the manager', outcome: 'rejected', plan: { routes: { validate: 'manager_review' }, decisions: { manager_review: 'rejected' } }, untouched: ['record'] },
    { title: 'rejected by the finance controller', outcome: 'rejected', plan: { routes: { validate: 'finance_review' }, decisions: { finance_review: 'rejected' } } },
    { title: 'rejected by the CFO', outcome: 'rejected', plan: { routes: { validate: 'cfo_review' }, decisions: { cfo_review: 'rejected' } } },
    { title: 'failed by an operator after the agent escalates', outcome: 'failed', plan: { escalate: ['validate'], decisions: { validate: 'failed' } }, failedAt: 'validate' },
  ],
  'major-incident-response': [
    { title: 'stabilized', outcome: 'stabilized', done: ['activate', 'operations', 'security', 'communications', 'close_review', 'done'] },
    { title: 'rejected by the commander', outcome: 'rejected', plan: { decisions: { close_review: 'rejected' } } },
    { title: 'failed by security', outcome: 'failed', plan: { decisions: { security: 'failed' } }, failedAt: 'security', untouched: ['communications', 'close_review'] },
  ],
  'major-incident': [
    { title: 'stabilized', outcome: 'stabilized', done: ['activate', 'respond', 'operations', 'security', 'communications', 'close_review', 'done'] },
    {
      title: 'stabilized after the commander reopens every branch',
      outcome: 'stabilized',
      plan: { decisions: { close_review: ['rejected', 'approved'] } },
      history: { operations: 1, security: 1, communications: 1, close_review: 1 },
    },
    { title: 'failed by operations', outcome: 'failed', plan: { decisions: { operations: 'failed' } }, failedAt: 'operations', untouched: ['close_review'] },
  ],
  'vendor-check': [
    { title: 'onboarded after a passing check', outcome: 'onboarded', done: ['check_vendor', 'approve', 'done'], untouched: ['decline'] },
    { title: 'declined', outcome: 'declined', plan: { routes: { check_vendor: 'decline' } }, untouched: ['approve', 'done'] },
    { title: 'onboarded after finance rejects once', outcome: 'onboarded', plan: { decisions: { approve: ['rejected', 'approved'] } }, history: { check_vendor: 1, approve: 1 } },
    { title: 'failed by finance', outcome: 'failed', plan: { decisions: { approve: 'failed' } }, failedAt: 'approve' },
    { title: 'failed by an operator after the agent escalates', outcome: 'failed', plan: { escalate: ['check_vendor'], decisions: { check_vendor: 'failed' } }, failedAt: 'check_vendor' },
  ],
  'supplier-rfp': [
    { title: 'selected', outcome: 'selected', done: ['collect_quotes', 'compare', 'select', 'record_selection', 'done'] },
    { title: 'selected after the manager rejects once', outcome: 'selected', plan: { decisions: { select: ['rejected', 'approved'] } }, history: { collect_quotes: 1, compare: 1, select: 1 } },
    { title: 'failed when a supplier declines', outcome: 'failed', plan: { decisions: { collect_quotes: 'failed' } }, failedAt: 'collect_quotes', untouched: ['compare'] },
  ],
  'support-escalation': [
    { title: 'resolved at tier 1', outcome: 'resolved', plan: { routes: { diagnose: 'confirm' } }, untouched: ['tier1_handoff', 'engineering'] },
    { title: 'resolved by engineering', outcome: 'resolved', plan: { routes: { diagnose: 'tier1_handoff' } }, done: ['tier1_handoff', 'engineering', 'confirm', 'close_ticket'] },
    {
      title: 'resolved after the customer says it is not fixed',
      outcome: 'resolved',
      plan: { routes: { diagnose: 'confirm' }, decisions: { confirm: ['rejected', 'approved'] } },
      done: ['tier1_handoff', 'engineering'],
      history: { confirm: 1 },
    },
    { title: 'failed by engineering', outcome: 'failed', plan: { routes: { diagnose: 'tier1_handoff' }, decisions: { engineering: 'failed' } }, failedAt: 'engineering' },
  ],
};

const CORE = Object.keys(CASES);
const AGREEABLE = fileURLToPath(new URL('../support/evaluators/agreeable.mjs', import.meta.url));

/** Every outcome a process can end with: its finish outcomes, `rejected` when an approval has no on_reject, and `failed`. */
function outcomesOf(p: Process): string[] {
  const out = new Set(p.steps.filter((s) => s.kind === 'finish').map((s) => s.value));
  if (p.steps.some((s) => s.kind === 'approve' && s.onReject === undefined)) out.add('rejected');
  out.add('failed');
  return [...out].sort();
}

describe.skipIf(!HAS_FIXTURES)('the upstream fixtures, driven to every outcome', () => {
  it('covers every outcome of every fixture', () => {
    for (const name of CORE) {
      const p = loadFixture(path.join(UPSTREAM_FIXTURES, name));
      expect(p.name).toBe(name);
      expect([...new Set(CASES[name]!.map((c) => c.outcome))].sort(), name).toEqual(outcomesOf(p));
    }
  });

  describe.each(CORE)('%s', (name) => {
    const folder = path.join(UPSTREAM_FIXTURES, name);
    let process: Process;
    let h: Harness;
    const groups: Record<string, string[]> = {};

    beforeAll(async () => {
      process = loadFixture(folder);
      const roles: Record<string, string> = {};
      for (const role of roleNames(process)) {
        roles[role] = `g-${role}`;
        groups[`g-${role}`] = [`${role}@example.com`];
      }
      h = await Harness.open({
        people: [PERSON, STARTER, CAST.operator],
        groups,
        evaluator: { command: globalThis.process.execPath, args: [AGREEABLE] },
        processes: [{ folder, roles }],
      });
      const published = await h.ok('list_processes', {}, STARTER);
      expect(published.items.map((i: { name: string }) => i.name)).toEqual([name]);
    });

    it.each(CASES[name]!)('$title → $outcome', async (c) => {
      const inputs = sampleFields(process.frontmatter.inputs as Record<string, never>, { person: PERSON, datetime: h.iso('1d') });
      const start = await h.start(name, inputs, STARTER);
      expect(start.run).toMatchObject({ process: name, version: 1, startedBy: STARTER });
      const { view, log } = await drive(h, start.run.id, process, c.plan ?? {}, { groups, person: PERSON });
      const why = `${name} / ${c.title}: ${log.join(' | ')}`;

      expect(view.run.state, why).toBe('ended');
      expect(view.run.outcome, why).toBe(c.outcome);
      expect(view.workItems, why).toEqual([]);
      // Nothing is left open: every unfinished step was cancelled when the run ended.
      for (const s of view.steps as Data[]) expect(['ready', 'claimed', 'waiting'], `${why}: ${s.id}`).not.toContain(s.state);
      const finishes = process.steps.filter((s) => s.kind === 'finish');
      if (finishes.some((f) => f.value === c.outcome)) {
        expect(view.run.ended, why).toEqual({ by: 'server', at: expect.any(String), note: null });
        const reached = (view.steps as Data[]).filter((s) => s.kind === 'finish' && s.state === 'done');
        expect(
          reached.map((s) => s.id),
          why,
        ).toEqual(finishes.filter((f) => f.value === c.outcome).map((f) => f.id));
      } else {
        expect(view.run.ended, why).toMatchObject({ by: expect.any(String), at: expect.any(String), note: expect.any(String) });
        expect(
          (view.steps as Data[]).filter((s) => s.kind === 'finish' && s.state !== null),
          why,
        ).toEqual([]);
      }
      if (c.outcome === 'rejected') {
        const rejecting = Object.entries(view.data.steps as Record<string, Data>).filter(([, d]) => d.decision === 'rejected');
        expect(rejecting, why).toHaveLength(1);
        expect(view.run.ended.note, why).toBe(rejecting[0]![1].note);
        expect(view.run.ended.by, why).toBe(rejecting[0]![1].by);
      }
      if (c.failedAt) {
        expect((view.steps as Data[]).find((s) => s.id === c.failedAt)?.state, why).toBe('failed');
        expect(view.data.steps[c.failedAt], why).toMatchObject({ decision: 'failed', note: view.run.ended.note, by: view.run.ended.by });
        expect(
          (view.steps as Data[]).filter((s) => s.state === 'failed'),
          why,
        ).toHaveLength(1);
      }
      for (const id of c.done ?? []) expect((view.steps as Data[]).find((s) => s.id === id)?.state, `${why}: ${id}`).toBe('done');
      for (const id of c.untouched ?? []) {
        expect((view.steps as Data[]).find((s) => s.id === id)?.state, `${why}: ${id}`).toBeNull();
        expect(view.data.steps[id], `${why}: ${id}`).toBeUndefined();
      }
      for (const [id, n] of Object.entries(c.history ?? {})) expect(view.data.steps[id]?.history, `${why}: ${id}`).toHaveLength(n);
    });
  });
});

describe.skipIf(!HAS_FIXTURES || !HAS_SCHEMAS)('our result schemas judge as the upstream ones on every answer above', () => {
  it('accept every real answer upstream accepts, and refuse every broken one upstream refuses', () => {
    const a = agreement(
      answers,
      (t, r) => conformanceIssues(t, r).length === 0,
      (t, r) => resultIssues(t, r).length === 0,
    );
    console.log(`result agreement: ${a.answers} answers of ${new Set(answers.map((x) => x.tool)).size} tools, ${a.broken} broken ones judged by both schemas; ours stricter at ${a.stricter.length}`);
    expect(a.answers).toBeGreaterThan(500);
    expect(a.refused).toEqual([]);
    expect(a.looser).toEqual([]);
    expect(a.stricter.map((v) => `${v.tool} ${v.at}`).filter((x) => !DELIBERATELY_STRICTER.includes(x))).toEqual([]);
  });
});
