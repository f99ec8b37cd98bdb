/**
 * The protocol's tools from the command line, for people, operators and
 * scripts: each command is one service call as the `--as` identity. With
 * --json it prints exactly the tool's result object.
 */
import { randomUUID } from 'node:crypto';
import { createInterface } from 'node:readline/promises';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { Command } from 'commander';
import { BoardError } from '../../board/errors.js';
import type { Actor } from '../../engine/types.js';
import { resolveActor } from '../../service/identity.js';
import { Service, type ToolResult } from '../../service/service.js';
import { FULL_OFFER } from '../../process/profiles.js';
import { loadVersion } from '../../board/processes.js';
import { mapModel, toMermaid } from '../../process/map.js';
import { color, exitFor, printJson } from '../output.js';
import { progress } from '../progress.js';
import type { Cli } from '../cli.js';

type Obj = Record<string, unknown>;

/** `k=v`: v is read as JSON when it parses (numbers, booleans, lists), else as a string. */
export function parsePairs(pairs: string[], what: string, cli: Cli): Obj {
  const out: Obj = {};
  for (const p of pairs) {
    const i = p.indexOf('=');
    if (i <= 0) cli.usage(`${what} expects key=value, got "${p}"`);
    const raw = p.slice(i + 1);
    let v: unknown = raw;
    try {
      v = JSON.parse(raw);
    } catch {
      // a plain string
    }
    out[p.slice(0, i)] = v;
  }
  return out;
}

function readJson(file: string, cli: Cli): Obj {
  try {
    const v = JSON.parse(readFileSync(file, 'utf8')) as unknown;
    if (typeof v !== 'object' || v === null || Array.isArray(v)) cli.usage(`${file} must hold a JSON object`);
    return v as Obj;
  } catch (e) {
    if (e instanceof Error && e.name === 'CliExit') throw e;
    return cli.usage(`cannot read ${file}: ${(e as Error).message}`);
  }
}

const collect = (v: string, acc: string[]) => [...acc, v];

/**
 * One tool call as the CLI's identity. Reads that are for anyone (`anyone`)
 * also work for an identity WORK.md does not declare.
 */
export async function call(cli: Cli, tool: string, args: Obj, human: (data: Obj) => unknown, anyone = false): Promise<never> {
  const board = await cli.board();
  const who = resolveActor(board.manifest, cli.actor());
  if (!who.ok && !anyone) throw new BoardError('invalid', `${who.message}; pass --as <email-or-agent-id> or set WORKBOARD_AS`);
  const actor: Actor = who.ok ? who.actor : { kind: 'person', email: cli.actor(), operator: false };
  const shown = progress('reading runs');
  const service = await Service.open(board, { onIndexProgress: shown.tick });
  const result: ToolResult = await service.call(tool, args, actor);
  shown.done();
  if (cli.json()) printJson(result);
  else if (result.ok) await human(result.data as Obj);
  else {
    process.stderr.write(`${color.red(`${result.error.code}`)}: ${result.error.message}\n`);
    for (const i of result.error.issues ?? []) process.stderr.write(`  ${i}\n`);
  }
  return cli.exit(exitFor(result));
}

function printRun(v: Obj): void {
  const run = v.run as Obj;
  const state = String(run.state);
  const paint = state === 'active' ? color.green : state === 'waiting' ? color.yellow : color.dim;
  process.stdout.write(`${color.bold(String(run.id))}  ${run.process} v${run.version}  ${paint(state)}${run.outcome ? ` (${run.outcome})` : ''}${run.mode === 'test' ? color.yellow('  TEST') : ''}\n`);
  process.stdout.write(`  started ${run.startedAt} by ${run.startedBy}, updated ${run.updatedAt}\n`);
  const ended = run.ended as Obj | null;
  if (ended) process.stdout.write(`  ended ${ended.at} by ${ended.by}${ended.note ? `: ${ended.note}` : ''}\n`);
  const data = v.data as { steps: Record<string, Obj> };
  for (const s of v.steps as Obj[]) {
    const d = data.steps[String(s.id)];
    const st = s.state === null ? color.dim('·') : String(s.state);
    const due = s.due ? `  due ${s.due}${s.overdue ? color.red(' OVERDUE') : ''}` : '';
    process.stdout.write(`  ${String(s.id).padEnd(24)} ${String(s.kind).padEnd(10)} ${st}${due}\n`);
    if (d) printCompletion(d, '      ');
    for (const [i, h] of (((d?.history as Obj[] | undefined) ?? []).entries())) {
      process.stdout.write(color.dim(`      earlier attempt ${i + 1}:\n`));
      printCompletion(h, '        ');
    }
  }
  for (const w of v.workItems as Obj[]) {
    const to = w.assignedTo as Obj;
    process.stdout.write(`  ${color.yellow('work item')} ${w.id} on ${w.stepId} for ${to.group ? `group ${to.group}` : to.person}: ${(w.decide as Obj).decisions}${needs(w)}\n`);
    const esc = w.escalation as Obj | null;
    if (esc) process.stdout.write(color.dim(`      escalated by ${esc.by}: ${esc.note}\n`));
  }
}

