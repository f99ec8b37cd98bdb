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
import type { Tool } from '../../protocol/offer.js';
import type { Result, ToolData } from '../../protocol/tool-data.js';
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
export async function call<T extends Tool>(
  cli: Cli,
  tool: T,
  args: ToolArgs,
  human: (view: ToolData[T], read: Read, service: Service) => unknown,
  anyone = false,
  onRefusal?: (error: Extract<ToolResult, { ok: false }>['error'], board: Board) => void,
): Promise<never> {
  return callService(cli, (service, actor) => callAs(service, tool, args, actor), human as (data: unknown, read: Read, service: Service) => unknown, anyone, onRefusal);
}

/**
 * One request of the service as the CLI's identity (a tool call, or a write
 * beside the tools such as a run's priority), printed by `human` or as the
 * result object with --json, and the end of the command.
 */
export async function callService(
  cli: Cli,
  request: (service: Service, actor: Actor) => Promise<ToolResult>,
  human: (data: unknown, read: Read, service: Service) => unknown,
  anyone = false,
  onRefusal?: (error: Extract<ToolResult, { ok: false }>['error'], board: Board) => void,
): Promise<never> {
  const board = await cli.board();
  const actor = actorFor(board, cli, '; pass --as <email-or-agent-id> or set WORKBOARD_AS', anyone);
  const shown = progress('reading runs');
  const service = await Service.open(board, { onIndexProgress: shown.tick, keepOpenRuns: true, evaluate });
  const result = await request(service, actor);
  shown.done();
  // Further reads for the human layout, on the same service as the same identity.
  const read: Read = (t, a) => callAs(service, t, a, actor);
  if (cli.json()) printJson(result);
  else if (result.ok) await human(result.data, read, service);
  else {
    printRefusal(result.error);
    onRefusal?.(result.error, board);
  }
  await service.saveKept();
  return cli.exit(exitFor(result));
}

/** Further reads for a command's human layout, as the same identity. */
export type Read = <U extends Tool>(tool: U, args: ToolArgs) => Promise<Result<ToolData[U]>>;

/**
 * A tool called with arguments as a command line gave them: the service checks
 * them against the tool's schema (callWire), and a success answers the tool's data.
 */
function callAs<T extends Tool>(service: Service, tool: T, args: ToolArgs, actor: Actor): Promise<Result<ToolData[T]>> {
  return service.callWire(tool, args, actor) as Promise<Result<ToolData[T]>>;
}

/** A tool call whose result the command uses itself: nothing is printed, and an undeclared identity is refused with `hint` appended. */
export async function callQuietly<T extends Tool>(cli: Cli, tool: T, args: ToolArgs, hint = ''): Promise<Result<ToolData[T]>> {
  const board = await cli.board();
  const actor = actorFor(board, cli, hint);
  return callAs(await Service.open(board, { evaluate }), tool, args, actor);
}
