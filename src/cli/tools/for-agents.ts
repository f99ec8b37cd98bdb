/**
 * The commands agents and scripts use without MCP: what the server offers,
 * starting a run, and the loop of work, claim, renew, submit or escalate,
 * with uploads for file evidence and events for runs that wait on them.
 */
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import type { Command } from 'commander';
import type { Cli } from '../cli.js';
import { collect, evidenceArgs, fieldsFrom, mediaTypeOf, readBytes, readJson } from './args.js';
import { call } from './call.js';
import { printDescription, printEventResult, printLease, printRun, printStarted, printUpload, printWork } from './render.js';
import type { RunView, ToolArgs } from './views.js';

export function start(program: Command, cli: Cli): void {
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
      const inputs = fieldsFrom(o.inputsFile, o.input, '--input', cli);
      const args: ToolArgs = { process: name, inputs, mode: o.test ? 'test' : 'live', requestId: o.requestId ?? randomUUID() };
      if (o.versionNumber) args.version = Number(o.versionNumber);
      await call(cli, 'start_run', args, (v: RunView) => printStarted(cli, v));
    });
}

export function describe(program: Command, cli: Cli): void {
  program
    .command('describe')
    .description('what this server offers: protocol version, profiles (check-1 only while an evaluator is configured), tools and limits')
    .addHelpText('after', '\nExample:\n  workboard describe --json')
    .action(async () => call(cli, 'describe', {}, printDescription, true));
}

export function event(program: Command, cli: Cli): void {
  program
    .command('event')
    .description('send a named event to a run (agents and operators)')
    .argument('<run>', 'the run id')
    .argument('<name>', 'the event name a wait_for step waits on')
    .option('--data-file <file>', 'a JSON object carried as the event data')
    .addHelpText('after', '\nExample:\n  workboard event r-01jd… release-tagged --data-file tag.json --as reviewer')
    .action(async (runId: string, name: string, o: { dataFile?: string }) => {
      const args: ToolArgs = { runId, name, requestId: randomUUID() };
      if (o.dataFile) args.data = readJson(o.dataFile, cli);
      await call(cli, 'send_event', args, printEventResult);
    });
}

export function upload(program: Command, cli: Cli): void {
  program
    .command('upload')
    .description('store a file for file evidence; prints its id')
    .argument('<file>', 'the file to store')
    .option('--content-type <type>', 'its media type (default: from the file name, else application/octet-stream)')
    .addHelpText('after', '\nExample:\n  workboard upload report.pdf --content-type application/pdf --as reviewer')
    .action(async (file: string, o: { contentType?: string }) => {
      const bytes = readBytes(file, `cannot read ${file}`, cli);
      await call(
        cli,
        'upload',
        { fileName: path.basename(file), contentType: o.contentType ?? (await mediaTypeOf(file)), contentBase64: bytes.toString('base64'), requestId: randomUUID() },
        printUpload,
      );
    });
}

export function work(program: Command, cli: Cli): void {
  program
    .command('work')
    .description('ready steps I may claim (as an agent), oldest first, each with its claim call')
    .option('--process <name>', 'only this process')
    .option('--limit <n>', 'page size (1–100)', '20')
    .addHelpText('after', '\nExample:\n  workboard work --as reviewer --json')
    .action(async (o: { process?: string; limit: string }) => call(cli, 'get_work', { limit: Number(o.limit), ...(o.process ? { process: o.process } : {}) }, printWork));
}

export function claim(program: Command, cli: Cli): void {
  program
    .command('claim')
    .description('claim a ready agent step; prints only the token on stdout (keep it for renew, submit, escalate) and its request id on stderr')
    .argument('<run>', 'the run id')
    .argument('<step>', 'the step id')
    .option('--request-id <id>', 'make the call idempotent (default: a new UUID); the same id again gives back the same token')
    .addHelpText(
      'after',
      "\nExamples:\n  TOKEN=$(workboard claim r-01jd… review_claim --as reviewer)\n  workboard claim r-01jd… review_claim --request-id 5b1f…   # a lost token: repeat the first claim's request id",
    )
    .action(async (runId: string, stepId: string, o: { requestId?: string }) => {
      const requestId = o.requestId ?? randomUUID();
      process.stderr.write(`request id ${requestId} (a lost token comes back with: workboard claim ${runId} ${stepId} --request-id ${requestId})\n`);
      await call(cli, 'claim', { runId, stepId, requestId }, printLease, false, (error, board) => {
        if (error.issues?.includes('claimed_by_you'))
          process.stderr.write(
            `  you hold this claim from an earlier call: repeat it with that call's --request-id to get its token back, or wait until its lease ends (${board.manifest.settings.leaseSeconds} s after that claim or its last renew) and claim again\n`,
          );
      });
    });
}

export function renew(program: Command, cli: Cli): void {
  program
    .command('renew')
    .description('extend a claim; prints the new token (the old one stops working)')
    .argument('<token>', 'the current token')
    .option('--progress <text>', 'a note of what is done so far')
    .addHelpText('after', '\nExample:\n  workboard renew "$TOKEN" --progress "read the receipt" --as reviewer')
    .action(async (token: string, o: { progress?: string }) => call(cli, 'renew', { token, ...(o.progress ? { progress: o.progress } : {}), requestId: randomUUID() }, printLease));
}

export function submit(program: Command, cli: Cli): void {
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
    .addHelpText(
      'after',
      '\nExample:\n  workboard submit "$TOKEN" --output withinPolicy=true --output notes=ok --evidence link:https://… --summary "Checked." --next approve --reason "in policy" --as reviewer',
    )
    .action(async (token: string, o: { output: string[]; outputFile?: string; evidence: string[]; summary: string; next?: string; reason?: string }) => {
      const args: ToolArgs = { token, output: fieldsFrom(o.outputFile, o.output, '--output', cli), summary: o.summary, requestId: randomUUID() };
      const evidence = await evidenceArgs(o.evidence, cli);
      if (evidence.length) args.evidence = evidence;
      if (o.next !== undefined) args.next = o.next;
      if (o.reason !== undefined) args.reason = o.reason;
      await call(cli, 'submit', args, (v: RunView) => printRun(cli, v));
    });
}

export function escalate(program: Command, cli: Cli): void {
  program
    .command('escalate')
    .description('hand a claimed step to a person with a note')
    .argument('<token>', 'the claim token')
    .requiredOption('--note <text>', 'what blocks you')
    .addHelpText('after', '\nExample:\n  workboard escalate "$TOKEN" --note "The receipt is unreadable" --as reviewer')
    .action(async (token: string, o: { note: string }) => call(cli, 'escalate', { token, note: o.note, requestId: randomUUID() }, (v: RunView) => printRun(cli, v)));
}
