/**
 * Several `workboard` commands, one after another, in one process: the real
 * CLI (the build bin/workboard.js runs, built by `ensureBuilt`) called as its
 * `main`, each command in its own folder. A fixture of a dozen set-up commands
 * then costs one process start instead of twelve (test/support/git-clones.ts).
 * Only for setting up: what is tested runs as its own process.
 *
 *   node test/support/cli-batch.mjs '<JSON: [{ "cwd": "...", "args": [...] }, ...]>'
 *
 * Prints one JSON line: each command's stdout, in order. The first command
 * that fails ends the batch: its stderr is printed and the exit code is its own.
 */
import { loadMain } from '../../bin/cli-entry.js';

const main = await loadMain();
const commands = JSON.parse(process.argv[2] ?? '[]');
// Each command listens for a closed stdout once; a batch is not a leak.
process.stdout.setMaxListeners(0);

const write = process.stdout.write.bind(process.stdout);
const outputs = [];
for (const { cwd, args } of commands) {
  process.chdir(cwd);
  let out = '';
  process.stdout.write = (chunk) => {
    out += String(chunk);
    return true;
  };
  let code;
  try {
    code = await main(['node', 'workboard', ...args]);
  } finally {
    process.stdout.write = write;
  }
  if (code !== 0) {
    process.stderr.write(`workboard ${args.join(' ')} (in ${cwd}) exited ${code}\n${out}`);
    process.exit(code);
  }
  outputs.push(out);
}
write(`${JSON.stringify(outputs)}\n`);
