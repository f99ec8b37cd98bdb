import path from 'node:path';
import { createInterface } from 'node:readline/promises';
import type { Command } from 'commander';
import { missingRoles, publish } from '../../board/processes.js';
import { loadProcess } from '../../process/load.js';
import { offerFor } from '../../service/context.js';
import { readFileSync } from 'node:fs';
import { color, EXIT, printJson } from '../output.js';
import type { Cli } from '../cli.js';

function parseRoles(pairs: string[], cli: Cli): Record<string, string> {
  const roles: Record<string, string> = {};
  for (const p of pairs) {
    const m = /^([^=]+)=(.+)$/.exec(p);
    if (!m) cli.usage(`--role expects role=group, got "${p}"`);
    roles[m[1]!.trim()] = m[2]!.trim();
  }
  return roles;
}

/** On a terminal, ask for each role that has no group yet. */
async function promptRoles(folder: string, given: Record<string, string>, cli: Cli): Promise<Record<string, string>> {
  if (!process.stdin.isTTY || !process.stdout.isTTY || cli.json()) return given;
  let text: string;
  try {
    text = readFileSync(path.join(folder, 'PROCESS.md'), 'utf8');
  } catch {
    return given;
  }
  const board = await cli.board();
  const loaded = loadProcess(text, offerFor(board.manifest));
  if (!loaded.ok) return given;
  const missing = await missingRoles(board, loaded.process, given);
  if (missing.length === 0) return given;
  const groups = Object.keys(board.manifest.groups);
  const rl = createInterface({ input: process.stdin, output: process.stdout });
  const out = { ...given };
  try {
    for (const role of missing) {
      const answer = (await rl.question(`Group for role "${role}"${groups.length ? ` (${groups.join(', ')})` : ''}: `)).trim();
      if (answer) out[role] = answer;
    }
  } finally {
    rl.close();
  }
  return out;
}

export function register(program: Command, cli: Cli): void {
  program
    .command('publish')
    .description('publish a process folder as a new immutable version (nothing new when the content is unchanged)')
    .argument('<folder>', 'the folder holding PROCESS.md; its name must equal the process name')
    .option('--role <role=group>', 'map a role name used in person: to a board group (repeatable)', (v: string, acc: string[]) => [...acc, v], [] as string[])
    .addHelpText('after', '\nExample:\n  workboard publish processes/expense-approval --role finance-approver=finance')
    .action(async (folder: string, opts: { role: string[] }) => {
      const roles = await promptRoles(folder, parseRoles(opts.role, cli), cli);
      const board = await cli.board();
      const r = await publish(board, { folder, roles, ...cli.author(), offer: offerFor(board.manifest) });
      if (cli.json()) printJson({ ok: true, data: r });
      else {
        const what = r.created ? color.green(`published ${r.name} v${r.version}`) : `${r.name} v${r.version} is already this content; nothing new published`;
        process.stdout.write(`${what}\n  hash     sha256:${r.hash}\n`);
        for (const [role, group] of Object.entries(r.roles)) process.stdout.write(`  role     ${role} → group ${group}\n`);
        if (r.requires) process.stdout.write(`  requires ${r.requires.systems.join(', ')} ${color.dim('(connect these before running it)')}\n`);
      }
      cli.exit(EXIT.ok);
    });
}
