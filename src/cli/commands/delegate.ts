/**
 * `workboard delegate`: out of office from the terminal (docs/people.md "Out
 * of office"). Hand your work to someone until a time, end it, or list who
 * stands in for whom. An operator may do it for anyone (`--for`).
 */
import type { Command } from 'commander';
import { Service } from '../../service/service.js';
import { untilFrom } from '../../service/delegations.js';
import { resolveActor } from '../../service/identity.js';
import type { Delegation } from '../../engine/delegation.js';
import { exactTime, personName } from '../../words/index.js';
import { color, EXIT, exitFor, printJson } from '../output.js';
import { printRefusal } from '../tools/render.js';
import type { Cli } from '../cli.js';

interface Flags {
  until?: string;
  for?: string;
  note?: string;
  end?: boolean;
  list?: boolean;
}

export function register(program: Command, cli: Cli): void {
  program
    .command('delegate')
    .argument('[to]', 'the email of the person who decides your work while you are away')
    .option('--until <when>', "when it ends by itself: a date (back that day), a clock time in the board's time zone, or a full time with its zone")
    .option('--for <email>', 'an operator: whose work is handed over (default: yours)')
    .option('--note <text>', 'a word for the team, e.g. "Holiday"')
    .option('--end', 'end the delegation now (yours, or --for someone as an operator)')
    .option('--list', 'the delegations in force')
    .description('out of office: hand your approvals and tasks to someone until a time; they decide in their own name, for you')
    .addHelpText(
      'after',
      '\nExamples:\n  workboard delegate jon@example.com --until 2026-12-12 --as mira@example.com\n  workboard delegate --end --as mira@example.com\n  workboard delegate --end --for mira@example.com --as ops@example.com\n  workboard delegate --list',
    )
    .action(async (to: string | undefined, o: Flags) => {
      const modes = [to !== undefined, o.end === true, o.list === true].filter(Boolean).length;
      if (modes !== 1) cli.usage('give one of: a person to hand your work to (with --until), --end, or --list');
      const board = await cli.board();
      const service = await Service.open(board);
      const m = board.manifest;
      const tz = m.notifications.timeZone;
      const name = (e: string) => personName(m.people, e);
      const line = (d: Delegation) => `${name(d.from)} → ${name(d.to)} until ${exactTime(d.until, tz)}${d.note ? ` (${d.note})` : ''}`;
      if (o.list) {
        const all = service.delegations();
        if (cli.json()) printJson({ ok: true, data: { delegations: all } });
        else process.stdout.write(all.length ? all.map((d) => `${line(d)}\n`).join('') : 'nobody is out of office\n');
        return cli.exit(EXIT.ok);
      }
      const who = resolveActor(m, cli.actor());
      if (!who.ok) {
        printRefusal({ code: 'invalid', message: `${who.message}; pass --as <email> or set WORKBOARD_AS` });
        return cli.exit(EXIT.refused);
      }
      const from = o.for ?? cli.actor();
      if (o.end) {
        const r = await service.endDelegation(from, who.actor, cli.author().osUser);
        if (cli.json()) printJson(r);
        else if (!r.ok) printRefusal(r.error);
        else process.stdout.write(r.data.ended ? `${color.green('ended')} ${name(from)}'s out of office: their work is theirs again\n` : `${name(from)} has no delegation in force; nothing changed\n`);
        return cli.exit(exitFor(r));
      }
      if (o.until === undefined) cli.usage('--until <when> is needed: when the delegation ends by itself (e.g. 2026-12-12)');
      const r = await service.delegate({ from, to: to ?? '', until: untilFrom(o.until, tz), ...(o.note ? { note: o.note } : {}) }, who.actor, cli.author().osUser);
      if (cli.json()) printJson(r);
      else if (!r.ok) printRefusal(r.error);
      else process.stdout.write(`${color.green('delegated')} ${line(r.data)}\n${name(r.data.to)} sees ${name(r.data.from)}'s work and decides it for them; four eyes holds for both.\n`);
      return cli.exit(exitFor(r));
    });
}