/** One completion: who and when, the decision or route, outputs, summary, note, evidence with its hash. */
function printCompletion(d: Obj, indent: string): void {
  const line = (s: string) => process.stdout.write(color.dim(`${indent}${s}\n`));
  if (d.by) line(`by ${d.by} at ${d.at}${d.decision ? `: ${d.decision}` : ''}${d.next ? ` → ${d.next}${d.reason ? ` (${d.reason})` : ''}` : ''}`);
  if (d.output && Object.keys(d.output as Obj).length > 0) line(`output ${JSON.stringify(d.output)}`);
  if (d.summary) line(String(d.summary).split('\n')[0]!);
  if (d.note) line(`note: ${d.note}`);
  for (const e of (d.evidence as Obj[] | undefined) ?? []) line(`evidence ${e.kind} ${e.ref}${e.sha256 ? ` sha256:${e.sha256}` : ''}`);
}

/** What a work item needs beyond the decision: output fields, evidence kinds, a route. */
function needs(w: Obj): string {
  const parts: string[] = [];
  if (w.output) parts.push(`output ${Object.keys(w.output as Obj).join(', ')}`);
  if (w.evidence) parts.push(`evidence ${(w.evidence as string[]).join(', ')}`);
  if (w.next) parts.push(`next one of ${(w.next as Obj[]).map((r) => r.to).join(', ')}`);
  return parts.length ? `; completing needs ${parts.join('; ')}` : '';
}

