/** What every command shares: global options, opening the board, who is acting, and how to end. */
import { userInfo } from 'node:os';
import type { Command } from 'commander';
import { Board } from '../board/board.js';
import { EXIT, printError } from './output.js';

export class CliExit extends Error {
  constructor(readonly code: number) {
    super(`exit ${code}`);
    this.name = 'CliExit';
  }
}

export class Cli {
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

  /** Who is acting: --as, else WORKBOARD_AS, else the login name. */
  actor(): string {
    const g = this.globals();
    if (g.as) return g.as;
    if (process.env.WORKBOARD_AS) return process.env.WORKBOARD_AS;
    try {
      return `user:${userInfo().username}`;
    } catch {
      return 'user';
    }
  }

  boardRoot(): string {
    return Board.locate(this.globals().board);
  }

  async board(): Promise<Board> {
    return Board.open(this.boardRoot());
  }

  exit(code: number): never {
    throw new CliExit(code);
  }

  usage(message: string): never {
    process.stderr.write(`usage error: ${message}\n`);
    throw new CliExit(EXIT.usage);
  }

  fail(err: unknown): never {
    throw new CliExit(printError(err, this.json()));
  }
}
