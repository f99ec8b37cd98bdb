/** The `workboard` command. Every command is a thin shell over the layers below. */
import { Command, CommanderError } from 'commander';
import { Cli, CliExit } from './cli.js';
import { EXIT, printError, printUsageError } from './output.js';
import { VERSION } from './version.js';
import { COMMAND_MODULES, commandName, type CommandModule } from './command-table.js';

/** The modules to load for this command line: the one that defines its command, or every one. */
function modulesFor(args: readonly string[]): (() => Promise<CommandModule>)[] {
  const name = commandName(args);
  if (name === undefined && (args.includes('--version') || args.includes('-V'))) return [];
  const one = COMMAND_MODULES.find(([names]) => name !== undefined && names.includes(name));
  return one ? [one[1]] : COMMAND_MODULES.map(([, load]) => load);
}

export async function main(argv: string[]): Promise<number> {
  // A reader that goes away (`| head`) ends us quietly, as it does any Unix tool.
  process.stdout.on('error', (e: NodeJS.ErrnoException) => {
    if (e.code === 'EPIPE') process.exit(0);
  });
  const program = new Command();
  program
    .name('workboard')
    .description('An Agent Process server whose only source of truth is a folder of plain files you commit to git.')
    .version(VERSION, '-V, --version')
    .option('--board <dir>', 'the board root (default: WORKBOARD_DIR, or the nearest folder upwards with WORK.md)')
    .option('--json', 'print exactly one JSON result object')
    .option('--as <identity>', 'act as this person or agent (default: WORKBOARD_AS, or your login)')
    .exitOverride()
    .configureOutput({ writeErr: (s) => process.stderr.write(s) })
    .showHelpAfterError('(run workboard help <command> for examples)');
  const cli = new Cli(program);
  for (const m of await Promise.all(modulesFor(argv.slice(2)).map((load) => load()))) m.register(program, cli);
  try {
    await program.parseAsync(argv);
    return EXIT.ok;
  } catch (e) {
    if (e instanceof CliExit) return e.code;
    const json = program.opts().json === true || argv.includes('--json');
    if (e instanceof CommanderError) {
      if (e.exitCode === 0) return EXIT.ok;
      // Commander has said it on stderr already; --json still gets its one object.
      printUsageError(e.message.replace(/^error: /, ''), json, true);
      return EXIT.usage;
    }
    return printError(e, json);
  }
}