export function register(program: Command, cli: Cli): void {
  program
    .command('start')
    .description('start a run of a published process')
    .argument('<process>', 'the process name')
    .option('--input <key=value>', 'an input (repeatable); the value is read as JSON when it parses', collect, [])
    .option('--inputs-file <file>', 'a JSON object of inputs')
    .option('--version-number <n>', 'pin this published version instead of the latest')
    .option('--test', 'a test run: agents must cause no real effects')
    .option('--request-id <id>', 'make the call idempotent (default: a new UUID)')
    .addHelpText('after', '\nExample:\n  workboard start expense-approval --input claimant=mira@example.com --input amount=120 --input receiptUrl=https://…')
    .action(async (name: string, o: { input: string[]; inputsFile?: string; versionNumber?: string; test?: boolean; requestId?: string }) => {
      const inputs = { ...(o.inputsFile ? readJson(o.inputsFile, cli) : {}), ...parsePairs(o.input, '--input', cli) };
      const args: Obj = { process: name, inputs, mode: o.test ? 'test' : 'live', requestId: o.requestId ?? randomUUID() };
      if (o.versionNumber) args.version = Number(o.versionNumber);
      await call(cli, 'start_run', args, printRun);
    });

  program
    .command('describe')
    .description('what this server offers: protocol version, profiles (check-1 only while an evaluator is configured), tools and limits')
    .addHelpText('after', '\nExample:\n  workboard describe --json')
    .action(async () =>
      call(
        cli,
        'describe',
        {},
        (d) => {
          process.stdout.write(`${d.protocol} ${d.version}  profiles: ${(d.profiles as string[]).join(', ') || 'none'}\n`);
          process.stdout.write(`  lease ${d.leaseSeconds} s, uploads up to ${d.maxUploadBytes} bytes\n`);
          for (const [k, v] of Object.entries(d.limits as Obj)) process.stdout.write(`  ${k.padEnd(16)} ${v === null ? 'none' : String(v)}\n`);
          process.stdout.write(`  tools ${(d.tools as string[]).join(', ')}\n`);
        },
        true,
      ),
    );

  program
    .command('runs')
    .description('list runs, newest first')
    .option('--process <name>', 'only this process')
    .option('--state <state>', 'active, waiting, ended or cancelled')
    .option('--input <key=value>', 'only runs whose input equals this (repeatable)', collect, [])
    .option('--limit <n>', 'page size (1–100)', '20')
    .option('--cursor <c>', 'the next page, from the previous output')
    .addHelpText('after', '\nExample:\n  workboard runs --process expense-approval --state waiting')
    .action(async (o: { process?: string; state?: string; input: string[]; limit: string; cursor?: string }) => {
      const args: Obj = { limit: Number(o.limit) };
      if (o.process) args.process = o.process;
      if (o.state) args.state = o.state;
      if (o.input.length) args.inputs = parsePairs(o.input, '--input', cli);
      if (o.cursor) args.cursor = o.cursor;
      await call(cli, 'list_runs', args, (d) => {
        for (const r of d.items as Obj[]) process.stdout.write(`${r.id}  ${String(r.process).padEnd(24)} ${String(r.state).padEnd(9)} ${r.outcome ?? ''}  ${r.startedAt}\n`);
        if (d.nextCursor) process.stdout.write(color.dim(`more: --cursor ${d.nextCursor}\n`));
      });
    });

  program
    .command('show')
    .description('a run: every step with its state, who, when, outputs, evidence and open work items')
    .argument('<run>', 'the run id')
    .option('--map', 'draw the run on its process map (Mermaid), each step marked with its state')
    .addHelpText('after', '\nExample:\n  workboard show r-01jd… --map')
    .action(async (runId: string, o: { map?: boolean }) =>
      call(cli, 'get_run', { runId }, async (v) => {
        if (!o.map) return printRun(v);
        const run = v.run as Obj;
        const board = await cli.board();
        const p = await loadVersion(board, String(run.process), Number(run.version), FULL_OFFER);
        const states = Object.fromEntries((v.steps as { id: string; state: string | null }[]).map((s) => [s.id, s.state]));
        process.stdout.write(toMermaid(mapModel(p.process), states));
      }),
    );

  program
    .command('inbox')
    .description('my open work items, oldest first (as a person), or ready steps (as an agent)')
    .option('--process <name>', 'only this process')
    .option('--limit <n>', 'page size (1–100)', '20')
    .addHelpText('after', '\nExample:\n  workboard inbox --as mira@example.com')
    .action(async (o: { process?: string; limit: string }) => {
      const args: Obj = { limit: Number(o.limit) };
      if (o.process) args.process = o.process;
      await call(cli, 'get_work', args, (d) => {
        const items = d.items as Obj[];
        if (items.length === 0) process.stdout.write('nothing waiting for you\n');
        for (const i of items) {
          const w = i.workItem as Obj | undefined;
          if (w) process.stdout.write(`${i.runId}  ${w.id}  ${w.stepId} (${w.kind})${i.mode === 'test' ? color.yellow(' TEST') : ''}  due ${w.due ?? '-'}\n  ${String(w.text).split('\n')[0]}\n  decide: ${(w.decide as Obj).decisions}${needs(w)}\n`);
          else process.stdout.write(`${i.runId}  ${i.stepId}  ready since ${i.readySince}${i.mode === 'test' ? color.yellow(' TEST') : ''}\n`);
        }
      });
    });

  program
    .command('decide')
    .description('decide a work item: approved, rejected, completed, returned or failed')
    .argument('<run>', 'the run id')
    .argument('<work-item>', 'the work item id')
    .argument('[decision]', 'approved | rejected | completed | returned | failed (asked for on a terminal when left out)')
    .option('--note <text>', 'why (required to reject, return or fail)')
    .option('--output <key=value>', 'an output field (repeatable)', collect, [])
    .option('--output-file <file>', 'a JSON object of output fields')
    .option('--evidence <kind:ref>', 'file:<path>, file:<upload id> or link:<url> (repeatable)', collect, [])
    .option('--summary <text>', 'what was done')
    .option('--next <step>', 'the chosen route, when the step offers routes')
    .option('--reason <text>', 'why that route')
    .option('--request-id <id>', 'make the call idempotent (default: a new UUID)')
    .addHelpText('after', '\nExample:\n  workboard decide r-01jd… w-01jd… rejected --note "Receipt is missing" --as mira@example.com')
    .action(async (runId: string, workItemId: string, given: string | undefined, o: Obj) => {
      const askable = process.stdin.isTTY === true && !cli.json();
      if (given === undefined && !askable) cli.usage('give a decision (approved, rejected, completed, returned or failed); it is asked for only on a terminal');
      const board = await cli.board();
      const who = resolveActor(board.manifest, cli.actor());
      if (!who.ok) throw new BoardError('invalid', `${who.message}; pass --as <email>`);
      const view = await (await Service.open(board)).call('get_run', { runId }, who.actor);
      if (!view.ok) {
        if (cli.json()) printJson(view);
        else process.stderr.write(`${view.error.code}: ${view.error.message}\n`);
        return cli.exit(exitFor(view));
      }
      const item = ((view.data as Obj).workItems as Obj[]).find((w) => w.id === workItemId);
      let decision = given;
      if (decision === undefined) {
        if (!item) throw new BoardError('invalid', `no open work item ${workItemId} on run ${runId}`);
        Object.assign(o, await ask(view.data as Obj, item));
        decision = o.decision as string;
      }
      const args: Obj = { runId, workItemId, snapshot: item ? item.snapshot : 'none', decision, requestId: (o.requestId as string | undefined) ?? randomUUID() };
      const output = { ...(o.outputFile ? readJson(o.outputFile as string, cli) : {}), ...parsePairs(o.output as string[], '--output', cli) };
      if (Object.keys(output).length > 0 || (decision === 'completed' && !o.outputFile)) args.output = output;
      const evidence = await evidenceArgs(o.evidence as string[], cli);
      if (evidence.length) args.evidence = evidence;
      for (const k of ['note', 'summary', 'next', 'reason']) if (o[k] !== undefined) args[k] = o[k];
      await call(cli, 'decide', args, printRun);
    });

  program
    .command('cancel')
    .description('cancel an active or waiting run (operators)')
    .argument('<run>', 'the run id')
    .requiredOption('--reason <text>', 'why')
    .addHelpText('after', '\nExample:\n  workboard cancel r-01jd… --reason "Duplicate claim" --as ops@example.com')
    .action(async (runId: string, o: { reason: string }) => call(cli, 'cancel', { runId, reason: o.reason, requestId: randomUUID() }, printRun));

  program
    .command('event')
    .description('send a named event to a run (agents and operators)')
    .argument('<run>', 'the run id')
    .argument('<name>', 'the event name a wait_for step waits on')
    .option('--data-file <file>', 'a JSON object carried as the event data')
    .addHelpText('after', '\nExample:\n  workboard event r-01jd… release-tagged --data-file tag.json --as reviewer')
    .action(async (runId: string, name: string, o: { dataFile?: string }) => {
      const args: Obj = { runId, name, requestId: randomUUID() };
      if (o.dataFile) args.data = readJson(o.dataFile, cli);
      await call(cli, 'send_event', args, (d) => process.stdout.write(d.consumedBy ? `consumed by ${d.consumedBy}\n` : 'held until a wait for it is ready\n'));
    });

  program
    .command('upload')
    .description('store a file for file evidence; prints its id')
    .argument('<file>', 'the file to store')
    .option('--content-type <type>', 'its media type', 'application/octet-stream')
    .addHelpText('after', '\nExample:\n  workboard upload report.pdf --content-type application/pdf --as reviewer')
    .action(async (file: string, o: { contentType: string }) => {
      let bytes: Buffer;
      try {
        bytes = readFileSync(file);
      } catch (e) {
        return cli.usage(`cannot read ${file}: ${(e as Error).message}`);
      }
      await call(cli, 'upload', { fileName: path.basename(file), contentType: o.contentType, contentBase64: bytes.toString('base64'), requestId: randomUUID() }, (d) =>
        process.stdout.write(`${d.id}  sha256:${d.sha256}  ${d.bytes} bytes\n`),
      );
    });

  // ---- agents without MCP: the loop for scripts and tests ----

  program
    .command('work')
    .description('ready steps I may claim (as an agent), oldest first, each with its claim call')
    .option('--process <name>', 'only this process')
    .option('--limit <n>', 'page size (1–100)', '20')
    .addHelpText('after', '\nExample:\n  workboard work --as reviewer --json')
    .action(async (o: { process?: string; limit: string }) =>
      call(cli, 'get_work', { limit: Number(o.limit), ...(o.process ? { process: o.process } : {}) }, (d) => {
        for (const i of d.items as Obj[]) process.stdout.write(`${i.runId}  ${i.stepId ?? (i.workItem as Obj | undefined)?.stepId}  ${i.readySince ?? ''}\n`);
      }),
    );

  program
    .command('claim')
    .description('claim a ready agent step; prints the token (keep it for renew, submit, escalate)')
    .argument('<run>', 'the run id')
    .argument('<step>', 'the step id')
    .option('--request-id <id>', 'make the call idempotent (default: a new UUID)')
    .addHelpText('after', '\nExample:\n  TOKEN=$(workboard claim r-01jd… review_claim --as reviewer --json | jq -r .data.token)')
    .action(async (runId: string, stepId: string, o: { requestId?: string }) =>
      call(cli, 'claim', { runId, stepId, requestId: o.requestId ?? randomUUID() }, (d) => process.stdout.write(`${d.token}\n${color.dim(`expires ${d.expiresAt}`)}\n`)),
    );

  program
    .command('renew')
    .description('extend a claim; prints the new token (the old one stops working)')
    .argument('<token>', 'the current token')
    .option('--progress <text>', 'a note of what is done so far')
    .addHelpText('after', '\nExample:\n  workboard renew "$TOKEN" --progress "read the receipt" --as reviewer')
    .action(async (token: string, o: { progress?: string }) =>
      call(cli, 'renew', { token, ...(o.progress ? { progress: o.progress } : {}), requestId: randomUUID() }, (d) => process.stdout.write(`${d.token}\n${color.dim(`expires ${d.expiresAt}`)}\n`)),
    );

  program
    .command('submit')
    .description('submit a claimed step: output, evidence, summary, and next + reason when the step offers routes')
    .argument('<token>', 'the claim token')
    .option('--output <key=value>', 'an output field (repeatable)', collect, [])
    .option('--output-file <file>', 'a JSON object of output fields')
    .option('--evidence <kind:ref>', 'file:<path>, file:<upload id> or link:<url> (repeatable)', collect, [])
    .requiredOption('--summary <text>', 'what you did, found and left undone')
    .option('--next <step>', 'the chosen route')
    .option('--reason <text>', 'why that route')
    .addHelpText('after', '\nExample:\n  workboard submit "$TOKEN" --output withinPolicy=true --output notes=ok --evidence link:https://… --summary "Checked." --next approve --reason "in policy" --as reviewer')
    .action(async (token: string, o: Obj) => {
      const args: Obj = { token, output: { ...(o.outputFile ? readJson(o.outputFile as string, cli) : {}), ...parsePairs(o.output as string[], '--output', cli) }, summary: o.summary, requestId: randomUUID() };
      const evidence = await evidenceArgs(o.evidence as string[], cli);
      if (evidence.length) args.evidence = evidence;
      for (const k of ['next', 'reason']) if (o[k] !== undefined) args[k] = o[k];
      await call(cli, 'submit', args, printRun);
    });

  program
    .command('escalate')
    .description('hand a claimed step to a person with a note')
    .argument('<token>', 'the claim token')
    .requiredOption('--note <text>', 'what blocks you')
    .addHelpText('after', '\nExample:\n  workboard escalate "$TOKEN" --note "The receipt is unreadable" --as reviewer')
    .action(async (token: string, o: { note: string }) => call(cli, 'escalate', { token, note: o.note, requestId: randomUUID() }, printRun));
}

