/**
 * The example expense claim's amount has a minimum (fields-1,
 * docs/profile-fields-1.md): a start below it is refused the same way over
 * `start_run` (MCP's path into the service, checked against the upstream
 * schemas), from the web app's start form (in process, on a real socket,
 * with a real session) and by the real CLI, each naming every problem at
 * once and starting nothing. `describe` lists fields-1; `list_processes`
 * shows the inputs as the core's closed field objects allow.
 */
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cookieName, csrfToken } from '../../src/web/security.js';
import { createLoginLink, redeemCode } from '../../src/web/sessions.js';
import { ensureBuilt, workboard } from '../support/cli-run.js';
import { CAST, cleanupHarnesses, Harness, REPO, rid } from '../support/svc-harness.js';
import { inProcessWeb, pageAs } from '../web/http-support.js';

const EXPENSE = path.join(REPO, 'examples/board/processes/expense-approval');
const CONFIG = { publicOrigin: null, secure: false };

let h: Harness;
let origin: string;
let close: (() => Promise<void>) | undefined;

beforeAll(async () => {
  await ensureBuilt();
  h = await Harness.open({ groups: { finance: [CAST.fin] }, processes: [{ folder: EXPENSE, roles: { 'finance-approver': 'finance' } }] });
  ({ origin, close } = await inProcessWeb(h.service, CONFIG));
}, 300_000);

afterAll(async () => {
  await close?.();
  await cleanupHarnesses();
});

const runsNow = async () => (await h.ok('list_runs', { process: 'expense-approval' }, CAST.operator)).items.length;

describe('the amount of an expense claim', () => {
  it('describe lists fields-1, and list_processes keeps to the core field keys', async () => {
    expect((await h.ok('describe', {}, CAST.ann)).profiles).toContain('fields-1');
    const item = (await h.ok('list_processes', {}, CAST.ann)).items.find((p: { name: string }) => p.name === 'expense-approval');
    expect(item.inputs.amount).toEqual({ type: 'number', description: 'Amount claimed in EUR' });
  });

  it('over start_run: −5 and 0 are refused, with every other problem of the start', async () => {
    const err = await h.fail('start_run', { process: 'expense-approval', inputs: { claimant: CAST.ann, amount: -5 } }, CAST.ann);
    expect(err.code).toBe('invalid');
    expect(err.issues).toEqual(['inputs.amount: must be at least 0.01', 'inputs.receiptUrl: missing']);
    const zero = await h.fail('start_run', { process: 'expense-approval', inputs: { claimant: CAST.ann, amount: 0, receiptUrl: 'https://r.example.com/1' } }, CAST.ann);
    expect(zero.issues).toEqual(['inputs.amount: must be at least 0.01']);
    expect(await runsNow()).toBe(0);
    const ok = await h.start('expense-approval', { claimant: CAST.ann, amount: 0.01, receiptUrl: 'https://r.example.com/1' });
    expect(ok.run.state).toBe('active');
  });

  it('on the web start form: the label says the minimum; −5 is refused beside the field in words', async () => {
    const before = await runsNow();
    const page = await pageAs(h.board, origin, '/processes/expense-approval', CAST.ann, CONFIG);
    expect(page.replace(/<[^>]+>/g, '')).toContain('Amount claimed in EUR (at least 0.01)');
    const code = new URL(await createLoginLink(h.board, CAST.ann, origin)).searchParams.get('code')!;
    const token = (await redeemCode(h.board, code))!.token;
    const res = await fetch(`${origin}/processes/expense-approval/start`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: `${cookieName(CONFIG)}=${token}`, origin },
      body: new URLSearchParams({ csrf: csrfToken(token), requestId: rid(), 'inputs.claimant': CAST.ann, 'inputs.amount': '-5', 'inputs.receiptUrl': '' }).toString(),
    });
    expect(res.status).toBe(422);
    const text = (await res.text()).replace(/<[^>]+>/g, ' ').replace(/\s+/g, ' ');
    expect(text).toContain('Amount claimed in EUR: must be at least 0.01');
    expect(text).toMatch(/Receipt ?url: missing/i);
    expect(await runsNow()).toBe(before);
  });

  it('by the CLI: −5 is refused with every problem named, and nothing starts', async () => {
    const before = await runsNow();
    const r = await workboard(['--board', h.root, '--as', CAST.ann, 'start', 'expense-approval', '--input', `claimant=${CAST.ann}`, '--input', 'amount=-5'], { cwd: path.dirname(h.root) });
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain('inputs.amount: must be at least 0.01');
    expect(r.stderr).toContain('inputs.receiptUrl: missing');
    expect(await runsNow()).toBe(before);
  }, 60_000);
});
