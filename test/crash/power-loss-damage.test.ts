/**
 * What a power loss leaves on a journaled ext4, made by hand on the files
 * real CLI commands wrote (issue 39, item 1; test/crash/power-loss.test.ts
 * makes it for real, with a loop device and root). Each command leaves its
 * commit log at exit; a reboot is the logs' headers naming another boot. The
 * damage, each kind what an FS_IOC_SHUTDOWN run left:
 *
 * - files whose rename reached the disk before their data: RUN.md empty, the
 *   step file cut short and padded with zeros, the lease empty;
 * - the audit chain's appended lines turned to zeros (its size reached the
 *   disk, its data did not);
 * - a journal older than the log's records: the start's, still there (its
 *   removal was lost) while the claim and submit after it are only in logs.
 *
 * Recovery (`workboard doctor`) must bring every file back to the bytes the
 * three acknowledged commands left, and `audit verify` and `doctor` be clean.
 */
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { frame, readFrames } from '../../src/board/log-files.js';
import { AGENT, allPaths, built, cleanup, cli, DRAFT_OUTPUT, freshBoard, healthProblems, PROCESS, recoverAndCheck, RELEASE_DATE, said, tmp } from './crash-support.js';

beforeAll(built, 300_000);
afterAll(cleanup);

async function logs(root: string): Promise<string[]> {
  const dir = path.join(root, '.work', 'log');
  return (await fs.readdir(dir).catch(() => [] as string[])).filter((n) => n.endsWith('.log')).map((n) => path.join(dir, n));
}

/** What a reboot changes in a log: the boot its header names. */
async function asEarlierBoot(file: string): Promise<unknown[]> {
  const bytes = await fs.readFile(file);
  const [header, ...records] = readFrames(bytes).values as [Record<string, unknown>, ...unknown[]];
  await fs.writeFile(file, Buffer.concat([frame({ ...header, boot: 'an-earlier-boot' }), bytes.subarray(frame(header).length)]));
  return records;
}

/** The bytes of every file under runs/ and of the run's lease and replay records. */
async function snapshot(root: string): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  for (const p of await allPaths(root)) {
    if (p.endsWith('/') || !(p.startsWith('runs/') || p.startsWith('.work/leases/') || p.startsWith('.work/requests/'))) continue;
    out.set(p, (await fs.readFile(path.join(root, p))).toString('base64'));
  }
  return out;
}

describe('recovery from what a power loss leaves', () => {
  it('empty and zero-padded files, a chain tail of zeros and a journal older than the log: every acknowledged transition comes back, verify and doctor clean', async () => {
    const root = await freshBoard(await tmp('wb-power-damage-'));
    const must = async (args: string[]) => {
      const r = await cli(root, args, { as: AGENT });
      expect(r.json?.ok, said(r)).toBe(true);
      return r.json!.data;
    };
    const runId = (await must(['start', PROCESS, '--input', 'version=v1', '--input', `releaseDate=${RELEASE_DATE}`, '--request-id', 'pl-start'])).run.id as string;
    const token = (await must(['claim', runId, 'draft', '--request-id', 'pl-claim'])).token as string;
    const out = path.join(path.dirname(root), 'output.json');
    await fs.writeFile(out, JSON.stringify(DRAFT_OUTPUT));
    await must(['submit', token, '--output-file', out, '--evidence', 'link:https://example.com/pr/1', '--summary', 'Drafted the notes.']);
    const acknowledged = await snapshot(root);

    // The reboot: three logs of an earlier boot, the start's record first in commit order.
    const records = [];
    for (const l of await logs(root)) records.push(...((await asEarlierBoot(l)) as { scope: string; pos: number }[]));
    const ofRun = records.filter((r) => r.scope === `run ${runId}`).sort((a, b) => a.pos - b.pos);
    expect(ofRun.length, 'start, claim and submit each left a record').toBeGreaterThanOrEqual(3);

    const dir = path.join(root, 'runs', runId);
    await fs.writeFile(path.join(dir, 'RUN.md'), '');
    const draft = await fs.readFile(path.join(dir, 'draft.md'));
    await fs.writeFile(path.join(dir, 'draft.md'), Buffer.concat([draft.subarray(0, 40), Buffer.alloc(draft.length - 80)]));
    const chain = await fs.readFile(path.join(dir, 'audit.jsonl'));
    const firstLine = chain.indexOf(0x0a) + 1;
    await fs.writeFile(path.join(dir, 'audit.jsonl'), Buffer.concat([chain.subarray(0, firstLine), Buffer.alloc(chain.length - firstLine)]));
    const leases = path.join(root, '.work', 'leases', runId);
    for (const n of await fs.readdir(leases).catch(() => [] as string[])) await fs.writeFile(path.join(leases, n), '');
    await fs.mkdir(path.join(root, '.work', 'journal'), { recursive: true });
    await fs.writeFile(path.join(root, '.work', 'journal', `run-${runId}.json`), `${JSON.stringify(ofRun[0])}\n`);

    const h = await recoverAndCheck(root);
    expect(healthProblems(h)).toEqual([]);
    expect(h.first.code, said(h.first)).toBe(0);
    expect(await snapshot(root)).toEqual(acknowledged);
    expect(await logs(root)).toEqual([]);
  }, 120_000);
});
