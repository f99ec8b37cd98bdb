/**
 * Uploads and file evidence (spec §5; tool contracts "upload", "submit"):
 * the size limit from describe.maxUploadBytes; `evidence: [file]` met by an
 * uploaded file that still has the bytes hashed at upload; file items in run
 * data carry sha256 and a url, wherever run data is returned.
 */
import { promises as fs } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createToken } from '../../src/service/credentials.js';
import { createWebApp } from '../../src/web/app.js';
import { CAST, cleanupHarnesses, Harness, sha256, states, type BoardSpec } from '../support/svc-harness.js';

afterAll(cleanupHarnesses);

const LIMIT = 64;
const SPEC: BoardSpec = { maxUploadBytes: LIMIT, groups: { clerks: [CAST.cat] }, processes: [{ folder: 'receipt-filing', roles: { clerks: 'clerks' } }] };

/** Where the board keeps the bytes of an upload: found by content, not by knowing the layout. */
async function storedCopies(root: string, content: Buffer): Promise<string[]> {
  const out: string[] = [];
  const walk = async (dir: string) => {
    for (const e of await fs.readdir(dir, { withFileTypes: true })) {
      const abs = path.join(dir, e.name);
      if (e.isDirectory()) await walk(abs);
      else if ((await fs.readFile(abs)).equals(content)) out.push(abs);
    }
  };
  await walk(root);
  return out;
}

describe('upload', () => {
  it('stores a file and returns its id, sha256 and size; refuses one over maxUploadBytes', async () => {
    const h = await Harness.open(SPEC);
    expect((await h.ok('describe', {}, CAST.agent)).maxUploadBytes).toBe(LIMIT);
    const exact = Buffer.alloc(LIMIT, 7);
    const up = await h.upload(exact);
    expect(up).toEqual({ id: expect.any(String), sha256: sha256(exact), bytes: LIMIT });
    const big = await h.fail('upload', { fileName: 'big.pdf', contentType: 'application/pdf', contentBase64: Buffer.alloc(LIMIT + 1, 7).toString('base64') }, CAST.agent);
    expect(big.code).toBe('invalid');
    // A person may upload too.
    expect((await h.upload('a person’s scan', CAST.cat)).bytes).toBe(Buffer.byteLength('a person’s scan'));
    expect((await h.fail('upload', { fileName: 'x.pdf', contentType: 'application/pdf', contentBase64: '@@not base64@@' }, CAST.agent)).code).toBe('invalid');
    expect((await h.fail('upload', { fileName: 'x.pdf', contentBase64: 'AAAA' }, CAST.agent)).code).toBe('invalid');
  });
});