/**
 * `file:<path>` (uploaded first), `file:<upload id>` or `link:<url>` items.
 * A local file is stored through the `upload` tool as the same identity.
 */
async function evidenceArgs(items: string[], cli: Cli): Promise<{ kind: string; ref: string }[]> {
  const out: { kind: string; ref: string }[] = [];
  for (const e of items) {
    const m = /^(file|link):(.+)$/.exec(e);
    if (!m) cli.usage(`--evidence expects file:<path>, file:<upload id> or link:<url>, got "${e}"`);
    const ref = m[2]!;
    if (m[1] === 'file' && !/^f-[0-9a-f]{32}$/.test(ref)) {
      let bytes: Buffer;
      try {
        bytes = readFileSync(ref);
      } catch (err) {
        return cli.usage(`--evidence file:${ref}: ${(err as Error).message}`);
      }
      const board = await cli.board();
      const who = resolveActor(board.manifest, cli.actor());
      if (!who.ok) throw new BoardError('invalid', who.message);
      const up = await (await Service.open(board)).call('upload', { fileName: path.basename(ref), contentType: 'application/octet-stream', contentBase64: bytes.toString('base64'), requestId: randomUUID() }, who.actor);
      if (!up.ok) throw new BoardError('invalid', `uploading ${ref}: ${up.error.message}`, (up.error.issues ?? []).map((i) => ({ path: '', message: i })));
      out.push({ kind: 'file', ref: (up.data as { id: string }).id });
    } else out.push({ kind: m[1]!, ref });
  }
  return out;
}

