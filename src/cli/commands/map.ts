import { existsSync, promises as fs, statSync } from 'node:fs';
import path from 'node:path';
import type { Command } from 'commander';
import { Board } from '../../board/board.js';
import { BoardError } from '../../board/errors.js';
import { listVersions, loadVersion } from '../../board/processes.js';
import { issueText } from '../../core/issues.js';
import { loadDraft } from '../../map/draft.js';
import { mapGraph, processMapSvg, toMermaid } from '../../map/index.js';
import { FULL_OFFER, type Offer } from '../../protocol/offer.js';
import { offerFor } from '../../service/context.js';
import { EXIT } from '../output.js';
import type { Cli } from '../cli.js';

/** The board in reach, if any: a draft is checked against what it offers and drawn with its groups. */
async function boardInReach(cli: Cli): Promise<Board | undefined> {
  try {
    return await Board.open(cli.boardRoot());
  } catch {
    return undefined;
  }
}

/** A draft: a path (with a slash, or a file name ending .md) to a PROCESS.md or a folder holding one. */
function draftFile(arg: string): string | undefined {
  if (!(/[\\/]/.test(arg) || arg.endsWith('.md') || arg === '.') || !existsSync(arg)) return undefined;
  const file = statSync(arg).isDirectory() ? path.join(arg, 'PROCESS.md') : arg;
  return existsSync(file) ? file : undefined;
}

export function register(program: Command, cli: Cli): void {
  program
    .command('map')
    .description('draw a process: a published one by name, or a draft PROCESS.md (file or folder) with the problems validate finds marked; Mermaid or SVG')
    .argument('<process>', 'a published process name, or a path to a PROCESS.md or its folder')
    .option('--version-number <n>', 'this published version instead of the latest')
    .option('--format <f>', 'mermaid or svg', 'mermaid')
    .addHelpText('after', '\nExamples:\n  workboard map expense-approval --format svg > expense-approval.svg\n  workboard map processes/expense-approval --format svg > draft.svg')
    .action(async (name: string, o: { versionNumber?: string; format: string }) => {
      if (o.format !== 'mermaid' && o.format !== 'svg') cli.usage(`--format is mermaid or svg, not "${o.format}"`);
      const file = draftFile(name);
      if (file) {
        const board = await boardInReach(cli);
        const offer: Offer = board ? offerFor(board.manifest) : FULL_OFFER;
        const draft = loadDraft(await fs.readFile(file, 'utf8'), offer);
        for (const p of draft.issues) process.stderr.write(`${file}:${p.line ?? 1}:${p.col ?? 1}: ${issueText(p)}\n`);
        const opts = { problems: draft.problems, ...(board ? { lanes: { groups: board.manifest.groups } } : {}) };
        process.stdout.write(o.format === 'svg' ? await processMapSvg({ process: draft.process }, opts) : toMermaid(mapGraph(draft.process, {}, draft.problems)));
        cli.exit(draft.problems.length ? EXIT.refused : EXIT.ok);
      }
      const board = await cli.board();
      const versions = await listVersions(board, name).catch((): number[] => []);
      if (versions.length === 0) throw new BoardError('invalid', `no published process ${name} (and no PROCESS.md at that path)`);
      const v = await loadVersion(board, name, o.versionNumber ? Number(o.versionNumber) : versions[versions.length - 1]!, FULL_OFFER);
      process.stdout.write(
        o.format === 'svg' ? await processMapSvg(v, { lanes: { groups: board.manifest.groups } }) : toMermaid(mapGraph(v.process, { roles: v.roles, groups: board.manifest.groups })),
      );
      cli.exit(EXIT.ok);
    });
}
