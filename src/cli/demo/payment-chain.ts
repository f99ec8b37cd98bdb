/**
 * The demo's second chain (flow-1, docs/profile-flow-1.md): Jon starts a
 * supplier onboarding, whose first step starts a contract approval as a run
 * of its own (its child), and a supplier payment blocked by that contract
 * approval; Ana Ruiz (legal) approves the contract, and in that same write
 * the onboarding moves on to finance and the payment wakes and waits for
 * finance. Each call is the service's, as each person would make it from the
 * CLI or the web app.
 */
import { randomUUID } from 'node:crypto';
import type { Board } from '../../board/board.js';
import { BoardError } from '../../board/errors.js';
import type { Actor } from '../../engine/types.js';
import { resolveActor } from '../../service/identity.js';
import type { Service } from '../../service/service.js';

export const STARTER = 'jon@example.com';
export const LEGAL = 'ana@example.com';

export interface PaymentChain {
  /** The supplier onboarding: the parent run. */
  onboarding: string;
  /** The contract approval the onboarding started: its child. */
  contract: string;
  payment: string;
  /** Whether the onboarding moved on past its contract approval once legal approved it. */
  movedOn: boolean;
  /** Whether the payment was blocked before the approval and is not after it. */
  woke: boolean;
}

function actor(board: Board, email: string): Actor {
  const who = resolveActor(board.manifest, email);
  if (!who.ok) throw new BoardError('invalid', `the example board no longer declares ${email}: ${who.message}`);
  return who.actor;
}

const refused = (what: string, r: { ok: false; error: { message: string; issues?: string[] } }) =>
  new BoardError(
    'invalid',
    `the demo could not ${what}: ${r.error.message}`,
    (r.error.issues ?? []).map((m) => ({ path: '', message: m })),
  );

export async function paymentChain(board: Board, service: Service): Promise<PaymentChain> {
  const jon = actor(board, STARTER);
  const ana = actor(board, LEGAL);
  const onboarding = await service.call(
    'start_run',
    { process: 'supplier-onboarding', inputs: { supplier: 'Nordlicht Logistics', contractUrl: 'https://example.com/contracts/nordlicht-2027.pdf', value: 48000 }, requestId: randomUUID() },
    jon,
  );
  if (!onboarding.ok) throw refused('start the supplier onboarding', onboarding);
  const onboardingId = onboarding.data.run.id;
  const contractId = (await service.runLineage(onboardingId))?.children[0]?.id;
  if (contractId === undefined) throw new BoardError('invalid', 'the demo found no contract approval started by the supplier onboarding');
  const contract = await service.call('get_run', { runId: contractId }, ana);
  if (!contract.ok) throw refused('read the contract approval', contract);
  const payment = await service.call(
    'start_run',
    {
      process: 'supplier-payment',
      inputs: { supplier: 'Nordlicht Logistics', amount: 12000, invoiceUrl: 'https://example.com/invoices/nl-0042.pdf', urgency: 'high', after: [contractId] },
      requestId: randomUUID(),
    },
    jon,
  );
  if (!payment.ok) throw refused('start the supplier payment', payment);
  const paymentId = payment.data.run.id;
  const blocked = (await service.runFlow(paymentId))?.blocked === true;
  const item = contract.data.workItems[0];
  if (!item) throw new BoardError('invalid', 'the demo found no approval open on the contract');
  const decided = await service.call(
    'decide',
    { runId: contractId, workItemId: item.id, snapshot: item.snapshot, decision: 'approved', note: 'Standard terms; liability capped at the contract value.', requestId: randomUUID() },
    ana,
  );
  if (!decided.ok) throw refused('approve the contract', decided);
  const after = (await service.runFlow(paymentId))?.blocked === true;
  const parent = await service.call('get_run', { runId: onboardingId }, jon);
  const movedOn = parent.ok && parent.data.workItems.some((w) => w.stepId === 'register');
  return { onboarding: onboardingId, contract: contractId, payment: paymentId, movedOn, woke: blocked && !after };
}
