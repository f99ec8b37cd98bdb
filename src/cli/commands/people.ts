import type { Command } from 'commander';
import { addAgent, addOperator, addPerson, addToGroup } from '../../board/people.js';
import { color, EXIT, printJson } from '../output.js';
import type { Cli } from '../cli.js';

function done(cli: Cli, change: string | null, what: string): never {
  if (cli.json()) printJson({ ok: true, data: { changed: change !== null, change } });
  else process.stdout.write(change ? `${color.green('added')} ${change}\n` : `${what} is already there; nothing changed\n`);
  return cli.exit(EXIT.ok);
}

export function register(program: Command, cli: Cli): void {
  const person = program.command('person').description('people on this board (named by email)')
    .addHelpText('after', '\nExample:\n  workboard person add mira@example.com --name "Mira Okafor"');
  person
    .command('add')
    .argument('<email>', 'their email address')
    .option('--name <name>', 'their name')
    .description('add a person')
    .addHelpText('after', '\nExample:\n  workboard person add mira@example.com --name "Mira Okafor"')
    .action(async (e: string, o: { name?: string }) => done(cli, await addPerson(await cli.board(), cli.actor(), e, o.name), e));

  const group = program.command('group').description('groups of people; a process role maps to a group at publish')
    .addHelpText('after', '\nExample:\n  workboard group add finance mira@example.com');
  group
    .command('add')
    .argument('<group>', 'the group name')
    .argument('<members...>', 'emails of people on the board')
    .description('create a group or add members to it')
    .addHelpText('after', '\nExample:\n  workboard group add finance mira@example.com jon@example.com')
    .action(async (g: string, members: string[]) => done(cli, await addToGroup(await cli.board(), cli.actor(), g, members), `group ${g}`));

  const agent = program.command('agent').description('agents that work through MCP')
    .addHelpText('after', '\nExample:\n  workboard agent add reviewer');
  agent
    .command('add')
    .argument('<id>', 'the agent id (lowercase letters, digits, _ or -)')
    .option('--description <text>', 'what it does')
    .description('declare an agent')
    .addHelpText('after', '\nExample:\n  workboard agent add reviewer --description "Reviews expense claims"')
    .action(async (id: string, o: { description?: string }) => done(cli, await addAgent(await cli.board(), cli.actor(), id, o.description), `agent ${id}`));

  const operator = program.command('operator').description('operators: cancel runs, send events, take escalations')
    .addHelpText('after', '\nExample:\n  workboard operator add ops@example.com');
  operator
    .command('add')
    .argument('<email>', 'their email address')
    .description('make someone an operator')
    .addHelpText('after', '\nExample:\n  workboard operator add ops@example.com')
    .action(async (e: string) => done(cli, await addOperator(await cli.board(), cli.actor(), e), `operator ${e}`));
}
