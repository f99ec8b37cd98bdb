/**
 * Which module registers which commands, read before anything else is loaded:
 * bin/cli-entry.js picks a build of the CLI by the command line, and main.ts
 * loads only the module of the command being run. Loading this file loads
 * nothing else: each loader imports its module when it is called.
 */
import type { Command } from 'commander';
import type { Cli } from './cli.js';

export interface CommandModule {
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
export function commandName(args: readonly string[]): string | undefined {
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (a === '--board' || a === '--as') i++;
    else if (!a.startsWith('-')) return a === 'help' ? args[i + 1] : a;
  }
  return undefined;
}

/**
 * The commands whose modules bring large libraries: the HTTP server and the
 * web app, the MCP SDK, the map's layout. Every other command also runs from
 * a CommonJS bundle without them, which starts cheaper (docs/architecture.md
 * "How a CLI call starts"). Each is `commands/<name>.js`.
 */
export const HEAVY_COMMANDS: readonly string[] = ['serve', 'demo', 'mcp', 'map'];

/** Whether the light bundle can run this command line: it names a command, and not a heavy one. Help and unknown commands need every module. */
export function runsLight(args: readonly string[]): boolean {
  const name = commandName(args);
  return name !== undefined && !HEAVY_COMMANDS.includes(name) && COMMAND_MODULES.some(([names]) => names.includes(name));
}
