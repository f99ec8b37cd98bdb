/** `workboard token …`: bearer tokens for MCP over HTTP — create, list, revoke, rotate. */
import type { Command } from 'commander';
import { createToken, listTokens, revokeToken, rotateToken, type MadeToken } from '../../service/credentials.js';
import { DEFAULT_EXPIRY, type TokenInfo } from '../../service/token-rules.js';
import { color, EXIT, printJson } from '../output.js';
import type { Cli } from '../cli.js';
import { STATE_DIR, TOKENS_FILE } from '../../board/layout.js';

function shown(cli: Cli, t: MadeToken, what: string): never {
  if (cli.json()) printJson({ ok: true, data: t });
  else {
    // The token alone on stdout, so `TOKEN=$(workboard token create …)` captures exactly it.
    process.stdout.write(`${t.token}\n`);
    process.stderr.write(`${color.dim(`token ${t.id}${t.name ? ` (${t.name})` : ''} ${what} ${t.identity}, expires ${t.expiresAt}; shown once, store it now`)}\n`);
  }
  return cli.exit(EXIT.ok);
}

function row(t: TokenInfo, now: Date): string {
  const expired = t.expiresAt !== null && Date.parse(t.expiresAt) <= now.getTime();
  const expires = t.expiresAt === null ? 'never (made before tokens expired; rotate it)' : expired ? color.red(`expired ${t.expiresAt}`) : t.expiresAt;
  return `${t.id}  ${(t.name ?? '-').padEnd(16)}  ${t.identity.padEnd(24)}  created ${t.createdAt}  last used ${t.lastUsedAt ?? 'never'}  expires ${expires}`;
}

export function register(program: Command, cli: Cli): void {
  const token = program
    .command('token')
    .description(`bearer tokens for MCP over HTTP (shown once; only a hash is kept, in ${STATE_DIR}/)`)
    .addHelpText('after', '\nExample:\n  workboard token create reviewer --name ci --expires 30d\n  workboard token list\n  workboard token revoke ci');
  token
    .command('create')
    .argument('<identity>', 'an agent id or a person email declared in WORK.md')
    .option('--expires <when>', `how long it works: 12h, 30d, 2w, or a date (at most 366 days; default ${DEFAULT_EXPIRY})`)
    .option('--name <label>', 'a label to list and revoke it by (unique on the board)')
    .description(`make a token for an identity; it is shown once and only its hash is kept (in ${TOKENS_FILE})`)
    .addHelpText('after', '\nExample:\n  workboard token create reviewer --name ci --expires 30d')
    .action(async (identity: string, o: { expires?: string; name?: string }) => {
      const board = await cli.board();
      shown(cli, await createToken(board.store, identity, new Date(), { ...o, by: cli.author() }), 'for');
    });
  token
    .command('list')
    .description('every token: id, label, identity, created, last used (to the minute), expires; never the secret')
    .addHelpText('after', '\nExample:\n  workboard token list --json')
    .action(async () => {
      const board = await cli.board();
      const tokens = await listTokens(board.state);
      if (cli.json()) printJson({ ok: true, data: { tokens } });
      else if (tokens.length === 0) process.stdout.write('no tokens; make one with workboard token create <identity>\n');
      else for (const t of tokens) process.stdout.write(`${row(t, new Date())}\n`);
      cli.exit(EXIT.ok);
    });
  token
    .command('revoke')
    .argument('<id-or-label>', 'the token id (t-…) or its label')
    .description('end a token at once, in every running server')
    .addHelpText('after', '\nExample:\n  workboard token revoke ci')
    .action(async (ref: string) => {
      const board = await cli.board();
      const gone = await revokeToken(board.store, ref, cli.author());
      if (cli.json()) printJson({ ok: true, data: gone });
      else process.stdout.write(`${color.green('revoked')} token ${gone.id}${gone.name ? ` (${gone.name})` : ''} of ${gone.identity}\n`);
      cli.exit(EXIT.ok);
    });
  token
    .command('rotate')
    .argument('<id-or-label>', 'the token id (t-…) or its label')
    .option('--expires <when>', 'how long the new secret works (default: as long as the old one was given)')
    .description("replace a token's secret: the old one stops working at once; id, label and identity stay")
    .addHelpText('after', '\nExample:\n  workboard token rotate ci')
    .action(async (ref: string, o: { expires?: string }) => {
      const board = await cli.board();
      shown(cli, await rotateToken(board.store, ref, new Date(), { ...o, by: cli.author() }), 'rotated for');
    });
}
