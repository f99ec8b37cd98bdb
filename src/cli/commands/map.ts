import type { Command } from 'commander';
import { BoardError } from '../../board/errors.js';
import { listVersions, loadVersion } from '../../board/processes.js';
import { mapModel, toMermaid, toSvg } from '../../process/map.js';
import { FULL_OFFER } from '../../protocol/offer.js';
import { EXIT } from '../output.js';
import type { Cli } from '../cli.js';

export function register(program: Command, cli: Cli): void {
  program
    .command('map')
    .description('draw a published process: Mermaid (for GitHub markdown) or a standalone SVG')
    .argument('<process>', 'the process name')
    .option('--version-number <n>', 'this published version instead of the latest')
    .option('--format <f>', 'mermaid or svg', 'mermaid')
    .addHelpText('after', '\nExample:\n  workboard map expense-approval --format svg > expense-approval.svg')
    .action(async (name: string, o: { versionNumber?: string; format: string }) => {
      if (o.format !== 'mermaid' && o.format !== 'svg') cli.usage(`--format is mermaid or svg, not "${o.format}"`);
      const board = await cli.board();
      const versions = await listVersions(board, name).catch((): number[] => []);
      if (versions.length === 0) throw new BoardError('invalid', `no published process ${name}`);
      const v = await loadVersion(board, name, o.versionNumber ? Number(o.versionNumber) : versions[versions.length - 1]!, FULL_OFFER);
      const model = mapModel(v.process);
      process.stdout.write(o.format === 'svg' ? toSvg(model) : toMermaid(model));
      cli.exit(EXIT.ok);
    });
}
