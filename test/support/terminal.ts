/**
 * A command run under util-linux `script`, so it sees a terminal (its
 * interactive prompts): the answers are typed once the prompt is on screen.
 */
import { spawn, spawnSync } from 'node:child_process';

export const hasScript = spawnSync('script', ['--version']).status === 0;

export async function onTerminal(argv: string[], opts: { prompt: string; input: string; cwd?: string; env?: NodeJS.ProcessEnv }): Promise<{ code: number | null; out: string }> {
  const cmd = argv.map((x) => `'${x}'`).join(' ');
  const child = spawn('script', ['-qfec', cmd, '/dev/null'], { cwd: opts.cwd, stdio: ['pipe', 'pipe', 'pipe'], env: opts.env ?? process.env });
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  const closed = new Promise<number | null>((r) => child.on('close', r));
  await new Promise<void>((resolve) => {
    const t = setInterval(() => {
      if (out.includes(opts.prompt)) {
        clearInterval(t);
        resolve();
      }
    }, 20);
  });
  child.stdin.write(opts.input);
  return { code: await closed, out };
}
