/** The `notify` command of WORK.md: the notification as JSON on stdin; exit 0 means delivered. */
import { spawn } from 'node:child_process';

const TIMEOUT_MS = 30_000;

export function runCommand(cmd: { command: string; args: string[] }, cwd: string, json: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd.command, cmd.args, { stdio: ['pipe', 'ignore', 'pipe'], cwd });
    let err = '';
    const timer = setTimeout(() => child.kill('SIGKILL'), TIMEOUT_MS);
    child.stderr.on('data', (d: Buffer) => (err = (err + d.toString()).slice(-2000)));
    child.on('error', (e) => {
      clearTimeout(timer);
      reject(new Error(`the notify command did not start: ${e.message}`));
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      if (code === 0) resolve();
      else reject(new Error(`the notify command ${signal ? `was killed (${signal})` : `exited ${code}`}${err.trim() ? `: ${err.trim().split('\n')[0]}` : ''}`));
    });
    child.stdin.on('error', () => undefined);
    child.stdin.end(json);
  });
}
