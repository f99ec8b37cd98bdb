/**
 * Drive a run to its end through the service, the way agents, people and
 * operators would: claim and submit ready agent steps, decide open work
 * items, send the events waits are waiting for, and move the clock when only
 * timers are left. What to choose at each route, decision, escalation and
 * wait is the test's plan; everything else is filled in from what the tools
 * return (claim.step, workItem.output/evidence/next).
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { expect } from 'vitest';
import { loadProcess } from '../../src/process/load.js';
import type { Process } from '../../src/process/model.js';
import { FULL_OFFER } from '../../src/protocol/offer.js';
import { CAST, type Data, type Harness } from './svc-harness.js';

export type DecisionKind = 'completed' | 'approved' | 'rejected' | 'failed' | 'returned';

export interface Plan {
  /** The route to choose at a step with a list `next`; a list gives one choice per visit. */
  routes?: Record<string, string | string[]>;
  /** The decision on a step's work item; a list gives one per visit. Default: completed on a task or escalation, approved on an approval. */
  decisions?: Record<string, DecisionKind | DecisionKind[]>;
  /** Agent steps the agent escalates on its first visit. */
  escalate?: string[];
  /** wait_for steps whose event never comes: the clock runs past their timeout instead. */
  timeouts?: string[];
}

export interface Trace {
  view: Data;
  /** Every write made, in order: `tool step [decision|route]`. */
  log: string[];
}

export function loadFixture(folder: string): Process {
  const r = loadProcess(readFileSync(path.join(folder, 'PROCESS.md'), 'utf8'), FULL_OFFER);
  if (!r.ok) throw new Error(`${folder}: ${JSON.stringify(r.issues)}`);
  return r.process;
}

type FieldDecl = string | { type: string; one_of?: unknown[]; items?: FieldDecl; optional?: boolean };

/** A value of a declared field: the first `one_of` value, else a plain value of the type. */
export function sample(decl: FieldDecl, opts: { person: string; datetime: string }): unknown {
  const f = typeof decl === 'string' ? { type: decl } : decl;
  if (f.one_of && f.one_of.length > 0) return f.one_of[0];
  switch (f.type) {
    case 'string':
      return 'As described in the instructions.';
    case 'number':
      return 1250.75;
    case 'boolean':
      return true;
    case 'date':
      return '2026-10-20';
    case 'datetime':
      return opts.datetime;
    case 'list':
      return f.items ? [sample(f.items, opts), sample(f.items, opts)] : [];
    case 'object':
      return { note: 'an object' };
    case 'person':
      return opts.person;
    default:
      throw new Error(`unknown type ${f.type}`);
  }
}

export function sampleFields(fields: Record<string, FieldDecl> | null, opts: { person: string; datetime: string }): Record<string, unknown> {
  return Object.fromEntries(Object.entries(fields ?? {}).map(([k, v]) => [k, sample(v, opts)]));
}

function pick<T>(choice: T | T[] | undefined, visit: number): T | undefined {
  if (choice === undefined) return undefined;
  if (!Array.isArray(choice)) return choice;
  return choice[Math.min(visit, choice.length - 1)];
}

