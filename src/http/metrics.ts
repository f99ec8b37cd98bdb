/**
 * serve's Prometheus metrics (prom-client, a registry of its own), named as
 * Prometheus asks: `workboard_` then what is measured, the unit, `_total` on
 * counters (docs/operations.md, Metrics). Labels are bounded: tools,
 * transports, result codes, audit actions, channels, processes and steps;
 * never a run, a person or a token. Counters move as calls, flushes and
 * commits happen (an increment each); what the open runs and the outbox
 * hold is read when Prometheus scrapes, so no transition pays for it.
 */
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import { CommitLog } from '../board/commit-log.js';
import type { Daemon } from '../daemon/daemon.js';
import type { CallRecord, Service } from '../service/service.js';

/** Tool latencies: a read in the page cache takes a millisecond, a write a flush, a check an evaluator's answer. */
const CALL_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];
const FLUSH_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1];
const GROUP_BUCKETS = [1, 2, 4, 8, 16, 32, 64, 128];
const CHANNELS = ['command', 'webhook', 'email', 'slack'] as const;

export class Metrics {
  readonly registry = new Registry();
  private readonly calls: Counter<'tool' | 'transport' | 'code'>;
  private readonly callSeconds: Histogram<'tool' | 'transport'>;
  private readonly gauges: () => Promise<void>;

