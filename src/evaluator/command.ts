/**
 * The command adapter: a configured executable reads the material and the
 * questions as JSON on stdin and writes its answers as JSON on stdout
 * (docs/processes.md "Checks (check-1)"). It runs in the board folder, killed at the timeout.
 */
import { spawn } from 'node:child_process';
import type { CheckAnswer, CheckRequest } from '../engine/check.js';
import { readAnswer } from '../engine/check.js';

export interface CommandConfig {
  command: string;
  args: string[];
  model?: string;
}

const MAX_OUTPUT_BYTES = 1024 * 1024;

export async function askCommand(cfg: CommandConfig, request: CheckRequest, signal: AbortSignal, cwd: string): Promise<{ model: string; answers: CheckAnswer[] }> {
  const stdout = await run(cfg, JSON.stringify({ protocol: 'workboard-check/1', material: request.material, questions: request.questions }), signal, cwd);
  let reply: { model?: unknown; answers?: unknown };
  try {
    reply = JSON.parse(stdout) as typeof reply;
  } catch {
    throw new Error(`${cfg.command} did not write JSON: ${JSON.stringify(stdout.slice(0, 120))}`);
  }
  if (!Array.isArray(reply.answers) || reply.answers.length !== request.questions.length) {
    throw new Error(`${cfg.command} must write {"answers": [...]} with ${request.questions.length} answer(s), one per question`);
  }
  const given = reply.answers as unknown[];
  const problems: string[] = [];
  const answers: CheckAnswer[] = [];
  request.questions.forEach((q, i) => {
    const r = readAnswer(q, given[i]);
    if (r.ok) answers.push(r.answer);
    else problems.push(`answer ${i + 1} (${q.kind}): ${r.problem}`);
  });
  if (problems.length > 0) throw new Error(`${cfg.command}: ${problems.join('; ')}`);
  const model = typeof reply.model === 'string' && reply.model !== '' ? reply.model : (cfg.model ?? cfg.command);
  return { model, answers };
}

function run(cfg: CommandConfig, input: string, signal: AbortSignal, cwd: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(cfg.command, cfg.args, { cwd, stdio: ['pipe', 'pipe', 'pipe'], signal });
    const out: Buffer[] = [];
    let size = 0;
    let err = '';
    child.stdout.on('data', (b: Buffer) => {
      size += b.length;
      if (size > MAX_OUTPUT_BYTES) child.kill('SIGKILL');
      else out.push(b);
    });
    child.stderr.on('data', (b: Buffer) => {
      if (err.length < 2000) err += b.toString('utf8');
    });
    child.on('error', (e) => reject(new Error(`${cfg.command}: ${e.message}`)));
    child.on('close', (code, sig) => {
      if (size > MAX_OUTPUT_BYTES) reject(new Error(`${cfg.command} wrote more than ${MAX_OUTPUT_BYTES} bytes`));
      else if (code === 0) resolve(Buffer.concat(out).toString('utf8'));
      else reject(new Error(`${cfg.command} exited ${code ?? sig}${err.trim() ? `: ${err.trim().slice(0, 300)}` : ''}`));
    });
    // A command that ignores stdin closes the pipe early; that is not an error of ours.
    child.stdin.on('error', () => {});
    child.stdin.end(input);
  });
}
