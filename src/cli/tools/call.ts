/**
 * Calling a tool as the CLI's identity: who is acting, opening the service,
 * and ending the command with the result printed (exactly the result object
 * with --json) and its exit code.
 */
import { BoardError } from '../../board/errors.js';
import type { Board } from '../../board/board.js';
import type { Actor } from '../../engine/types.js';
import { evaluate } from '../../evaluator/evaluator.js';
import { resolveActor } from '../../service/identity.js';
import type { ToolResult } from '../../service/results.js';
import { Service } from '../../service/service.js';
import { exitFor, printJson } from '../output.js';
import { progress } from '../progress.js';
import type { Cli } from '../cli.js';
import { printRefusal } from './render.js';
import type { ToolArgs } from './views.js';

/**
 * The acting identity as WORK.md declares it; an undeclared one is refused
 * with `hint` appended, unless the call is for `anyone` (then it reads as a
 * person who is no operator).
 */
function actorFor(board: Board, cli: Cli, hint: string, anyone = false): Actor {
  const who = resolveActor(board.manifest, cli.actor());
  if (who.ok) return who.actor;
  if (anyone) return { kind: 'person', email: cli.actor(), operator: false };
  throw new BoardError('invalid', `${who.message}${hint}`);
}

/**
 * One tool call as the CLI's identity, printed for people by `human`, and the
 * end of the command. Reads that are for anyone (`anyone`) also work for an
 * identity WORK.md does not declare. `onRefusal` may add a hint on stderr.
 */
export async function call<View = Record<string, unknown>>(
  cli: Cli,
  tool: string,
  args: ToolArgs,
  human: (view: View, read: <More>(tool: string, args: ToolArgs) => Promise<Result<More>>) => unknown,
  anyone = false,
  onRefusal?: (error: Extract<ToolResult, { ok: false }>['error'], board: Board) => void,
): Promise<never> {
  const board = await cli.board();
  const actor = actorFor(board, cli, '; pass --as <email-or-agent-id> or set WORKBOARD_AS', anyone);
  const shown = progress('reading runs');
  const service = await Service.open(board, { onIndexProgress: shown.tick, keepOpenRuns: true, evaluate });
  const result: ToolResult = await service.callWire(tool, args, actor);
  shown.done();
  // Further reads for the human layout, on the same service as the same identity.
  const read = async <More>(t: string, a: ToolArgs) => (await service.callWire(t, a, actor)) as Result<More>;
  if (cli.json()) printJson(result);
  // The service's results are plain records; `View` names the fields this command reads.
  else if (result.ok) await human(result.data as View, read);
  else {
    printRefusal(result.error);
    onRefusal?.(result.error, board);
  }
  await service.saveKept();
  return cli.exit(exitFor(result));
}

/** A tool's result with the fields `View` names, or its refusal. */
export type Result<View> = { ok: true; data: View } | Extract<ToolResult, { ok: false }>;

/** A tool call whose result the command uses itself: nothing is printed, and an undeclared identity is refused with `hint` appended. */
export async function callQuietly<View>(cli: Cli, tool: string, args: ToolArgs, hint = ''): Promise<Result<View>> {
  const board = await cli.board();
  const actor = actorFor(board, cli, hint);
  return (await (await Service.open(board, { evaluate })).callWire(tool, args, actor)) as Result<View>;
}