  constructor(service: Service, daemon: Daemon) {
    const registers = [this.registry];
    collectDefaultMetrics({ register: this.registry });
    this.calls = new Counter({
      name: 'workboard_tool_calls_total',
      help: 'Tool calls answered, by tool, transport and result code (ok or the error code).',
      labelNames: ['tool', 'transport', 'code'],
      registers,
    });
    this.callSeconds = new Histogram({
      name: 'workboard_tool_call_duration_seconds',
      help: 'How long tool calls took, by tool and transport.',
      labelNames: ['tool', 'transport'],
      buckets: CALL_BUCKETS,
      registers,
    });

    const transitions = new Counter({ name: 'workboard_transitions_total', help: 'Commits that moved a run (tool calls and deadlines the daemon applied).', registers });
    const actions = new Counter({ name: 'workboard_audit_events_total', help: 'Audit events committed to runs, by action.', labelNames: ['action'], registers });
    const expiries = new Counter({ name: 'workboard_lease_expiries_total', help: 'Claims whose lease expired before their agent submitted or renewed.', registers });
    const flushes = new Histogram({
      name: 'workboard_commit_log_flush_duration_seconds',
      help: 'Commit-log flushes (each the commit point of a group) and how long each took.',
      buckets: FLUSH_BUCKETS,
      registers,
    });
    const groups = new Histogram({ name: 'workboard_commit_log_group_size', help: 'Commits made durable by one commit-log flush.', buckets: GROUP_BUCKETS, registers });
    CommitLog.of(service.board.root).observer = {
      flushed(group, seconds) {
        flushes.observe(seconds);
        groups.observe(group);
      },
      committed(list) {
        transitions.inc();
        for (const a of list) {
          actions.inc({ action: a });
          if (a === 'lease.expired') expiries.inc();
        }
      },
    };

    const runs = new Gauge({ name: 'workboard_open_runs', help: 'Open runs, by process.', labelNames: ['process'], registers });
    const step = (name: string, help: string) => new Gauge({ name, help, labelNames: ['process', 'step'], registers });
    const ready = step('workboard_ready_steps', 'Agent steps ready to be claimed, by process and step.');
    const claimed = step('workboard_claimed_steps', 'Agent steps claimed (a live lease), by process and step.');
    const waiting = step('workboard_waiting_work_items', 'Work items open for people, by process and step.');
    const overdue = step('workboard_overdue_steps', 'Steps past their due time, by process and step.');
    const oldest = new Gauge({
      name: 'workboard_oldest_waiting_seconds',
      help: 'How long the longest-waiting ready agent step (for="agent") or work item (for="person") has waited; 0 when none waits.',
      labelNames: ['for'],
      registers,
    });
    const outWaiting = new Gauge({ name: 'workboard_outbox_waiting', help: 'Notification deliveries not yet sent, by channel.', labelNames: ['channel'], registers });
    const outParked = new Gauge({ name: 'workboard_outbox_parked', help: 'Notification deliveries parked for an operator after their last attempt, by channel.', labelNames: ['channel'], registers });
    const outOldest = new Gauge({ name: 'workboard_outbox_oldest_due_seconds', help: 'How long the oldest due delivery has waited past its time; 0 when none is due.', registers });
    const outAttempts = new Counter({ name: 'workboard_outbox_attempts_total', help: 'Delivery attempts, by channel.', labelNames: ['channel'], registers });
    const outFailures = new Counter({ name: 'workboard_outbox_failures_total', help: 'Delivery attempts that failed, by channel.', labelNames: ['channel'], registers });
    const syncRuns = new Counter({ name: 'workboard_sync_runs_total', help: 'Syncs with the git remote (serve --git-sync).', registers });
    const syncFailures = new Counter({ name: 'workboard_sync_failures_total', help: 'Syncs with the git remote that failed.', registers });
    const syncLast = new Gauge({ name: 'workboard_sync_last_success_timestamp_seconds', help: 'When the last good sync ended (Unix time); absent before one.', registers });
    const syncAge = new Gauge({ name: 'workboard_sync_seconds_since_success', help: 'Seconds since the last good sync; absent before one.', registers });

    // A counter kept elsewhere is copied in at its value (prom-client counters only add).
    const copy = (c: Counter<string>, value: number, labels: Record<string, string> = {}) => {
      c.reset();
      c.inc(labels, value);
    };
    this.gauges = async () => {
      const now = Date.now();
      const w = await service.workload();
      for (const g of [runs, ready, claimed, waiting, overdue]) g.reset();
      for (const [process, n] of w.runs) runs.set({ process }, n);
      for (const s of w.steps.values()) {
        const labels = { process: s.process, step: s.step };
        ready.set(labels, s.ready);
        claimed.set(labels, s.claimed);
        waiting.set(labels, s.waiting);
        overdue.set(labels, s.overdue);
      }
      oldest.set({ for: 'agent' }, w.oldestAgent === null ? 0 : Math.max(0, now - w.oldestAgent) / 1000);
      oldest.set({ for: 'person' }, w.oldestPerson === null ? 0 : Math.max(0, now - w.oldestPerson) / 1000);
      const o = daemon.outbox;
      outAttempts.reset();
      outFailures.reset();
      for (const channel of CHANNELS) {
        outWaiting.set({ channel }, o.backlog.waiting[channel]);
        outParked.set({ channel }, o.backlog.parked[channel]);
        outAttempts.inc({ channel }, o.attempts[channel]);
        outFailures.inc({ channel }, o.failures[channel]);
      }
      outOldest.set(o.backlog.oldestDueAt === null ? 0 : Math.max(0, now - o.backlog.oldestDueAt) / 1000);
      copy(syncRuns, daemon.syncs.runs);
      copy(syncFailures, daemon.syncs.failures);
      syncLast.reset();
      syncAge.reset();
      if (daemon.syncs.lastGoodAt !== null) {
        syncLast.set(daemon.syncs.lastGoodAt / 1000);
        syncAge.set((now - daemon.syncs.lastGoodAt) / 1000);
      }
    };
  }

  /** The service's observer: one call ended. */
  readonly call = (c: CallRecord): void => {
    const tool = c.tool ?? 'other';
    this.calls.inc({ tool, transport: c.transport, code: c.code });
    this.callSeconds.observe({ tool, transport: c.transport }, c.seconds);
  };

  /** The exposition text, with what the board and the outbox hold read now. */
  async text(): Promise<string> {
    await this.gauges();
    return this.registry.metrics();
  }

  get contentType(): string {
    return this.registry.contentType;
  }
}
