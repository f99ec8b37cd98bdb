/** The people's web app from the command line: sign-in links and sessions. */
import type { Command } from 'commander';
import { BoardError } from '../../board/errors.js';
import { boardBaseUrl } from '../../core/public-url.js';
import { servedAt } from '../../board/served-at.js';
import { createLoginLink, listSessions, revokeSession, revokeSessionsOf } from '../../web/sessions.js';
import { color, EXIT, printJson } from '../output.js';
import type { Cli } from '../cli.js';
import { SESSIONS_FILE } from '../../board/layout.js';

export function register(program: Command, cli: Cli): void {
  program
    .command('login-link')
    .argument('<email>', 'a person declared in WORK.md (agents never get a web session)')
    .option(
      '--base-url <url>',
      "where people reach workboard serve (default: WORK.md's notifications.baseUrl, else WORKBOARD_PUBLIC_URL, else where this board's serve --http listens now, else http://127.0.0.1:7420)",
    )
    .description('print a single-use sign-in link for the web app, valid for 15 minutes (only the link on stdout)')
    .addHelpText('after', '\nExample:\n  workboard login-link mira@example.com --base-url https://work.example.com')
    .action(async (email: string, o: { baseUrl?: string }) => {
      const board = await cli.board();
      const url = await createLoginLink(board, email, boardBaseUrl(board.manifest, { explicit: o.baseUrl, served: servedAt(board.state) }));
      if (cli.json()) printJson({ ok: true, data: { email, url } });
      else {
        // The link alone on stdout, so LINK=$(workboard login-link …) captures exactly it.
        process.stdout.write(`${url}\n`);
        process.stderr.write(color.dim(`works once, for 15 minutes, for ${email}\n`));
      }
      cli.exit(EXIT.ok);
    });

  const session = program
    .command('session')
    .description(`web sessions (stored hashed in ${SESSIONS_FILE})`)
    .addHelpText('after', '\nExamples:\n  workboard session list\n  workboard session revoke s-1a2b3c4d5e6f');
  session
    .command('list')
    .description('every live web session: id, person, since, last seen, ends')
    .addHelpText('after', '\nExample:\n  workboard session list')
    .action(async () => {
      const sessions = await listSessions(await cli.board());
      if (cli.json()) printJson({ ok: true, data: { sessions } });
      else if (sessions.length === 0) process.stdout.write('no web sessions\n');
      else for (const s of sessions) process.stdout.write(`${s.id}  ${s.email}  since ${s.createdAt}  seen ${s.lastSeenAt}  ends ${s.expiresAt}\n`);
      cli.exit(EXIT.ok);
    });
  session
    .command('revoke')
    .argument('[id]', 'the session id from session list')
    .option('--person <email>', 'end every session of this person instead')
    .description("end a web session at once (or all of a person's)")
    .addHelpText('after', '\nExamples:\n  workboard session revoke s-1a2b3c4d5e6f\n  workboard session revoke --person mira@example.com')
    .action(async (id: string | undefined, o: { person?: string }) => {
      if ((id === undefined) === (o.person === undefined)) cli.usage('give exactly one: a session id, or --person <email>');
      const board = await cli.board();
      const ended = o.person !== undefined ? await revokeSessionsOf(board, o.person) : (await revokeSession(board, id!)) ? [id!] : [];
      if (id !== undefined && ended.length === 0) throw new BoardError('invalid', `no live web session ${id} (see workboard session list)`);
      if (cli.json()) printJson({ ok: true, data: { ended } });
      else process.stdout.write(ended.length ? `${color.green('ended')} ${ended.join(', ')}\n` : `no web sessions for ${o.person}\n`);
      cli.exit(EXIT.ok);
    });
}
