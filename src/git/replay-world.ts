/**
 * What the merge's replay (git/replay.ts) needs of a board, read from the two
 * commits being merged: each run's pinned process version (published versions
 * are only ever added, so either side's copy is the same) and the board's
 * limits and people from WORK.md. Read once per merge, before the pure part.
 */
import { decodeDoc } from '../board/document.js';
import { manifestFrom } from '../board/manifest.js';
import { paths, RUN_FILE_NAME, WORK_FILE } from '../board/layout.js';
import { pinnedBy, readRunHead } from '../board/run-head.js';
import { loadProcess } from '../process/load.js';
import { FULL_OFFER } from '../protocol/offer.js';
import { contextFor } from '../service/context.js';
import type { Pinned } from '../engine/types.js';
import type { WorldFor } from './merge-run.js';
import type { Repo } from './repo.js';

/** The run's process and version as a RUN.md text names them. */
function pinOf(text: string | undefined): { process: string; version: number } | null {
  return text === undefined ? null : pinnedBy(readRunHead(text));
}

export async function replayWorlds(repo: Repo, commits: string[], runs: Iterable<Readonly<Record<string, string>> | null>, work: string | null): Promise<WorldFor> {
  const wanted = new Map<string, { process: string; version: number }>();
  for (const f of runs) {
    const pin = pinOf(f?.[RUN_FILE_NAME]);
    if (pin) wanted.set(`${pin.process}@${pin.version}`, pin);
  }
  const pinned = new Map<string, Pinned>();
  for (const [key, { process, version }] of wanted) {
    const dir = paths.versionDir(process, version);
    for (const c of commits) {
      const blobs = await repo.blobs(c, [`${dir}/PROCESS.md`, `${dir}/VERSION.md`]);
      const contents = await repo.contents(blobs.values());
      const text = (rel: string) => {
        const id = blobs.get(rel);
        return id === undefined ? undefined : contents.get(id)?.toString('utf8');
      };
      const proc = text(`${dir}/PROCESS.md`);
      const meta = text(`${dir}/VERSION.md`);
      const loaded = proc === undefined ? null : loadProcess(proc, FULL_OFFER);
      const doc = meta === undefined ? null : decodeDoc(`${dir}/VERSION.md`, Buffer.from(meta));
      if (!loaded?.ok || !doc?.ok) continue;
      const d = doc.doc.data as { hash?: unknown; roles?: Record<string, string> };
      if (d.hash !== loaded.hash) continue;
      pinned.set(key, { process: loaded.process, version, hash: loaded.hash, roles: d.roles ?? {} });
      break;
    }
  }
  const doc = work === null ? null : decodeDoc(WORK_FILE, Buffer.from(work));
  if (!doc?.ok) return () => null;
  const ctx = contextFor(manifestFrom(doc.doc), new Date(0));
  return (run) => {
    const p = pinned.get(`${run.process}@${run.version}`);
    return p ? { pinned: p, limits: ctx.limits, ...(ctx.people ? { people: ctx.people } : {}) } : null;
  };
}
