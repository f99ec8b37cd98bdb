/**
 * Uploads and file evidence (spec §5; tool contracts "upload", "submit"):
 * the size limit from describe.maxUploadBytes; `evidence: [file]` met by an
 * uploaded file that still has the bytes hashed at upload; file items in run
 * data carry sha256 and a url, wherever run data is returned.
 */
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
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
    const s = await h.ok('submit', { ...base, evidence: [{ kind: 'file', ref: up2.id }, { kind: 'link', ref: 'https://scans.example.com/2' }] }, CAST.agent);
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
