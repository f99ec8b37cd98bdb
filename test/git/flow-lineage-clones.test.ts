/**
 * flow-1 lineage across two git clones (docs/profile-flow-1.md "7. Lineage and
 * rollup"), with real git behind a bare remote and the real CLI: a parent
 * started on one clone fans out its children there; the other clone, synced,
 * finishes both children, which moves the parent on; synced back, both
 * clones hold the same run files and say the same lineage and rollup.
 */
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { promises as fs } from 'node:fs';
import { boardFiles, twoClones, wb } from '../support/git-clones.js';
import { ensureBuilt, ROOT } from '../support/cli-run.js';

let root: string | undefined;
afterAll(async () => {
  if (root) await fs.rm(root, { recursive: true, force: true });
});

const ok = async (dir: string, ...args: string[]) => {
  const r = await wb(dir, ...args);
  expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(0);
  return r.stdout;
};

describe('flow-1 lineage across two clones', () => {
  it('a parent on one clone, its children finished on the other: synced, both agree on links, states and rollup', async () => {
    await ensureBuilt();
    const t = await twoClones();
    root = t.root;
    const { a, b } = t;
    await ok(a, 'group', 'add', 'it', 'ana@example.com');
    await ok(a, 'publish', path.join(ROOT, 'fixtures/service/equipment-order'));
    await ok(a, 'publish', path.join(ROOT, 'fixtures/service/access-request'), '--role', 'it=it');
    await ok(a, 'publish', path.join(ROOT, 'fixtures/service/onboarding'), '--role', 'it=it');
    const parent = (await ok(a, '--as', 'ana@example.com', 'start', 'onboarding', '--input', 'employee=Mira Okafor', '--input', 'equipment=["laptop","phone"]', '--input', 'systems=[]')).trim();
    const shownA = await ok(a, 'show', parent);
    const kids = [...shownA.matchAll(/^\s+(r-[0-9a-z]{26})$/gm)].map((m) => m[1]!);
    expect(kids).toHaveLength(2);
    await ok(a, 'sync');
    await ok(b, 'sync');

    // The other clone finishes both children; their ends move the parent there.
    for (const [i, kid] of kids.entries()) {
      const token = (await ok(b, '--as', 'writer-b', 'claim', kid, 'order')).trim();
      await ok(b, '--as', 'writer-b', 'submit', token, '--output', `reference=PO-${i}`, '--summary', 'Ordered.');
    }
    const shownB = await ok(b, 'show', parent);
    expect(shownB).toContain('  rollup:  done (2 of 2 ended)\n');
    await ok(b, 'sync');
    await ok(a, 'sync');

    // Both clones: the same run files, the same lineage in words, each child naming its parent.
    const filesA = await boardFiles(a);
    const filesB = await boardFiles(b);
    for (const id of [parent, ...kids]) {
      const ofRun = (f: Record<string, string>) => Object.fromEntries(Object.entries(f).filter(([k]) => k.startsWith(`runs/${id}/`)));
      expect(Object.keys(ofRun(filesA)).length).toBeGreaterThan(0);
      expect(ofRun(filesA)).toEqual(ofRun(filesB));
    }
    for (const kid of kids) expect(filesA[`runs/${kid}/RUN.md`]).toContain(`\nparent: ${parent}\n`);
    const lineage = (s: string) =>
      s
        .split('\n')
        .filter((l) => /rollup:|children:|parent:|Equipment order ·/.test(l))
        .join('\n');
    const finalA = await ok(a, 'show', parent);
    const finalB = await ok(b, 'show', parent);
    expect(lineage(finalA)).toBe(lineage(finalB));
    expect(finalA).toContain('  rollup:  done (2 of 2 ended)\n');
    expect(finalA).toContain('Equipment order · Mira Okafor · laptop  ended ordered');
    expect(finalA).toMatch(/ready\s+Send the welcome pack/);
    for (const kid of kids) expect(await ok(a, 'show', kid)).toContain('  parent:  Onboarding · Mira Okafor  active\n');
    await ok(a, 'audit', 'verify');
    await ok(b, 'audit', 'verify');
  }, 300_000);
});
