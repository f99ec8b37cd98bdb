/**
 * `workboard demo` (what `npm start` runs): a copy of the example board in a
 * folder of its own, a scripted agent that works an expense claim up to
 * finance's approval over real MCP, a supplier onboarding that started its
 * contract approval as a run of its own, a supplier payment that waited for that
 * contract and woke when legal approved it, and `serve --http` on that copy, with
 * what to do next printed: the agent's token and MCP configuration, a
 * command connecting a real client, and how the waiting person decides.
 * The example board in the package is never written to.
 */
import { randomUUID } from 'node:crypto';
import { existsSync, promises as fs, realpathSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Command } from 'commander';
import { Board } from '../../board/board.js';
import { BoardError } from '../../board/errors.js';
import { STATE_DIR } from '../../board/layout.js';
import { evaluate } from '../../evaluator/evaluator.js';
import { createToken } from '../../service/credentials.js';
import { resolveActor } from '../../service/identity.js';
import { Service } from '../../service/service.js';
import { DEMO_AGENT, reviewClaim, type WorkedClaim } from '../demo/scripted-agent.js';
import { LEGAL, paymentChain, STARTER, type PaymentChain } from '../demo/payment-chain.js';
import { mcpConfig, shellWord } from '../mcp-config.js';
import { color } from '../output.js';
import { personName } from '../../words/index.js';
import type { Cli } from '../cli.js';
import { BIN } from './mcp-config.js';
import { serveBoard } from './serve.js';

/** The example board shipped beside dist/. */
export const EXAMPLE_BOARD = fileURLToPath(new URL('../../../examples/board', import.meta.url));

/** The person finance's approval waits for on the example board. */
const DEMO_PERSON = 'mira@example.com';

/** Who files the demo's expense claim: a process that can hand work back to its initiator is started by a person. */
const CLAIMANT = 'jon@example.com';

/** Jon files his claim, as he would from the CLI or the web app. */
async function fileClaim(board: Board, service: Service): Promise<string> {
  const who = resolveActor(board.manifest, CLAIMANT);
  if (!who.ok) throw new BoardError('invalid', `the example board no longer declares ${CLAIMANT}: ${who.message}`);
  const r = await service.call(
    'start_run',
    { process: 'expense-approval', inputs: { claimant: CLAIMANT, amount: 184.5, receiptUrl: 'https://example.com/receipts/2026-11-rail-berlin-hamburg.pdf' }, requestId: randomUUID() },
    who.actor,
  );
  if (!r.ok)
    throw new BoardError(
      'invalid',
      `the demo could not start its run: ${r.error.message}`,
      (r.error.issues ?? []).map((m) => ({ path: '', message: m })),
    );
  return r.data.run.id;
}

/** A fresh folder for the copy: `dir` when given (it must not exist or be empty), else a new temporary one. */
async function demoFolder(dir: string | undefined): Promise<string> {
  if (dir === undefined) return fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'workboard-demo-')));
  const abs = path.resolve(dir);
  if (existsSync(abs) && (await fs.readdir(abs)).length > 0) throw new BoardError('conflict', `${abs} is not empty; give --dir a new or empty folder`);
  await fs.mkdir(abs, { recursive: true });
  return abs;
}

/** A sign-in link for the web app, when this build has one; null otherwise. */
async function signInLink(board: Board, email: string, origin: string): Promise<string | null> {
  try {
    const { createLoginLink } = await import('../../web/sessions.js');
    return await createLoginLink(board, email, origin);
  } catch {
    return null;
  }
}

/** How to call this workboard from a shell: `workboard` when PATH finds this very installation, else node and its absolute path. */
function launcher(): string {
  for (const dir of (process.env.PATH ?? '').split(path.delimiter)) {
    const candidate = path.join(dir, 'workboard');
    try {
      if (dir && realpathSync(candidate) === realpathSync(BIN)) return 'workboard';
    } catch {
      // not there
    }
  }
  return [process.execPath, BIN].map(shellWord).join(' ');
}

