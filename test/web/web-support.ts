/**
 * For the web app's browser tests: a real board in a temp folder with people,
 * groups, an agent and processes published; a real `workboard serve --http`
 * process on it; Debian's chromium driven by playwright-core; signing in with
 * a real login link; axe-core injected into the page.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll } from 'vitest';
import { Board } from '../../src/board/board.js';
import { addAgent, addOperator, addPerson, addToGroup } from '../../src/board/people.js';
import { publish } from '../../src/board/processes.js';
import { offerFor } from '../../src/service/context.js';
import { Service } from '../../src/service/service.js';
import { createLoginLink } from '../../src/web/sessions.js';
import { cleanupTmp, tmpDir } from '../support/tmp-board.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const BIN = path.join(ROOT, 'bin/workboard.js');
export const CHROMIUM = '/usr/bin/chromium';
export const HAVE_BROWSER = existsSync(CHROMIUM);
export const NO_BROWSER_REASON = `no browser at ${CHROMIUM} (install Debian's chromium package; .ci/run does): browser tests skipped`;
export const ARTIFACTS = path.join(ROOT, 'test-artifacts/web');
/** The docs' pictures of the pages (docs/people.md and the other guides show them). */
export const DOCS_WEB = path.join(ROOT, 'docs/web');

/**
 * A picture of the page as the test saw it, under WB_SCREENSHOTS=1 only
 * (CONTRIBUTING.md, "Look at the pages"): to docs/web/ for the docs, to
 * test-artifacts/web/ for the rest. Without it none is taken: no assertion
 * reads them, a full-page PNG costs the browser 0.5–1 s of CPU, and a
 * test run should not rewrite files git tracks.
 */
export async function shot(page: Page, options: { path: string; fullPage?: boolean }): Promise<void> {
  if (process.env.WB_SCREENSHOTS !== '1') return;
  mkdirSync(path.dirname(options.path), { recursive: true });
  await page.screenshot(options);
}

export const PEOPLE = {
  ana: 'ana@example.com',
  ben: 'ben@example.com',
  cy: 'cy@example.com',
  ops: 'ops@example.com',
};

const PAYOUT = `---
name: payout
description: An agent drafts a payout; an approver approves it.
inputs:
  payee: string
  amount: number
steps:
  - id: draft
    agent: Draft the payout.
    output: { memo: string }
  - id: approve
    person: approver
    approve: Approve the payout when the memo explains it.
    due: 2d
    on_reject: draft
    next: paid
  - id: paid
    finish: paid
---
# Payout

A payout is drafted by an agent and approved by a person.
`;

const INTAKE = `---
name: intake
description: A clerk records a supplier with every kind of field.
inputs:
  supplier: string
steps:
  - id: record
    person: clerk
    task: Record the supplier's details and attach the signed form.
    output:
      legalName: string
      employees: number
      vatRegistered: boolean
      founded: date
      reviewedAt: datetime
      tier: { type: string, one_of: [gold, silver] }
      aliases: { type: list, items: string }
      address: object
      owner: person
    evidence: [file]
    next:
      - { to: accepted, when: The supplier meets the policy }
      - { to: declined, when: It does not }
  - id: accepted
    finish: accepted
  - id: declined
    finish: declined
---
Supplier intake.
`;

const SPLIT = `---
name: split
description: A sign-off and an agent's fetch happen side by side.
steps:
  - id: both
    parallel: [signoff, fetch]
    next: done
  - id: signoff
    person: approver
    approve: Sign off the release.
    next: join
  - id: fetch
    agent: Fetch the artefacts.
    output: { count: number }
    next: join
  - id: done
    finish: done
---
Parallel work.
`;

const SHADY = `---
name: shady
description: A step text that tries to run a script.
steps:
  - id: look
    person: approver
    approve: "Look here <script>window.__pwned = true</script> and <img src=x onerror=\\"window.__pwned=true\\">"
    next: done
  - id: done
    finish: done
---
<script>window.__pwned = true</script>
`;

const SIGNAL = `---
name: signal
description: Waits for the go-ahead event, then an approver acknowledges it.
inputs:
  ticket: string
  owner: person
  urgent: { type: boolean, optional: true }
steps:
  - id: hold
    wait_for: go-ahead
  - id: ack
    person: approver
    approve: Acknowledge the go-ahead.
    next: done
  - id: done
    finish: done
---
A run that waits for an event.
`;

