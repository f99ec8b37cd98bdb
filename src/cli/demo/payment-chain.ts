/**
 * The demo's second chain (flow-1, docs/profile-flow-1.md): Jon starts a
 * contract approval and a supplier payment blocked by it; Ana Ruiz (legal)
 * approves the contract, and the payment wakes in that same write and waits
 * for finance. Each call is the service's, as each person would make it from
 * the CLI or the web app.
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
  contract: string;
  payment: string;
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
  const contract = await service.call(
    'start_run',
    { process: 'contract-approval', inputs: { supplier: 'Nordlicht Logistics', contractUrl: 'https://example.com/contracts/nordlicht-2027.pdf', value: 48000 }, requestId: randomUUID() },
    jon,
  );
  if (!contract.ok) throw refused('start the contract approval', contract);
  const contractId = contract.data.run.id;
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
  return { contract: contractId, payment: paymentId, woke: blocked && !after };
}