function nextSteps(root: string, mcpUrl: string, token: string, claim: WorkedClaim, chain: PaymentChain, link: string | null, name: (email: string) => string): string {
  const wb = `${launcher()} --board ${shellWord(root)}`;
  const stdio = { kind: 'stdio' as const, node: process.execPath, bin: BIN, agent: DEMO_AGENT, board: root };
  const http = { kind: 'http' as const, url: mcpUrl, token };
  const indent = (s: string) =>
    s
      .trimEnd()
      .split('\n')
      .map((l) => `     ${l}`)
      .join('\n');
  return [
    '',
    color.bold('workboard demo'),
    `  board   ${root}  ${color.dim('(a copy of examples/board, yours to change; delete it when done)')}`,
    `  run     ${name(CLAIMANT)} filed an expense claim of 184.50 EUR and the scripted agent "${DEMO_AGENT}" reviewed it;`,
    `          it now waits for ${name(DEMO_PERSON)} (finance) to approve the payout.`,
    '',
    color.bold('1. Connect an MCP client as the agent reviewer (a bearer token made for this demo):'),
    indent(mcpConfig('json', http)),
    `   Claude Code over HTTP:`,
    indent(mcpConfig('claude', http)),
    `   or over stdio, no server needed:`,
    indent(mcpConfig('claude', stdio)),
    `   the MCP Inspector, to look at the tools:`,
    indent(`npx @modelcontextprotocol/inspector ${[process.execPath, BIN, 'mcp', '--as', DEMO_AGENT, '--board', root].map(shellWord).join(' ')}`),
    '',
    color.bold(`2. Decide as ${DEMO_PERSON}:`),
    ...(link
      ? [`   in the browser (a sign-in link that works once, for 15 minutes):`, `     ${link}`, `   or at the terminal:`]
      : [`   at the terminal (a browser sign-in link: ${wb} login-link ${DEMO_PERSON}, once the web app is built):`]),
    `     ${wb} inbox --as ${DEMO_PERSON}`,
    `     ${wb} decide ${claim.runId} ${claim.workItemId} --as ${DEMO_PERSON}`,
    '',
    color.bold('3. See what happened:'),
    `     ${wb} show ${claim.runId}`,
    `     ${wb} log ${claim.runId}`,
    '',
    color.bold('4. Runs that start and wait for other runs (flow-1):'),
    `   ${name(STARTER)} started a supplier onboarding for Nordlicht Logistics; its first step started a contract`,
    `   approval as a run of its own. A supplier payment of 12,000.00 EUR waited, blocked, for that contract.`,
    `   ${name(LEGAL)} (legal) approved it: the onboarding ${chain.movedOn ? 'moved on' : 'was to move on'} to finance, and the payment ${chain.woke ? 'woke' : 'was to wake'}: it now waits`,
    `   for finance, high priority.`,
    `     ${wb} show ${chain.onboarding}   ${color.dim('(the onboarding and the run it started)')}`,
    `     ${wb} show ${chain.payment}`,
    `     ${wb} runs --view open-by-priority --as ${DEMO_PERSON}`,
    `   In the browser, Runs and My work open on WORK.md's first saved view, "Open work by priority"; the`,
    `   onboarding's page shows its Lineage (the contract approval it started, with its state), and that run's page links back.`,
    '',
    color.dim('Ctrl-C stops the server; the board stays where it is.'),
    '',
  ].join('\n');
}

export function register(program: Command, cli: Cli): void {
  program
    .command('demo')
    .description('copy the example board, let a scripted agent work a claim up to an approval, and serve it over HTTP (what npm start runs)')
    .option('--dir <folder>', 'put the copy here (a new or empty folder) instead of a new temporary folder')
    .option('--http <host:port>', 'where to serve', '127.0.0.1:7420')
    .addHelpText('after', '\nExamples:\n  workboard demo\n  workboard demo --dir ./demo-board --http 127.0.0.1:7421')
    .action(async (o: { dir?: string; http: string }) => {
      if (!/^(.*):(\d+)$/.test(o.http)) cli.usage(`--http expects host:port, got "${o.http}"`);
      const root = await demoFolder(o.dir);
      await fs.cp(EXAMPLE_BOARD, root, { recursive: true, filter: (src) => path.basename(src) !== STATE_DIR });
      process.stderr.write(`copied the example board to ${root}; the scripted agent is working a claim…\n`);
      const board = await Board.open(root);
      const service = await Service.open(board, { evaluate });
      const claim = await reviewClaim({ node: process.execPath, bin: BIN }, root, await fileClaim(board, service));
      const chain = await paymentChain(board, service);
      const token = (await createToken(board.store, DEMO_AGENT, new Date(), { name: 'demo', by: cli.author() })).token;
      await serveBoard(cli, board, { http: o.http }, async (mcpUrl) => {
        const url = mcpUrl ?? `http://${o.http}/mcp`;
        const link = await signInLink(board, DEMO_PERSON, new URL(url).origin);
        process.stdout.write(nextSteps(root, url, token, claim, chain, link, (email) => personName(board.manifest.people, email)));
      });
    });
}
