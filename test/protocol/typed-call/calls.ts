/**
 * Compiled by typed-call.test.ts, never run: what the typed `Service.call`
 * must accept and refuse. Each `@ts-expect-error` is a pair that must not
 * type-check (tsc fails on an unused one); each `same` names a result type.
 */
import type { Actor } from '../../../src/engine/types.js';
import type { ClaimAnswer, Description, EventAnswer, Renewal, Result, ToolFailure, UploadAnswer } from '../../../src/protocol/tool-data.js';
import type { Page, ProcessSummary, RunRow, RunView, WorkEntry } from '../../../src/protocol/views.js';
import type { Service } from '../../../src/service/service.js';

/** True only when A and B are the same type (not merely assignable). */
type Same<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
const same = <A, B>(ok: Same<A, B>): Same<A, B> => ok;

export async function calls(service: Service, actor: Actor): Promise<void> {
  same<Awaited<ReturnType<typeof service.call<'get_run'>>>, Result<RunView>>(true);
  same<Awaited<ReturnType<typeof service.call<'start_run'>>>, Result<RunView>>(true);
  same<Awaited<ReturnType<typeof service.call<'decide'>>>, Result<RunView>>(true);
  same<Awaited<ReturnType<typeof service.call<'claim'>>>, Result<ClaimAnswer>>(true);
  same<Awaited<ReturnType<typeof service.call<'renew'>>>, Result<Renewal>>(true);
  same<Awaited<ReturnType<typeof service.call<'upload'>>>, Result<UploadAnswer>>(true);
  same<Awaited<ReturnType<typeof service.call<'send_event'>>>, Result<EventAnswer>>(true);
  same<Awaited<ReturnType<typeof service.call<'describe'>>>, Result<Description>>(true);
  same<Awaited<ReturnType<typeof service.call<'list_processes'>>>, Result<Page<ProcessSummary>>>(true);
  same<Awaited<ReturnType<typeof service.call<'get_work'>>>, Result<Page<WorkEntry>>>(true);
  same<Awaited<ReturnType<typeof service.call<'list_runs'>>>, Result<Page<RunRow>>>(true);
  // @ts-expect-error get_run answers a RunView, not a claim
  same<Awaited<ReturnType<typeof service.call<'get_run'>>>, Result<ClaimAnswer>>(true);

  // A call's data is the tool's answer, read with no cast once `ok` is checked.
  const run = await service.call('get_run', { runId: 'r-1' }, actor);
  if (run.ok) same<typeof run.data, RunView>(true);
  else same<typeof run.error.code, 'invalid' | 'not_accepted' | 'stale' | 'conflict' | 'forbidden' | 'not_found' | 'retry'>(true);
  if (!run.ok) same<typeof run.error, ToolFailure>(true);
  const lease = await service.call('claim', { runId: 'r-1', stepId: 'draft', requestId: 'q-1' }, actor);
  if (lease.ok) {
    same<typeof lease.data.token, string>(true);
    // @ts-expect-error a claim's answer has no run summary
    void lease.data.run;
  }

  // @ts-expect-error no tool has this name
  await service.call('get_runs', { runId: 'r-1' }, actor);
  // @ts-expect-error get_run takes a runId, not a stepId
  await service.call('get_run', { stepId: 'draft' }, actor);
  // @ts-expect-error claim's arguments are not submit's (submit needs its token)
  await service.call('submit', { runId: 'r-1', stepId: 'draft', requestId: 'q-1' }, actor);
  // @ts-expect-error decide's decision is one of the five
  await service.call('decide', { runId: 'r-1', workItemId: 'w-1', snapshot: 's', decision: 'maybe', requestId: 'q-1' }, actor);
  // @ts-expect-error a tool name known only at run time goes through callWire
  await service.call('get_run' as string, { runId: 'r-1' }, actor);

  // The wire entry takes any name and arguments, and answers an untyped result.
  same<Awaited<ReturnType<typeof service.callWire>>, Result<unknown>>(true);
}
