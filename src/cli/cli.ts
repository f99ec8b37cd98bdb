/** What every command shares: global options, opening the board, who is acting, and how to end. */
import type { Command } from 'commander';
import type { Author } from '../board/author.js';
import { Board } from '../board/board.js';
import type { Manifest } from '../board/manifest.js';
import { chooseIdentity, gitEmail, osUser } from './identity.js';
import { EXIT, printError, printUsageError } from './output.js';
import { gitBroughtState } from '../git/tracked-state.js';

export class CliExit extends Error {
  constructor(readonly code: number) {
    super(`exit ${code}`);
    this.name = 'CliExit';
  }
}

export class Cli {
  /** WORK.md of the board this command opened, so the default identity can be a person it declares. */
  private opened: { root: string; manifest: Manifest } | null = null;

  constructor(private readonly program: Command) {}

  private globals(): { board?: string; json?: boolean; as?: string } {
    return this.program.opts();
  }

  json(): boolean {
    return this.globals().json === true;
  }

  /** The identity named on the command line or in WORKBOARD_AS, if any. */
  explicitAs(): string | undefined {
    return this.globals().as ?? process.env.WORKBOARD_AS;
  }

  /**
   * Who is acting: --as, else WORKBOARD_AS, else git's user.email when the
   * opened board declares that person, else the login (`user:<name>`).
   */
  actor(): string {
    const opened = this.opened;
    return chooseIdentity(this.explicitAs(), opened?.manifest ?? null, () => this.gitEmailOnce(opened?.root ?? process.cwd()), osUser());
  }

  /** git's user.email, asked of git once per command: each ask is a process of its own. */
  private askedGit: { cwd: string; email: string | null } | null = null;

  private gitEmailOnce(cwd: string): string | null {
    if (this.askedGit?.cwd !== cwd) this.askedGit = { cwd, email: gitEmail(cwd) };
    return this.askedGit.email;
  }

  /** Who is changing the board, for its audit line: the identity used and the OS user running this command. */
  author(): Author {
    return { actor: this.actor(), osUser: osUser() };
  }

  /** `--board` as given, if it was. */
  boardOption(): string | undefined {
    return this.globals().board;
  }

  boardRoot(): string {
    return Board.locate(this.globals().board);
  }

  /** The board, opened; `readOnly` for a command that promises to change nothing (`audit verify`). */
  async board(opts: { readOnly?: boolean } = {}): Promise<Board> {
    const root = this.boardRoot();
    // What git brought under .work/ (a pull, a clone) is not this coordinator's: read as absent (docs/git.md "What git never brings").
    const board = await Board.open(root, {}, { distrusted: gitBroughtState(root), ...opts });
    this.opened = { root: board.root, manifest: board.manifest };
    return board;
  }

  exit(code: number): never {
    throw new CliExit(code);
  }

  usage(message: string): never {
    printUsageError(message, this.json());
    throw new CliExit(EXIT.usage);
  }

  fail(err: unknown): never {
    throw new CliExit(printError(err, this.json()));
  }
}