/** GET a run's file through the web app on a real socket, as a person with a bearer token. */
async function download(h: Harness, runId: string, ref: string, who: string): Promise<{ status: number; type: string | null; disposition: string | null; body: string }> {
  const { token } = await createToken(h.board.store, who, new Date());
  const web = createWebApp(h.service);
  const server = createServer((req, res) => void web.handle(req, res));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  try {
    const res = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/runs/${runId}/files/${ref}`, { headers: { authorization: `Bearer ${token}` } });
    return { status: res.status, type: res.headers.get('content-type'), disposition: res.headers.get('content-disposition'), body: await res.text() };
  } finally {
    web.close();
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  }
}

describe('the same bytes uploaded under two names', () => {
  it('each upload keeps its own name and type: two ids, each verified as evidence and downloaded as uploaded', async () => {
    const h = await Harness.open(SPEC);
    const bytes = Buffer.from('%PDF-1.4 the same bytes twice');
    const up = (fileName: string, contentType: string, who: string = CAST.agent) => h.ok('upload', { fileName, contentType, contentBase64: bytes.toString('base64') }, who);
    const invoice = await up('invoice.pdf', 'application/pdf');
    const page = await up('page.html', 'text/html', CAST.cat);
    expect(page.id).not.toBe(invoice.id);
    for (const u of [invoice, page]) expect(u).toEqual({ id: expect.stringMatching(/^f-[0-9a-f]{32}$/), sha256: sha256(bytes), bytes: bytes.length });
    // The very same upload again (name, type and bytes) is the same file.
    expect((await up('invoice.pdf', 'application/pdf', CAST.cat)).id).toBe(invoice.id);

    const v = await h.start('receipt-filing', {}, CAST.ann);
    const c = await h.claim(v.run.id, 'scan');
    const s = await h.ok(
      'submit',
      {
        token: c.token,
        output: { amount: 1 },
        evidence: [
          { kind: 'file', ref: invoice.id },
          { kind: 'file', ref: page.id },
        ],
        summary: 'Both copies.',
      },
      CAST.agent,
    );
    expect(s.data.steps.scan.evidence).toEqual([invoice, page].map((u) => ({ kind: 'file', ref: u.id, sha256: sha256(bytes), url: expect.any(String) })));

    const first = await download(h, v.run.id, invoice.id, CAST.ann);
    expect(first).toMatchObject({ status: 200, type: 'application/pdf', body: bytes.toString() });
    expect(first.disposition).toMatch(/^attachment; filename="invoice\.pdf"/);
    const second = await download(h, v.run.id, page.id, CAST.ann);
    expect(second).toMatchObject({ status: 200, type: 'text/html', body: bytes.toString() });
    expect(second.disposition).toMatch(/^attachment; filename="page\.html"/);
  });

  it('an upload renamed by hand in its meta.json no longer verifies; one made before names were in the id still does', async () => {
    const h = await Harness.open(SPEC);
    const v = await h.start('receipt-filing', {}, CAST.ann);
    const c = await h.claim(v.run.id, 'scan');
    const submit = (ref: string) => h.call('submit', { token: c.token, output: { amount: 1 }, evidence: [{ kind: 'file', ref }], summary: 'Scanned.', requestId: `submit-${ref}` }, CAST.agent);
    const up = await h.upload('a scan', CAST.agent, 'scan.pdf');
    const metaFile = path.join(h.root, 'files', up.id, 'meta.json');
    const meta = JSON.parse(await fs.readFile(metaFile, 'utf8')) as Record<string, unknown>;
    await fs.writeFile(metaFile, JSON.stringify({ ...meta, fileName: 'scan.html' }));
    const renamed = await submit(up.id);
    expect(renamed.ok ? 'accepted' : renamed.error.issues).toEqual([expect.stringMatching(new RegExp(`^evidence ${up.id}: .*name`))]);

    // Before: the id was the bytes' hash prefix alone.
    const old = Buffer.from('an older scan');
    const oldId = `f-${sha256(old).slice(0, 32)}`;
    await fs.mkdir(path.join(h.root, 'files', oldId));
    await fs.writeFile(path.join(h.root, 'files', oldId, 'content'), old);
    await fs.writeFile(path.join(h.root, 'files', oldId, 'meta.json'), JSON.stringify({ id: oldId, sha256: sha256(old), bytes: old.length, fileName: 'old.pdf', contentType: 'application/pdf' }));
    const accepted = await submit(oldId);
    expect(accepted.ok, JSON.stringify(accepted)).toBe(true);
  });
});

describe('file evidence', () => {
  it('is verified at submit: required, must exist, must still match its hash; file items carry sha256 and url', async () => {
    const h = await Harness.open(SPEC);
    const v = await h.start('receipt-filing', {}, CAST.ann);
    const c = await h.claim(v.run.id, 'scan');
    const base = { token: c.token, output: { amount: 12.5 }, summary: 'Scanned the receipt.' };

    const none = await h.fail('submit', base, CAST.agent);
    expect(none).toMatchObject({ code: 'not_accepted', issues: ['evidence: file required'] });
    const linkOnly = await h.fail('submit', { ...base, evidence: [{ kind: 'link', ref: 'https://scans.example.com/1' }] }, CAST.agent);
    expect(linkOnly).toMatchObject({ code: 'not_accepted', issues: ['evidence: file required'] });
    const missing = await h.fail('submit', { ...base, evidence: [{ kind: 'file', ref: 'f-000' }] }, CAST.agent);
    expect(missing.code).toBe('not_accepted');
    expect(missing.issues).toEqual(['evidence f-000: not found']);

    // Changed stored bytes are refused.
    const content = Buffer.from('receipt #1: 12.50 EUR');
    const up = await h.upload(content);
    const copies = await storedCopies(h.root, content);
    expect(copies.length).toBeGreaterThan(0);
    for (const f of copies) await fs.writeFile(f, 'receipt #1: 99.50 EUR');
    const changed = await h.fail('submit', { ...base, evidence: [{ kind: 'file', ref: up.id }] }, CAST.agent);
    expect(changed.code).toBe('not_accepted');
    expect(changed.issues).toHaveLength(1);
    expect(changed.issues?.[0]).toMatch(new RegExp(`^evidence ${up.id}:`));
    expect(states(await h.view(v.run.id))).toMatchObject({ scan: 'claimed' });

    // A good upload, plus a link: both recorded; the file item gains sha256 and url.
    const good = Buffer.from('receipt #2: 12.50 EUR');
    const up2 = await h.upload(good);
    const s = await h.ok(
      'submit',
      {
        ...base,
        evidence: [
          { kind: 'file', ref: up2.id },
          { kind: 'link', ref: 'https://scans.example.com/2' },
        ],
      },
      CAST.agent,
    );
    expect(states(s)).toEqual({ scan: 'done', countersign: 'waiting', archive: null, filed: null });
    expect(s.data.steps.scan.evidence).toEqual([
      { kind: 'file', ref: up2.id, sha256: sha256(good), url: expect.any(String) },
      { kind: 'link', ref: 'https://scans.example.com/2' },
    ]);
    expect(s.data.steps.scan.evidence[0].url).not.toBe('');
    // get_run returns it the same way.
    const view = await h.view(v.run.id, CAST.cat);
    expect(view.data.steps.scan.evidence[0]).toEqual({ kind: 'file', ref: up2.id, sha256: sha256(good), url: expect.any(String) });

    // The clerk's task: the same verification through decide.
    const wi = h.item(view, 'countersign');
    expect(wi.evidence).toEqual(['file']);
    const call = { runId: v.run.id, workItemId: wi.id, snapshot: wi.snapshot, decision: 'completed' };
    expect(await h.fail('decide', { ...call, evidence: [{ kind: 'link', ref: 'https://x' }] }, CAST.cat)).toMatchObject({ code: 'not_accepted', issues: ['evidence: file required'] });
    expect(await h.fail('decide', { ...call, evidence: [{ kind: 'file', ref: up.id }] }, CAST.cat)).toMatchObject({ code: 'not_accepted' });
    const signed = Buffer.from('countersigned receipt #2');
    const up3 = await h.upload(signed, CAST.cat);
    const signedOff = await h.ok('decide', { ...call, evidence: [{ kind: 'file', ref: up3.id }] }, CAST.cat);
    expect(states(signedOff)).toEqual({ scan: 'done', countersign: 'done', archive: 'ready', filed: null });
    expect(signedOff.data.steps.countersign.evidence).toEqual([{ kind: 'file', ref: up3.id, sha256: sha256(signed), url: expect.any(String) }]);

    // A claim's run data carries the url on file items too.
    const a = await h.claim(v.run.id, 'archive');
    expect(a.data.steps.scan.evidence[0]).toEqual({ kind: 'file', ref: up2.id, sha256: sha256(good), url: expect.any(String) });
    expect(a.data.steps.countersign.evidence[0]).toEqual({ kind: 'file', ref: up3.id, sha256: sha256(signed), url: expect.any(String) });
    const end = await h.ok('submit', { token: a.token, output: { box: 'Box 12' }, summary: 'Archived both copies in box 12.' }, CAST.agent);
    expect(end.run).toMatchObject({ state: 'ended', outcome: 'filed' });
  });
});
