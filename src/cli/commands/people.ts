/** `workboard person|group|agent|operator …`: who works on the board, each change an audited WORK.md edit. */
import type { Command } from 'commander';
import { addAgent, addOperator, addPerson, addToGroup } from '../../board/people.js';
import { dropGroup, dropGroupMembers, offboardAgent, offboardPerson, renamePersonEverywhere, type Removal } from '../../service/offboarding.js';
import { Service } from '../../service/service.js';
import { revokeSessionsOf } from '../../web/sessions.js';
import { color, EXIT, printJson } from '../output.js';
import type { Cli } from '../cli.js';

function done(cli: Cli, change: string | null, what: string): never {
  if (cli.json()) printJson({ ok: true, data: { changed: change !== null, change } });
  else process.stdout.write(change ? `${color.green('added')} ${change}\n` : `${what} is already there; nothing changed\n`);
  return cli.exit(EXIT.ok);
}

/** A removal's report: what changed, the tokens and web sessions ended, and every place the board still names them. */
function removed(cli: Cli, r: Removal, sessions: string[] = [], moved = false): never {
  if (cli.json())
    printJson({ ok: true, data: { changed: r.change !== null, change: r.change, tokens: r.tokens, sessions, ...(r.claimsEnded ? { claimsEnded: r.claimsEnded } : {}), warnings: r.warnings } });
  else {
    process.stdout.write(r.change ? `${color.green('changed')} ${r.change}\n` : 'nothing changed\n');
    if (r.tokens.length > 0) process.stdout.write(`${moved ? 'moved' : 'ended'} ${r.tokens.length} bearer token${r.tokens.length === 1 ? '' : 's'}: ${r.tokens.join(', ')}\n`);
    if (sessions.length > 0) process.stdout.write(`ended ${sessions.length} web session${sessions.length === 1 ? '' : 's'}\n`);
    for (const c of r.claimsEnded ?? []) process.stdout.write(`ended the claim on ${c}: the step is ready again, with a handoff\n`);
    if (r.warnings.length > 0) process.stderr.write(`${color.yellow('warning')}: the board still names what was changed:\n${r.warnings.map((w) => `  ${w}\n`).join('')}`);
  }
  return cli.exit(EXIT.ok);
}

async function service(cli: Cli): Promise<Service> {
  return Service.open(await cli.board());
}

export function register(program: Command, cli: Cli): void {
  const person = program
    .command('person')
    .description('people on this board (named by email)')
    .addHelpText('after', '\nExample:\n  workboard person add mira@example.com --name "Mira Okafor"\n  workboard person remove mira@example.com');
  person
    .command('add')
    .argument('<email>', 'their email address')
    .option('--name <name>', 'their name')
    .description('add a person')
    .addHelpText('after', '\nExample:\n  workboard person add mira@example.com --name "Mira Okafor"')
    .action(async (e: string, o: { name?: string }) => done(cli, await addPerson(await cli.board(), cli.author(), e, o.name), e));
  person
    .command('remove')
    .argument('<email>', 'their email address')
    .description('remove a person from the board, its groups and the operators; their tokens and web sessions end at once')
    .addHelpText('after', '\nExample:\n  workboard person remove mira@example.com')
    .action(async (e: string) => {
      const svc = await service(cli);
      const r = await offboardPerson(svc, cli.author(), e);
      removed(cli, r, await revokeSessionsOf(svc.board, e));
    });
  person
    .command('rename')
    .argument('<email>', 'their email address now')
    .argument('<new-email>', 'their new email address')
    .description("change a person's email everywhere WORK.md names them; their tokens follow, their web sessions end")
    .addHelpText('after', '\nExample:\n  workboard person rename mira@example.com mira.okafor@example.com')
    .action(async (from: string, to: string) => {
      const svc = await service(cli);
      const r = await renamePersonEverywhere(svc, cli.author(), from, to);
      removed(cli, r, await revokeSessionsOf(svc.board, from), true);
    });

  const group = program.command('group').description('groups of people; a process role maps to a group at publish').addHelpText('after', '\nExample:\n  workboard group add finance mira@example.com');
  group
    .command('add')
    .argument('<group>', 'the group name')
    .argument('<members...>', 'emails of people on the board')
    .description('create a group or add members to it')
    .addHelpText('after', '\nExample:\n  workboard group add finance mira@example.com jon@example.com')
    .action(async (g: string, members: string[]) => done(cli, await addToGroup(await cli.board(), cli.author(), g, members), `group ${g}`));
  group
    .command('remove')
    .argument('<group>', 'the group name')
    .description('remove a group (its people stay on the board); versions and open work naming it are listed')
    .addHelpText('after', '\nExample:\n  workboard group remove finance')
    .action(async (g: string) => removed(cli, await dropGroup(await service(cli), cli.author(), g)));
  group
    .command('remove-member')
    .argument('<group>', 'the group name')
    .argument('<members...>', 'emails of members of the group')
    .description('take people out of a group (they stay on the board)')
    .addHelpText('after', '\nExample:\n  workboard group remove-member finance jon@example.com')
    .action(async (g: string, members: string[]) => removed(cli, await dropGroupMembers(await service(cli), cli.author(), g, members)));

  const agent = program.command('agent').description('agents that work through MCP').addHelpText('after', '\nExample:\n  workboard agent add reviewer');
  agent
    .command('add')
    .argument('<id>', 'the agent id (lowercase letters, digits, _ or -)')
    .option('--description <text>', 'what it does')
    .description('declare an agent')
    .addHelpText('after', '\nExample:\n  workboard agent add reviewer --description "Reviews expense claims"')
    .action(async (id: string, o: { description?: string }) => done(cli, await addAgent(await cli.board(), cli.author(), id, o.description), `agent ${id}`));
  agent
    .command('remove')
    .argument('<id>', 'the agent id')
    .description('remove an agent; its tokens end at once, its claims end (the steps are ready again, with a handoff)')
    .addHelpText('after', '\nExample:\n  workboard agent remove reviewer')
    .action(async (id: string) => removed(cli, await offboardAgent(await service(cli), cli.author(), id)));

  const operator = program.command('operator').description('operators: cancel runs, send events, take escalations').addHelpText('after', '\nExample:\n  workboard operator add ops@example.com');
  operator
    .command('add')
    .argument('<email>', 'their email address')
    .description('make someone an operator')
    .addHelpText('after', '\nExample:\n  workboard operator add ops@example.com')
    .action(async (e: string) => done(cli, await addOperator(await cli.board(), cli.author(), e), `operator ${e}`));
}
