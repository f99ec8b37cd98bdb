/** `workboard notifications`: what the outbox holds and how each delivery went; an operator retries what was parked. */
import type { Command } from 'commander';
import { allEntries, readEntry, statusOf, writeEntry, type OutboxEntry } from '../../notify/outbox.js';
import { retried } from '../../notify/schedule.js';
import { lockFile } from '../../board/layout.js';
import { BoardError } from '../../board/errors.js';
import { color, printJson } from '../output.js';
import type { Cli } from '../cli.js';

function line(e: OutboxEntry, channels: boolean): string {
  const status = !e.deliveries && !channels ? 'recorded (no channel configured)' : statusOf(e);
  const paint = status === 'parked' ? color.red : status === 'pending' ? color.yellow : (s: string) => s;
  const ways = Object.entries(e.deliveries ?? {})
    .map(
      ([k, d]) =>
        `${k} ${d.doneAt ? 'sent' : d.skipped ? `not sent (${d.skipped})` : d.parkedAt ? `parked after ${d.attempts} attempts: ${d.lastError ?? ''}` : d.attempts > 0 ? `retry at ${d.nextAt} (${d.lastError ?? ''})` : 'waiting'}`,
    )
    .join('; ');
  return `${e.id}  ${e.at}  ${paint(status)}  ${e.kind}${e.mode === 'test' ? ' [test run]' : ''}  ${e.subject}\n    to ${e.recipients.join(', ') || 'nobody'}${ways ? ` — ${ways}` : ''}`;
}

export function register(program: Command, cli: Cli): void {
  const cmd = program
    .command('notifications')
    .description('the notification outbox: pending, sent, not sent (test runs, preferences) and parked deliveries')
    .option('--failed', 'only notifications with a parked delivery')
    .addHelpText('after', '\nExamples:\n  workboard notifications\n  workboard notifications --failed\n  workboard notifications retry n-01jd…')
    .action(async (o: { failed?: boolean }) => {
      const board = await cli.board();
      const entries = (await allEntries(board.state)).filter((e) => !o.failed || statusOf(e) === 'parked');
      if (cli.json()) printJson({ ok: true, data: { items: entries.map((e) => ({ ...e, status: statusOf(e) })) } });
      else if (entries.length === 0) process.stdout.write(o.failed ? 'no parked notifications\n' : 'the outbox is empty\n');
      else {
        const m = board.manifest;
        const channels = m.notify !== null || m.notifications.webhook !== null || m.notifications.email !== null;
        process.stdout.write(`${entries.map((e) => line(e, channels)).join('\n')}\n`);
      }
    });
  cmd
    .command('retry')
    .argument('<id>', 'the notification id (n-…)')
    .description('try a parked notification again now (the running serve delivers it)')
    .action(async (id: string) => {
      const board = await cli.board();
      const entry = (await allEntries(board.state)).find((e) => e.id === id);
      if (!entry) return cli.fail(new BoardError('invalid', `no notification ${id} in the outbox`));
      const name = `${entry.runId ?? 'board'}-${entry.id}`;
      const after = await board.store.exclusive(lockFile(`notify-${name}`), '', async () => {
        const now = await readEntry(board.state, `${name}.json`);
        if (!now || statusOf(now) !== 'parked') return null;
        const next = retried(now, new Date().toISOString());
        await writeEntry(board.state, next);
        return next;
      });
      if (!after) return cli.fail(new BoardError('invalid', `${id} has no parked delivery to retry`));
      if (cli.json()) printJson({ ok: true, data: { ...after, status: statusOf(after) } });
      else process.stdout.write(`${id}: parked deliveries will be tried again now\n`);
    });
}
