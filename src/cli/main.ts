/** The `workboard` command. Every command is a thin shell over the layers below. */
import { Command, CommanderError } from 'commander';
import { Cli, CliExit } from './cli.js';
import { EXIT, printError, printUsageError } from './output.js';
import { VERSION } from './version.js';

interface CommandModule {
  register(program: Command, cli: Cli): void;
}

/**
 * Each command module with the commands it registers. Only the module of the
 * command being run is loaded (start-up is most of a CLI call, and serve, the
 * web app and maps bring large libraries); help and unknown commands load all.
 * A test checks this table against what each module registers.
 */
export const COMMAND_MODULES: readonly [readonly string[], () => Promise<CommandModule>][] = [
  [['init'], () => import('./commands/init.js')],
  [['person', 'group', 'agent', 'operator'], () => import('./commands/people.js')],
  [['new'], () => import('./commands/new.js')],
  [['validate'], () => import('./commands/validate.js')],
  [['publish'], () => import('./commands/publish.js')],
  [['processes'], () => import('./commands/processes.js')],
  [['map'], () => import('./commands/map.js')],
  [['start', 'describe', 'runs', 'show', 'inbox', 'decide', 'cancel', 'priority', 'event', 'upload', 'work', 'claim', 'renew', 'submit', 'escalate'], () => import('./commands/tools.js')],
  [['audit', 'log'], () => import('./commands/audit.js')],
  [['doctor'], () => import('./commands/doctor.js')],
  [['upgrade'], () => import('./commands/upgrade.js')],
  [['stats'], () => import('./commands/stats.js')],
  [['notifications'], () => import('./commands/notifications.js')],
  [['evaluator'], () => import('./commands/evaluator.js')],
  [['merge-driver', 'git-setup', 'audit-text', 'git-reconcile'], () => import('./commands/git.js')],
  [['sync', 'resolve'], () => import('./commands/sync.js')],
  [['mcp'], () => import('./commands/mcp.js')],
  [['mcp-config'], () => import('./commands/mcp-config.js')],
  [['token'], () => import('./commands/tokens.js')],
  [['serve'], () => import('./commands/serve.js')],
  [['demo'], () => import('./commands/demo.js')],
  [['login-link', 'session'], () => import('./commands/web.js')],
  [['delegate'], () => import('./commands/delegate.js')],
  [['reminders'], () => import('./commands/reminders.js')],
];

/** The command named on the command line (after the global options), if any. */
function commandName(args: readonly string[]): string | undefined {
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (a === '--board' || a === '--as') i++;
    else if (!a.startsWith('-')) return a === 'help' ? args[i + 1] : a;
  }
  return undefined;
}

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
