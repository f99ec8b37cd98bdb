/** The `notify` command of WORK.md: the notification as JSON on stdin; exit 0 means delivered. Killed when `signal` fires. */
import { spawn } from 'node:child_process';

export function runCommand(cmd: { command: string; args: string[] }, cwd: string, json: string, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd.command, cmd.args, { stdio: ['pipe', 'ignore', 'pipe'], cwd, signal, killSignal: 'SIGKILL' });
    let err = '';
    child.stderr.on('data', (d: Buffer) => (err = (err + d.toString()).slice(-2000)));
    child.on('error', (e) => reject(new Error(`the notify command did not start: ${e.message}`)));
    child.on('close', (code, killed) => {
      if (code === 0) resolve();
      else reject(new Error(`the notify command ${killed ? `was killed (${killed})` : `exited ${code}`}${err.trim() ? `: ${err.trim().split('\n')[0]}` : ''}`));
    });
    child.stdin.on('error', () => undefined);
    child.stdin.end(json);
  });
}