export interface WebBoard {
  root: string;
  board: Board;
  service: Service;
  base: string;
  server: ChildProcess;
  stop(): Promise<void>;
}

async function publishText(board: Board, root: string, name: string, text: string, roles: Record<string, string>) {
  mkdirSync(path.join(root, 'processes', name), { recursive: true });
  writeFileSync(path.join(root, 'processes', name, 'PROCESS.md'), text);
  await publish(board, { folder: path.join(root, 'processes', name), roles, actor: 'test', offer: offerFor(board.manifest) });
}

/** Stop a served board (SIGTERM) and wait until its process has exited; nothing when it is gone already. */
export function stopServer(server: ChildProcess | undefined): Promise<void> {
  return new Promise<void>((resolve) => {
    if (!server || server.exitCode !== null || server.signalCode !== null) return resolve();
    server.once('exit', () => resolve());
    server.kill('SIGTERM');
  });
}

/** A real `workboard serve --http` on a free port of 127.0.0.1 for the board at `root`, once it listens. */
export async function serveBoard(root: string): Promise<{ server: ChildProcess; base: string }> {
  const server = spawn(process.execPath, [BIN, '--board', root, 'serve', '--http', '127.0.0.1:0'], { stdio: ['ignore', 'pipe', 'pipe'] });
  const base = await new Promise<string>((resolve, reject) => {
    let out = '';
    server.stdout.on('data', (c: Buffer) => {
      out += c.toString();
      const m = /MCP over HTTP at (http:\/\/[^/\s]+)\/mcp/.exec(out);
      if (m) resolve(m[1]!);
    });
    server.stderr.on('data', (c: Buffer) => (out += c.toString()));
    server.once('exit', (code) => reject(new Error(`serve exited ${code}: ${out}`)));
  });
  return { server, base };
}

/** A board with approvers (ana, ben), a clerk (cy), an operator (ops), an agent (helper), and five processes; served over HTTP. */
export async function startBoard(): Promise<WebBoard> {
  const root = path.join(await tmpDir('wb-web-'), 'board');
  await Board.init(root, { name: 'web', actor: 'test' });
  const board = await Board.open(root);
  for (const e of Object.values(PEOPLE)) await addPerson(board, 'test', e, e === PEOPLE.ana ? 'Ana Silva' : undefined);
  await addToGroup(board, 'test', 'approvers', [PEOPLE.ana, PEOPLE.ben]);
  await addToGroup(board, 'test', 'clerks', [PEOPLE.cy]);
  await addOperator(board, 'test', PEOPLE.ops);
  await addAgent(board, 'test', 'helper');
  await publishText(board, root, 'payout', PAYOUT, { approver: 'approvers' });
  await publishText(board, root, 'intake', INTAKE, { clerk: 'clerks' });
  await publishText(board, root, 'split', SPLIT, { approver: 'approvers' });
  await publishText(board, root, 'shady', SHADY, { approver: 'approvers' });
  await publishText(board, root, 'signal', SIGNAL, { approver: 'approvers' });
  const { server, base } = await serveBoard(root);
  return {
    root,
    board,
    service: await Service.open(board),
    base,
    server,
    stop: () => stopServer(server),
  };
}

const AS = (who: string) => ({ kind: 'person' as const, email: who, operator: who === PEOPLE.ops });
export const HELPER = { kind: 'agent' as const, id: 'helper' };
export const person = AS;

let n = 0;
export const rid = () => `web-test-${process.pid}-${++n}`;

/** A payout run whose draft the agent finished: an approval is open for the approvers. */
export async function payoutAwaitingApproval(wb: WebBoard, payee = 'Sam'): Promise<string> {
  const s = wb.service;
  const start = await s.call('start_run', { process: 'payout', inputs: { payee, amount: 120 }, requestId: rid() }, HELPER);
  if (!start.ok) throw new Error(JSON.stringify(start));
  const runId = (start.data as { run: { id: string } }).run.id;
  await agentDoes(wb, runId, 'draft', { memo: `Payout for ${payee}` });
  return runId;
}

