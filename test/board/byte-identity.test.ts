/**
 * The same calls give the same board files, byte for byte. A fixed script of
 * calls (runs of the two example processes, as frozen in golden/processes, started, claimed, submitted,
 * approved and rejected, an escalation, a wait and its event, a cancel, an
 * upload) is replayed through the Service with everything that varies held
 * still: the clock (the service's and the store's), the ids (ulid from a
 * seeded generator), the signing key (one fixed Ed25519 seed) and the host
 * name in its public record. Every committed file of the board (everything
 * outside .work/) must equal the golden snapshot in golden/byte-identity.json,
 * made once from the write path as it was before the journal and the commit
 * value changed.
 *
 * The test never rewrites the snapshot on its own. To make it again (only when
 * a change of the board's files is intended, and said so in the commit):
 *
 *   WB_GOLDEN_WRITE=1 npx vitest run test/board/byte-identity.test.ts
 */
import { existsSync, promises as fs, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { CAST, cleanupHarnesses, Harness } from '../support/svc-harness.js';

vi.mock('ulid', async (importOriginal) => {
  const real = await importOriginal<typeof import('ulid')>();
  // A small linear congruential generator: the same ids on every replay.
  let state = 0x2f6b_1d3;
  const prng = () => {
    state = (Math.imul(state, 1_103_515_245) + 12_345) >>> 0;
    return state / 2 ** 32;
  };
  return { ...real, ulid: (seedTime?: number) => real.ulid(seedTime, prng) };
});

vi.mock('node:os', async (importOriginal) => {
  const real = await importOriginal<typeof import('node:os')>();
  const hostname = () => 'golden-host';
  return { ...real, hostname, default: { ...real, hostname } };
});

vi.mock('../../src/board/signing.js', async (importOriginal) => {
  const real = await importOriginal<typeof import('../../src/board/signing.js')>();
  const { createPrivateKey } = await import('node:crypto');
  // PKCS#8 wrapping of a fixed 32-byte Ed25519 seed.
  const der = Buffer.concat([Buffer.from('302e020100300506032b657004220420', 'hex'), Buffer.alloc(32, 7)]);
  const pem = createPrivateKey({ key: der, format: 'der', type: 'pkcs8' }).export({ format: 'pem', type: 'pkcs8' }).toString();
  return { ...real, newPrivateKeyPem: () => pem };
});

const GOLDEN = fileURLToPath(new URL('./golden/byte-identity.json', import.meta.url));
// The two example processes as they were when the snapshot was made: the example board's own may move on.
const EXAMPLES = fileURLToPath(new URL('./golden/processes', import.meta.url));
const START = '2026-10-06T09:00:00.000Z';
const FINANCE = CAST.bob;
const EDITOR = CAST.cat;

let h: Harness;

/** Move both clocks: the service's (run files) and the store's (audit lines, key record). */
function advance(ms: number): void {
  h.advance(ms);
  vi.setSystemTime(h.clock);
}

let n = 0;
const rid = () => `byte-identity-${String(++n).padStart(3, '0')}`;

beforeAll(async () => {
  vi.useFakeTimers({ toFake: ['Date'] });
  vi.setSystemTime(Date.parse(START));
  h = await Harness.open({
    groups: { finance: [FINANCE], editors: [EDITOR] },
    start: START,
    processes: [
      { folder: path.join(EXAMPLES, 'expense-approval'), roles: { 'finance-approver': 'finance' } },
      { folder: path.join(EXAMPLES, 'release-notes'), roles: { editor: 'editors' } },
    ],
  });
});

afterAll(async () => {
  vi.useRealTimers();
  await cleanupHarnesses();
});

/** The script: every kind of write, in one fixed order, one clock step apart. */
async function script(): Promise<void> {
  const step = () => advance(60_000);
  const ok = (tool: string, args: Record<string, unknown>, who: string) => {
    step();
    return h.ok(tool, { ...args, requestId: rid() }, who);
  };

  // An expense claim: reviewed, approved by finance, paid.
  const a = await ok('start_run', { process: 'expense-approval', inputs: { claimant: CAST.ann, amount: 412.5, receiptUrl: 'https://receipts.example.com/1' } }, CAST.ann);
  const ca = await ok('claim', { runId: a.run.id, stepId: 'review_claim' }, CAST.agent);
  await ok(
    'submit',
    {
      token: ca.token,
      output: { withinPolicy: true, notes: 'Hotel within the limit.' },
      evidence: [{ kind: 'link', ref: 'https://policy.example.com/travel' }],
      summary: 'Within policy.',
      next: 'approve',
      reason: 'Within policy.',
    },
    CAST.agent,
  );
  let va = await h.view(a.run.id, CAST.operator);
  step();
  await h.decide(va, 'approve', 'approved', FINANCE, { requestId: rid() });

  // Release notes: drafted, the tag event arrives, the editor rejects, the agent escalates the redraft, an operator returns it.
  const b = await ok('start_run', { process: 'release-notes', inputs: { version: '2.4.0', releaseDate: '2026-10-20' } }, CAST.ann);
  const cb = await ok('claim', { runId: b.run.id, stepId: 'draft' }, CAST.agent);
  await ok(
    'submit',
    {
      token: cb.token,
      output: { notes: 'Faster boards.', highlights: ['journal', 'group commit'] },
      evidence: [{ kind: 'link', ref: 'https://github.example.com/compare/2.3...2.4' }],
      summary: 'Drafted.',
    },
    CAST.agent,
  );
  await ok('send_event', { runId: b.run.id, name: 'release-tagged', data: { tag: 'v2.4.0' } }, CAST.agent);
  let vb = await h.view(b.run.id, CAST.operator);
  step();
  await h.decide(vb, 'editor_review', 'rejected', EDITOR, { note: 'Name the breaking change.', requestId: rid() });
  const cb2 = await ok('claim', { runId: b.run.id, stepId: 'draft' }, CAST.agent);
  const renewed = await ok('renew', { token: cb2.token, progress: 'Looking for the breaking change.' }, CAST.agent);
  await ok('escalate', { token: renewed.token, note: 'Which change breaks upgrades?' }, CAST.agent);
  vb = await h.view(b.run.id, CAST.operator);
  step();
  await h.decide(vb, 'draft', 'returned', CAST.operator, { note: 'The config rename.', requestId: rid() });

  // A claim started and cancelled.
  const c = await ok('start_run', { process: 'expense-approval', inputs: { claimant: CAST.ed, amount: 90, receiptUrl: 'https://receipts.example.com/2' } }, CAST.ed);
  await ok('cancel', { runId: c.run.id, reason: 'Sent twice.' }, CAST.operator);

  // An upload.
  await ok('upload', { fileName: 'receipt.pdf', contentType: 'application/pdf', contentBase64: Buffer.from('%PDF-1.4 a receipt').toString('base64') }, CAST.agent);
  va = await h.view(a.run.id, CAST.operator);
  expect(va.run.state).toBe('ended');
}

/** Every committed file, as text (board files are UTF-8; the upload above is too). */
async function boardFiles(root: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  const walk = async (dir: string): Promise<void> => {
    for (const e of (await fs.readdir(dir, { withFileTypes: true })).sort((x, y) => (x.name < y.name ? -1 : 1))) {
      const abs = path.join(dir, e.name);
      const rel = path.relative(root, abs).split(path.sep).join('/');
      if (rel === '.work') continue;
      if (e.isDirectory()) await walk(abs);
      else out[rel] = (await fs.readFile(abs)).toString('utf8');
    }
  };
  await walk(root);
  return out;
}

it('gives the same board files, byte for byte, for the same calls', async () => {
  await script();
  const files = await boardFiles(h.root);
  if (process.env.WB_GOLDEN_WRITE === '1') {
    await fs.mkdir(path.dirname(GOLDEN), { recursive: true });
    await fs.writeFile(GOLDEN, `${JSON.stringify(files, null, 2)}\n`);
  }
  expect(existsSync(GOLDEN), `no golden snapshot at ${GOLDEN}; make it with WB_GOLDEN_WRITE=1 (see the header)`).toBe(true);
  const golden = JSON.parse(readFileSync(GOLDEN, 'utf8')) as Record<string, string>;
  expect(Object.keys(files)).toEqual(Object.keys(golden));
  for (const [rel, text] of Object.entries(golden)) expect(files[rel], rel).toBe(text);
  // The script covers what it says: three runs, each with its chain, and the upload.
  expect(Object.keys(files).filter((r) => r.endsWith('/RUN.md'))).toHaveLength(3);
  expect(Object.keys(files).filter((r) => /^runs\/[^/]+\/audit\.jsonl$/.test(r))).toHaveLength(3);
  expect(Object.keys(files).some((r) => r.startsWith('files/') && !r.endsWith('.gitkeep'))).toBe(true);
});
