/**
 * Files outside src/board/ never touch the board's files themselves: they go
 * through the store, `board.state` (`.work/`), `board.listing` and
 * `board.changes`. The only files outside board/ that use the file system are
 * named here, each with why what it touches is not the board's.
 */
import { describe, expect, it } from 'vitest';
import { fileSystemBreaches } from './file-system-rule.js';
import { readSrc, type SrcFile } from './src-graph.js';

/** Paths relative to src/. Reading or writing the board from any of them is still a breach of docs/architecture.md's rule, which no test can see: keep each to its reason. */
const ALLOWED: Record<string, string> = {
  'cli/tools/args.ts': "the CLI reads the user's --inputs-file, --output-file and attachment files, named on the command line",
  'cli/commands/validate.ts': 'the CLI reads the PROCESS.md files and folders the user names (a published version is read through the store)',
  'cli/commands/publish.ts': "the CLI reads the user's draft PROCESS.md in the folder they name, to ask for its roles",
  'cli/commands/map.ts': "the CLI reads the user's draft PROCESS.md they name, to draw it",
  'cli/commands/new.ts': 'workboard new writes the draft the user asked for, processes/<name>/PROCESS.md: a file for them to edit, never committed by the board',
  'cli/commands/demo.ts': 'workboard demo makes the new or empty folder the user asked for (or a temp one) and copies the package’s example board into it',
  'cli/commands/git.ts': "git's merge driver and textconv read and write the temp files git hands over; git-setup writes the git hooks and .gitattributes the user asked for",
  'cli/version.ts': "the package's own package.json, for its version",
  'web/assets.ts': "the package's static assets (CSS, script, icons), read once at start",
  'map/font.ts': "the package's fonts, for measuring and embedding text in maps",
  'web/signin-worker.ts': "the sign-in thread writes its own log lines to stdout (fd 1) with one synchronous write, so a log line for one address puts no work on the server's thread",
  'git/at-work.ts': "git's own index.lock, HEAD log and index in the repository's git folder (is git at work now? may its index name .work/?), never a board file",
  'git/process-probe.ts': '/proc, to tell whether a process a dead sync left is still git and whether it has ended: never a board file',
  'git/repo.ts': 'temp files outside the board (os.tmpdir) for git plumbing: blobs to hash, a private index',
};

describe('the file system, outside src/board/', () => {
  it('only the board touches board files: no board/fsutil, no .abs(, no file-system module but those allowed', () => {
    expect(fileSystemBreaches(readSrc().files, ALLOWED)).toEqual([]);
  });
});

describe('the rule itself, on made-up files', () => {
  const file = (text: string, imports: string[] = [], packages: string[] = []): SrcFile => ({ text, imports: new Set(imports), packages: new Set(packages) });

  it('names fsutil imports, .abs( calls and file-system modules outside board/, but not Math.abs or board/ itself', () => {
    const files = new Map<string, SrcFile>([
      ['board/store.ts', file('x.abs(rel)', ['board/fsutil.ts'], ['node:fs'])],
      ['service/a.ts', file('const n = Math.abs(d);\nstore.abs(rel);\nboard.store.abs (x)', ['board/fsutil.ts'])],
      ['web/b.ts', file('', [], ['node:fs/promises', 'node:path', 'write-file-atomic'])],
      ['cli/c.ts', file('', [], ['proper-lockfile'])],
      ['map/d.ts', file('', [], ['fs'])],
      ['core/e.ts', file('Math.abs(1)', ['board/layout.ts'], ['node:path'])],
    ]);
    expect(fileSystemBreaches(files, { 'map/d.ts': 'fonts' })).toEqual([
      'cli/c.ts: imports proper-lockfile',
      'service/a.ts: calls .abs( (line 2, 3)',
      'service/a.ts: imports board/fsutil',
      'web/b.ts: imports node:fs/promises, write-file-atomic',
    ]);
  });

  it('names an allowlist entry for a file that is gone or no longer touches files', () => {
    const files = new Map([['cli/x.ts', file('', [], ['node:path'])]]);
    expect(fileSystemBreaches(files, { 'cli/x.ts': 'once read a file', 'cli/gone.ts': 'was removed' })).toEqual([
      'cli/gone.ts: allowed to touch files but does not (remove it from the list)',
      'cli/x.ts: allowed to touch files but does not (remove it from the list)',
    ]);
  });
});