/**
 * On a terminal: show the step, the run data a person needs and the allowed
 * decisions, then ask for the decision and what it requires.
 */
async function ask(view: Obj, item: Obj): Promise<Obj> {
  const rl = createInterface({ input: process.stdin, terminal: false });
  // Lines typed ahead are queued by the iterator, so no answer is lost between questions.
  const lines = rl[Symbol.asyncIterator]();
  const q = async (prompt: string) => {
    process.stdout.write(prompt);
    const r = await lines.next();
    if (r.done) throw new BoardError('invalid', 'input ended before the decision was complete; nothing was decided');
    return String(r.value).trim();
  };
  try {
    const run = view.run as Obj;
    const data = view.data as { inputs: Obj; steps: Record<string, Obj> };
    process.stdout.write(`${color.bold(`${run.process} · ${item.stepId} (${item.kind})`)}${run.mode === 'test' ? color.yellow('  TEST RUN') : ''}\n${String(item.text).trim()}\n\n`);
    process.stdout.write(`${color.dim('inputs')}  ${JSON.stringify(data.inputs)}\n`);
    for (const [id, d] of Object.entries(data.steps)) {
      const shown = { ...(d.output ? { output: d.output } : {}), ...(d.decision ? { decision: d.decision } : {}), ...(d.note ? { note: d.note } : {}), ...(d.summary ? { summary: d.summary } : {}) };
      if (Object.keys(shown).length) process.stdout.write(`${color.dim(id)}  ${JSON.stringify(shown)}\n`);
    }
    const decisions = (item.decide as Obj).decisions as string[];
    let decision = '';
    while (!decisions.includes(decision)) decision = await q(`\nDecision (${decisions.join(', ')}): `);
    const out: Obj = { decision };
    if (decision === 'rejected' || decision === 'returned' || decision === 'failed') {
      let note = '';
      while (note === '') note = await q('Note (why): ');
      out.note = note;
    }
    if (decision === 'completed') {
      const fields = (item.output as Obj | null) ?? {};
      const output: string[] = [];
      for (const name of Object.keys(fields)) output.push(`${name}=${await q(`${name} (${JSON.stringify(fields[name])}): `)}`);
      out.output = output;
      const ev = await q('Evidence (file:<id> or link:<url>, comma-separated, empty for none): ');
      out.evidence = ev === '' ? [] : ev.split(',').map((x) => x.trim());
      const routes = item.next as { to: string; when?: string }[] | null;
      if (routes) {
        let next = '';
        while (!routes.some((r) => r.to === next)) next = await q(`Next (${routes.map((r) => r.to + (r.when ? ` = ${r.when}` : '')).join('; ')}): `);
        out.next = next;
        out.reason = await q('Reason: ');
      }
      const summary = await q('Summary (optional): ');
      if (summary) out.summary = summary;
    }
    return out;
  } finally {
    rl.close();
  }
}

