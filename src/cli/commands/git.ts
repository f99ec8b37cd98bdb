import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Command } from 'commander';
import { BoardError } from '../../board/errors.js';
import { auditLinesIn, fileText, NO_WORDS } from '../../git/audit-words.js';
import { boardWords } from '../../git/board-words.js';
import { mergeBoardFile } from '../../git/merge.js';
import { reconcileAfterGit } from '../../git/sync.js';
import { mergedLines } from './sync.js';
import { color, EXIT } from '../output.js';
import type { Cli } from '../cli.js';
import { STATE_DIR } from '../../board/layout.js';

/** Which board files go through our merge driver. */
export const MERGE_ATTRIBUTES = ['runs/**/*.md merge=workboard', 'runs/**/*.jsonl merge=workboard', 'audit/*.jsonl merge=workboard', 'WORK.md merge=workboard'];

/** Which board files `git diff` and `git log -p` show in words (`workboard audit-text`); the files keep every hash. */
export const DIFF_ATTRIBUTES = ['runs/*/audit.jsonl diff=workboard-audit', 'runs/*/superseded.jsonl diff=workboard-audit', 'audit/*.jsonl diff=workboard-audit'];

/** Whether a `git` command can be run at all. */
export function gitAvailable(): boolean {
  try {
    execFileSync('git', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/** Whether `dir` lies inside a git work tree. */
export function insideGitWorkTree(dir: string): boolean {
  try {
    return execFileSync('git', ['-C', dir, 'rev-parse', '--is-inside-work-tree'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim() === 'true';
  } catch {
    return false;
  }
}

/** Register the merge driver and the audit textconv in the git repository holding the board (local config, never committed). */
export function setUpGit(root: string): string {
  const bin = fileURLToPath(new URL('../../../bin/workboard.js', import.meta.url));
  const attributes = path.join(root, '.gitattributes');
  const current = existsSync(attributes) ? readFileSync(attributes, 'utf8') : '';
  const missing = [...MERGE_ATTRIBUTES, ...DIFF_ATTRIBUTES].filter((l) => !current.split('\n').includes(l));
  if (missing.length > 0) writeFileSync(attributes, `${current}${current && !current.endsWith('\n') ? '\n' : ''}${missing.join('\n')}\n`);
  const driver = `"${process.execPath}" "${bin}" merge-driver %O %A %B %P`;
  execFileSync('git', ['-C', root, 'config', 'merge.workboard.name', 'workboard: board files merged by the board rules']);
  execFileSync('git', ['-C', root, 'config', 'merge.workboard.driver', driver]);
  // git runs a textconv from the repository's top folder, and the board may lie below it.
  execFileSync('git', ['-C', root, 'config', 'diff.workboard-audit.textconv', `"${process.execPath}" "${bin}" --board "${root}" audit-text`]);
  installHooks(root, `"${process.execPath}" "${bin}" --board "${root}"`);
  keepStateOutOfCheckouts(root);
  return driver;
}

/**
 * git overwrites ignored files when a pull, merge or checkout brings the same
 * path, so a collaborator's `git add -f .work/tokens.json` would replace this
 * clone's tokens. A sparse-checkout rule keeps git from ever writing under
 * the board's `.work/` (docs/git.md "What git never brings"); what it tracks there is
 * also never read (git/tracked-state.ts). Cone mode cannot say it: named.
 */
function keepStateOutOfCheckouts(root: string): void {
  const config = (key: string) => {
    try {
      return execFileSync('git', ['-C', root, 'config', '--get', key], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
    } catch {
      return '';
    }
  };
  const prefix = execFileSync('git', ['-C', root, 'rev-parse', '--show-prefix'], { encoding: 'utf8' }).trim();
  const rule = `!/${prefix}${STATE_DIR}/`;
  if (config('core.sparseCheckoutCone') === 'true') {
    process.stderr.write(
      `note: this clone uses a cone-mode sparse checkout, which cannot leave ${prefix}${STATE_DIR}/ out; a pull could then write there (workboard never reads what git tracks there)\n`,
    );
    return;
  }
  const file = path.resolve(root, execFileSync('git', ['-C', root, 'rev-parse', '--git-path', 'info/sparse-checkout'], { encoding: 'utf8' }).trim());
  const current = existsSync(file) ? readFileSync(file, 'utf8') : '';
  const on = config('core.sparseCheckout') === 'true';
  if (!on && current.trim() !== '') {
    process.stderr.write(
      `note: ${file} holds rules while sparse checkout is off, so it was left as it is; to keep git from writing into ${prefix}${STATE_DIR}/, add ${rule} to it and run git config core.sparseCheckout true\n`,
    );
    return;
  }
  if (!current.split('\n').includes(rule)) {
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, on ? `${current}${current && !current.endsWith('\n') ? '\n' : ''}${rule}\n` : `/*\n${rule}\n`);
  }
  if (!on) execFileSync('git', ['-C', root, 'config', 'core.sparseCheckout', 'true']);
}

const HOOK_MARK = '# workboard: make runs whole after git merges or rebases by itself';

/**
 * After a `git pull`, `git merge` or rebase, runs that both sides moved are
 * made whole from one side (git-reconcile). A hook someone else wrote is
 * left alone, and said so.
 */
function installHooks(root: string, command: string): void {
  const dir = path.resolve(root, execFileSync('git', ['-C', root, 'rev-parse', '--git-path', 'hooks'], { encoding: 'utf8' }).trim());
  const hooks: Record<string, string> = {
    'post-merge': `${command} git-reconcile merge`,
    'post-rewrite': `[ "$1" = rebase ] || exit 0\n${command} git-reconcile rebase`,
  };
  mkdirSync(dir, { recursive: true });
  for (const [name, body] of Object.entries(hooks)) {
    const file = path.join(dir, name);
    if (existsSync(file) && !readFileSync(file, 'utf8').includes(HOOK_MARK)) {
      process.stderr.write(`note: ${file} is not workboard's, so it was left as it is; add this line to it: ${body.split('\n').pop()}\n`);
      continue;
    }
    writeFileSync(file, `#!/bin/sh\n${HOOK_MARK}\n${body}\n`, { mode: 0o755 });
  }
}

export function register(program: Command, cli: Cli): void {
  program
    .command('merge-driver')
    .description('git merge driver for board files: never a conflict marker; chains by the run-level rule, WORK.md as data, run files by rev (set up by workboard init --git)')
    .argument('<base>', '%O: the common ancestor')
    .argument('<ours>', '%A: our version; the result is written here')
    .argument('<theirs>', '%B: their version')
    .argument('[path]', '%P: the path in the repository')
    .addHelpText('after', '\nExample:\n  git config merge.workboard.driver "workboard merge-driver %O %A %B %P"')
    .action((base: string, ours: string, theirs: string, file?: string) => {
      const name = file ?? ours;
      const read = (f: string) => (existsSync(f) ? readFileSync(f, 'utf8') : null);
      const merged = mergeBoardFile(name, read(base), readFileSync(ours, 'utf8'), readFileSync(theirs, 'utf8'));
      writeFileSync(ours, merged);
      return cli.exit(EXIT.ok);
    });

  program
    .command('git-reconcile')
    .description('after git merged or rebased by itself: make each run both sides moved whole from one side (the hooks git-setup installs run it)')
    .argument('<how>', 'merge or rebase')
    .addHelpText('after', '\nExample:\n  workboard git-reconcile merge')
    .action(async (how: string) => {
      if (how !== 'merge' && how !== 'rebase') cli.usage(`git-reconcile expects merge or rebase, got "${how}"`);
      const board = await cli.board();
      const r = await reconcileAfterGit(board, how);
      const lines = mergedLines(r.merged, 'the other side');
      if (r.commit)
        process.stderr.write(
          `workboard: the merge was remade by the board's rules${lines.length ? `; ${lines.length} run(s) moved on both sides were kept whole from one side` : ''} (commit ${r.commit.slice(0, 8)})\n${lines.join('\n')}${lines.length ? '\n' : ''}`,
        );
      cli.exit(EXIT.ok);
    });

  program
    .command('audit-text')
    .description('an audit chain or superseded.jsonl in words, a sentence a line, no hashes: the git textconv behind git log -p (set up by workboard init --git)')
    .argument('<file>', 'the file git hands over')
    .addHelpText('after', '\nExample:\n  workboard audit-text runs/r-01jd…/audit.jsonl\n  git config diff.workboard-audit.textconv "workboard audit-text"')
    .action(async (file: string) => {
      if (!existsSync(file)) throw new BoardError('invalid', `no file ${file}`);
      const content = readFileSync(file, 'utf8');
      const lines = auditLinesIn(content);
      // Names come from the board when it is found; without one the lines are still said, by id.
      const root = (() => {
        try {
          return cli.boardRoot();
        } catch {
          return null;
        }
      })();
      process.stdout.write(fileText(content, root === null ? NO_WORDS : await boardWords(root, lines)));
      return cli.exit(EXIT.ok);
    });

  program
    .command('git-setup')
    .description('register the board merge driver and the audit textconv in this git repository (what init --git does)')
    .addHelpText('after', '\nExample:\n  workboard git-setup')
    .action(async () => {
      const root = cli.boardRoot();
      setUpGit(root);
      process.stdout.write(`${color.green('set up')} the workboard merge driver and audit textconv for ${root}\n`);
      cli.exit(EXIT.ok);
    });
}
