import { existsSync, promises as fs, statSync } from 'node:fs';
import path from 'node:path';
import type { Command } from 'commander';
import { Board } from '../../board/board.js';
import { paths, STATE_DIR } from '../../board/layout.js';
import { listVersions } from '../../board/processes.js';
import { NAME_PATTERN } from '../../process/model.js';
import { offerFor } from '../../service/context.js';
import type { Issue } from '../../core/issues.js';
import { loadProcess } from '../../process/load.js';
import { FULL_OFFER, parseProfiles, type Offer } from '../../protocol/offer.js';
import { color, EXIT, issueLine, printJson } from '../output.js';
import { progress } from '../progress.js';
import type { Cli } from '../cli.js';

interface FileResult {
  file: string;
  ok: boolean;
  name?: string;
  hash?: string;
  issues: Issue[];
}

/** A PROCESS.md to check: the name it is shown by, and how its text is read. */
interface Source {
  file: string;
  text: () => Promise<string>;
}

/** A file the user named (or found in a folder they named), read as given: their own input, not the board's. */
const userFile = (file: string): Source => ({ file, text: () => fs.readFile(file, 'utf8') });

/** The latest published version's PROCESS.md of a process named `name` on the board in reach, read through the board; null if there is none. */
async function publishedFile(name: string, cli: Cli): Promise<Source | null> {
  if (!NAME_PATTERN.test(name)) return null;
  let board: Board;
  try {
    board = await cli.board();
  } catch {
    return null;
  }
  const versions = await listVersions(board, name);
  const latest = versions[versions.length - 1];
  if (latest === undefined) return null;
  const rel = `${paths.versionDir(name, latest)}/PROCESS.md`;
  const bytes = await board.store.readBytes(rel);
  return bytes === null ? null : { file: path.relative(process.cwd(), path.join(board.root, rel)), text: async () => bytes.toString('utf8') };
}

/** Every PROCESS.md under the given files and folders (or of the published processes named), in a stable order. */
async function collect(targets: string[], cli: Cli): Promise<{ files: Source[]; missing: string[] }> {
  const files: Source[] = [];
  const missing: string[] = [];
  const walk = async (dir: string) => {
    const entries = await fs.readdir(dir, { withFileTypes: true });
    for (const e of entries.sort((a, b) => a.name.localeCompare(b.name))) {
      if (e.isDirectory() && !['node_modules', STATE_DIR, '.git'].includes(e.name)) await walk(path.join(dir, e.name));
      else if (e.isFile() && e.name === 'PROCESS.md') files.push(userFile(path.join(dir, e.name)));
    }
  };
  for (const t of targets) {
    if (!existsSync(t)) {
      const published = await publishedFile(t, cli);
      if (published) files.push(published);
      else missing.push(t);
    } else if (statSync(t).isDirectory()) await walk(t);
    else files.push(userFile(t));
  }
  return { files, missing };
}

/** What the board in reach offers (so validate agrees with publish), or every profile outside a board. */
async function boardProfiles(cli: Cli): Promise<string[]> {
  let root: string;
  try {
    root = cli.boardRoot();
  } catch {
    return [...FULL_OFFER.profiles];
  }
  return [...offerFor((await Board.open(root)).manifest).profiles];
}

export function register(program: Command, cli: Cli): void {
  program
    .command('validate')
    .description('check PROCESS.md files against the format and the enabled profiles; every issue is printed at once')
    .argument('<paths...>', 'PROCESS.md files, folders searched for them, or names of published processes (their latest version)')
    .option('--profiles <list>', 'profiles counted as enabled: comma-separated, all or none (default: what the board offers, all outside a board)')
    .addHelpText(
      'after',
      '\nExamples:\n  workboard validate processes/\n  workboard validate expense-approval      # the latest published version\n  workboard validate processes/expense/PROCESS.md --profiles none --json',
    )
    .action(async (targets: string[], opts: { profiles?: string }) => {
      const json = cli.json();
      const { profiles, unknown } = opts.profiles !== undefined ? parseProfiles(opts.profiles) : { profiles: new Set(await boardProfiles(cli)), unknown: [] };
      if (unknown.length > 0) return cli.usage(`unknown profile ${unknown.join(', ')}; known: ${[...FULL_OFFER.profiles].join(', ')}`);
      const offer: Offer = { profiles, tools: FULL_OFFER.tools };
      const { files, missing } = await collect(targets, cli);
      const results: FileResult[] = missing.map((file) => ({ file, ok: false, issues: [{ path: '', message: 'no such file or folder, and no published process of that name' }] }));
      if (files.length === 0 && missing.length === 0) return cli.usage(`no PROCESS.md found in ${targets.join(', ')}`);
      const shown = progress('validating');
      for (const [i, { file, text }] of files.entries()) {
        shown.tick(i, files.length);
        const loaded = loadProcess(await text(), offer);
        results.push(loaded.ok ? { file, ok: true, name: loaded.process.name, hash: loaded.hash, issues: [] } : { file, ok: false, issues: loaded.issues });
      }
      shown.done();
      const ok = results.every((r) => r.ok);
      if (json) printJson({ ok, files: results });
      else
        for (const r of results) {
          if (r.ok) process.stdout.write(`${color.green('valid')}   ${r.file}  ${color.dim(`${r.name} sha256:${r.hash}`)}\n`);
          else for (const i of r.issues) process.stdout.write(`${issueLine(i, r.file)}\n`);
        }
      if (!json && !ok) {
        const n = results.reduce((a, r) => a + r.issues.length, 0);
        process.stderr.write(`${color.red(`${n} issue${n === 1 ? '' : 's'}`)} in ${results.filter((r) => !r.ok).length} of ${results.length} file(s)\n`);
      }
      cli.exit(ok ? EXIT.ok : EXIT.refused);
    });
}