/** Publish a new version of a process the board already has, from new PROCESS.md text. */
export async function republish(wb: WebBoard, name: string, text: string, roles: Record<string, string>): Promise<void> {
  await publishText(wb.board, wb.root, name, text, roles);
}

export const PAYOUT_TEXT = PAYOUT;

export async function agentDoes(wb: WebBoard, runId: string, stepId: string, output: Record<string, unknown>): Promise<void> {
  const s = wb.service;
  const claim = await s.call('claim', { runId, stepId, requestId: rid() }, HELPER);
  if (!claim.ok) throw new Error(JSON.stringify(claim));
  const sub = await s.call('submit', { token: (claim.data as { token: string }).token, output, summary: 'Done by the test agent.', requestId: rid() }, HELPER);
  if (!sub.ok) throw new Error(JSON.stringify(sub));
}

export async function runView(wb: WebBoard, runId: string): Promise<any> {
  const r = await wb.service.call('get_run', { runId }, AS(PEOPLE.ops));
  if (!r.ok) throw new Error(JSON.stringify(r));
  return r.data;
}

/**
 * A served board and a browser for the tests of one describe block: started
 * before them, stopped after. Read `wb` and `browser` inside the tests.
 */
export function browserSuite(): { wb: WebBoard; browser: Browser } {
  const suite = {} as { wb: WebBoard; browser: Browser };
  beforeAll(async () => {
    suite.wb = await startBoard();
    suite.browser = await launch();
  });
  afterAll(async () => {
    await release(suite.browser);
    await suite.wb?.stop();
    await cleanupTmp();
  });
  return suite;
}

let shared: Browser | undefined;

/**
 * The worker's browser, launched on first use and kept for the files after
 * (the `shared` project's files share this module, vitest.config.ts): a
 * launch and close cost about 1.5 s of CPU. Each file gets it with no contexts
 * open (`release`); Playwright ends it with the worker.
 */
export async function launch(): Promise<Browser> {
  if (shared?.isConnected()) return shared;
  shared = await chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      ...(process.env.CHROMEARGS ? process.env.CHROMEARGS.split(' ') : []),
    ],
  });
  return shared;
}

/** A file is done with the browser: every context it opened is closed, and the browser stays for the next file. */
export async function release(browser: Browser | undefined): Promise<void> {
  if (!browser?.isConnected()) return;
  await Promise.all(browser.contexts().map((c) => c.close()));
}

/** A browser context signed in as `who` through a real login link (opened, then the button pressed); `emulate` adds a phone's emulation. */
export async function signedIn(
  browser: Browser,
  wb: Pick<WebBoard, 'board' | 'base'>,
  who: string,
  viewport = { width: 1280, height: 900 },
  emulate: { isMobile?: boolean; hasTouch?: boolean; deviceScaleFactor?: number } = {},
): Promise<{ ctx: BrowserContext; page: Page }> {
  const ctx = await browser.newContext({ viewport, ...emulate });
  const page = await ctx.newPage();
  await page.goto(await createLoginLink(wb.board, who, wb.base));
  await page.getByRole('button', { name: /Sign in as/ }).click();
  await page.waitForURL(`${wb.base}/work`);
  return { ctx, page };
}

const require = createRequire(import.meta.url);
const AXE = readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');

/** axe-core's serious and critical violations on the page as it is now. */
export async function axeProblems(page: Page): Promise<string[]> {
  // Injected through the DevTools protocol's evaluate, which the page's CSP does not govern.
  await page.evaluate(AXE);
  const result = await page.evaluate<{ violations: { id: string; impact: string; help: string; nodes: { target: string[] }[] }[] }>('axe.run(document, { resultTypes: ["violations"] })');
  return result.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => `${v.impact} ${v.id}: ${v.help} at ${v.nodes.map((x) => x.target.join(' ')).join(', ')}`);
}

/** Press Tab until the focused element matches, as a keyboard user would; fails after `max` presses. */
export async function tabTo(page: Page, matches: string, max = 80): Promise<void> {
  for (let i = 0; i < max; i++) {
    await page.keyboard.press('Tab');
    if (await page.evaluate((sel) => document.activeElement?.matches(sel) ?? false, matches)) return;
  }
  throw new Error(`Tab never reached ${matches}`);
}