export async function drive(h: Harness, runId: string, process: Process, plan: Plan, cast: { groups: Record<string, string[]>; person: string }): Promise<Trace> {
  const log: string[] = [];
  const visits = new Map<string, number>();
  const visit = (step: string) => {
    const n = visits.get(step) ?? 0;
    visits.set(step, n + 1);
    return n;
  };
  const escalated = new Set<string>();
  const defs = new Map(process.steps.map((s) => [s.id, s]));
  const opts = () => ({ person: cast.person, datetime: h.iso('1d') });

  const evidence = async (kinds: string[] | null, stepId: string, who: string) => {
    const out: { kind: string; ref: string }[] = [];
    for (const kind of kinds ?? []) {
      if (kind === 'file') out.push({ kind: 'file', ref: (await h.upload(`${stepId} evidence ${log.length}`, who)).id });
      else out.push({ kind: 'link', ref: `https://evidence.example.com/${stepId}/${log.length}` });
    }
    return out;
  };

  for (let guard = 0; guard < 200; guard++) {
    const view = await h.view(runId, CAST.operator);
    expect(view.run.id).toBe(runId);
    if (view.run.state === 'ended' || view.run.state === 'cancelled') return { view, log };

    // 1. Ready agent steps: claim, then escalate or submit.
    const ready = (view.steps as Data[]).find((s) => s.kind === 'agent' && s.state === 'ready');
    if (ready) {
      const c = await h.claim(runId, ready.id, CAST.agent);
      expect(c.step.id).toBe(ready.id);
      if (plan.escalate?.includes(ready.id) && !escalated.has(ready.id)) {
        escalated.add(ready.id);
        const e = await h.ok('escalate', { token: c.token, note: `Cannot finish ${ready.id}.` }, CAST.agent);
        expect(e.workItems.some((w: Data) => w.stepId === ready.id && w.escalation !== null)).toBe(true);
        log.push(`escalate ${ready.id}`);
        continue;
      }
      const n = visit(ready.id);
      const route = c.step.next ? (pick(plan.routes?.[ready.id], n) ?? c.step.next[0].to) : undefined;
      const s = await h.ok(
        'submit',
        {
          token: c.token,
          output: sampleFields(c.step.output, opts()),
          evidence: await evidence(c.step.evidence, ready.id, CAST.agent),
          summary: `Did ${ready.id} as instructed.`,
          ...(route ? { next: route, reason: `Chose ${route} per the instructions.` } : {}),
        },
        CAST.agent,
      );
      expect(s.data.steps[ready.id].by).toBe(CAST.agent);
      log.push(`submit ${ready.id}${route ? ` ${route}` : ''}`);
      continue;
    }

    // 2. Open work items: the assignee decides.
    const wi = (view.workItems as Data[])[0];
    if (wi) {
      const esc = wi.escalation !== null;
      const who = esc ? CAST.operator : (wi.assignedTo.person ?? cast.groups[wi.assignedTo.group]?.[0]);
      expect(who, `someone to decide ${wi.stepId}`).toBeDefined();
      const n = visit(`${wi.stepId}#item`);
      const def = defs.get(wi.stepId)!;
      const decision = pick(plan.decisions?.[wi.stepId], n) ?? (def.kind === 'approve' ? 'approved' : 'completed');
      expect(wi.decide.decisions).toContain(decision);
      let extra: Record<string, unknown> = {};
      if (decision === 'completed') {
        const route = wi.next ? (pick(plan.routes?.[wi.stepId], n) ?? wi.next[0].to) : undefined;
        extra = {
          output: sampleFields(wi.output, opts()),
          evidence: await evidence(wi.evidence, wi.stepId, who),
          ...(route ? { next: route, reason: `Chose ${route}.` } : {}),
        };
      } else if (decision !== 'approved') extra = { note: `${decision} at ${wi.stepId}: see the instructions.` };
      const d = await h.ok('decide', { runId, workItemId: wi.id, snapshot: wi.snapshot, decision, ...extra }, who);
      expect(d.workItems.some((w: Data) => w.id === wi.id)).toBe(false);
      log.push(`decide ${wi.stepId} ${decision}`);
      continue;
    }

    // 3. Only waits are left: deliver the event a wait_for waits for, else let time pass.
    const waitFor = (view.steps as Data[]).find((s) => s.kind === 'wait_for' && s.state === 'waiting');
    if (waitFor && !plan.timeouts?.includes(waitFor.id)) {
      const name = defs.get(waitFor.id)!.value;
      const r = await h.ok('send_event', { runId, name, data: { reference: `${name}-1` } }, CAST.agent);
      expect(r.consumedBy).toBe(waitFor.id);
      log.push(`send_event ${name}`);
      continue;
    }
    h.advance('6h');
    log.push('time passes');
  }
  throw new Error(`run ${runId} did not end; trace: ${log.join(' | ')}`);
}
