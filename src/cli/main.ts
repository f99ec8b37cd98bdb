/** The `workboard` command. Every command is a thin shell over the layers below. */
import { Command, CommanderError } from 'commander';
import { Cli, CliExit } from './cli.js';
import { EXIT, printError, printUsageError } from './output.js';
import * as audit from './commands/audit.js';
import * as demo from './commands/demo.js';
import * as doctor from './commands/doctor.js';
import * as evaluator from './commands/evaluator.js';
import * as git from './commands/git.js';
import * as init from './commands/init.js';
import * as map from './commands/map.js';
import * as mcp from './commands/mcp.js';
import * as mcpConfig from './commands/mcp-config.js';
import * as newProcess from './commands/new.js';
import * as notifications from './commands/notifications.js';
import * as people from './commands/people.js';
import * as processes from './commands/processes.js';
import * as publish from './commands/publish.js';
import * as serve from './commands/serve.js';
import * as tokens from './commands/tokens.js';
import * as tools from './commands/tools.js';
import * as validate from './commands/validate.js';
import * as web from './commands/web.js';
import { VERSION } from './version.js';

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
  for (const m of [init, people, newProcess, validate, publish, processes, map, tools, audit, doctor, notifications, evaluator, git, mcp, mcpConfig, tokens, serve, demo, web]) m.register(program, cli);
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
