/**
 * Published processes on a board: `processes/<name>/v<N>/PROCESS.md` byte
 * for byte as published, never rewritten, beside `VERSION.md` with its
 * number, content hash, who published it and the role → group map.
 */
import path from 'node:path';
import type { Issue } from '../core/issues.js';
import { loadProcess } from '../process/load.js';
import type { Process } from '../process/model.js';
import { linkedNames, linkIssues, type Latest } from '../process/links.js';
import type { Offer } from '../protocol/offer.js';
import { eventBy } from './author.js';
import type { Commit } from './commit.js';
import type { Board } from './board.js';
import { BoardError } from './errors.js';
import { readIfExists } from './fsutil.js';
import { paths, WORK_FILE } from './layout.js';
import { manifestFrom } from './manifest.js';
import { canonicalJson } from '../core/hash.js';
import { isObj } from '../process/validate/raw.js';

export interface PublishedVersion {
  name: string;
  version: number;
  hash: string;
  publishedAt: string;
  publishedBy: string;
  roles: Record<string, string>;
  process: Process;
}

/** The role names a process assigns people by (not `initiator`, not paths). */
export function roleNames(process: Process): string[] {
  const roles = new Set<string>();
  for (const s of process.steps) if (s.person !== undefined && s.person !== 'initiator' && !s.person.includes('.')) roles.add(s.person);
  return [...roles];
}

export async function listVersions(board: Board, name: string): Promise<number[]> {
  return (board.listing.names(paths.processDir(name)) ?? [])
    .map((e) => /^v([1-9]\d*)$/.exec(e))
    .filter((m): m is RegExpExecArray => m !== null)
    .map((m) => Number(m[1]))
    .sort((a, b) => a - b);
}

export async function listProcessNames(board: Board): Promise<string[]> {
  const names: string[] = [];
  for (const e of board.listing.names('processes') ?? []) {
    try {
      if ((await listVersions(board, e)).length > 0) names.push(e);
    } catch {
      // not a process folder
    }
  }
  return names;
}

/** What a process's check depends on besides its bytes: the profiles and tools offered. */
const offerKey = (offer: Offer): string => `${[...offer.profiles].sort().join(',')}|${[...offer.tools].sort().join(',')}`;

/** A kept load whole, as loadVersion uses it (the record is a file anyone on the machine can edit). */
function isLoaded(v: unknown): v is { process: Process; hash: string } {
  if (!isObj(v) || typeof v.hash !== 'string' || !isObj(v.process)) return false;
  const p = v.process;
  return typeof p.name === 'string' && typeof p.description === 'string' && isObj(p.inputs) && Array.isArray(p.steps) && p.steps.every(isObj) && isObj(p.frontmatter) && typeof p.body === 'string';
}

/**
 * Load a published version and check that its bytes still hash to what was
 * recorded at publication. A version that no longer matches is never served.
 */
export async function loadVersion(board: Board, name: string, version: number, offer: Offer): Promise<PublishedVersion> {
  const dir = paths.versionDir(name, version);
  const meta = await board.store.read(`${dir}/VERSION.md`);
  const text = await board.store.readBytes(`${dir}/PROCESS.md`);
  if (!meta || text === null) throw new BoardError('invalid', `process ${name} has no version ${version}`);
  let refused: Issue[] = [];
  const loaded = await board.store.keptAnswer(`${dir}/PROCESS.md`, text, offerKey(offer), isLoaded, () => {
    const l = loadProcess(text.toString('utf8'), offer);
    if (l.ok) return { process: l.process, hash: l.hash };
    refused = l.issues;
    return null;
  });
  if (!loaded) throw new BoardError('invalid', `${dir}/PROCESS.md no longer validates`, refused);
  const d = meta.data as { hash: string; publishedAt: string; publishedBy: string; roles: Record<string, string> };
  if (loaded.hash !== d.hash) {
    throw new BoardError('corrupt', `${dir}/PROCESS.md was changed after publication: its hash is ${loaded.hash}, VERSION.md records ${d.hash}`, [
      { path: `${dir}/PROCESS.md`, message: 'content hash does not match the published hash' },
    ]);
  }
  return { name, version, hash: d.hash, publishedAt: d.publishedAt, publishedBy: d.publishedBy, roles: d.roles, process: loaded.process };
}

export interface PublishRequest {
  /** The folder holding PROCESS.md; its name must equal the process name. */
  folder: string;
  /** Role → group, as given (`--role finance-approver=finance`). */
  roles: Record<string, string>;
  actor: string;
  /** The OS user who ran the publishing command, recorded in the audit line (see board/author.ts). */
  osUser?: string | null;
  offer: Offer;
}

export interface PublishResult {
  name: string;
  version: number;
  hash: string;
  created: boolean;
  roles: Record<string, string>;
  requires: { systems: string[] } | null;
}

/** What publishing would need that is missing: roles without a group. For prompting before `publish`. */
export async function missingRoles(board: Board, process: Process, given: Record<string, string>): Promise<string[]> {
  const resolved = await resolveRoles(board, process, given, board.manifest.groups);
  return roleNames(process).filter((r) => !Object.hasOwn(resolved, r));
}

async function resolveRoles(board: Board, process: Process, given: Record<string, string>, groups: Record<string, string[]>): Promise<Record<string, string>> {
  const versions = await listVersions(board, process.name);
  const latest = versions[versions.length - 1];
  const previous = latest ? (((await board.store.read(`${paths.versionDir(process.name, latest)}/VERSION.md`))?.data.roles ?? {}) as Record<string, string>) : {};
  const out: Record<string, string> = {};
  for (const role of roleNames(process)) {
    const group = given[role] ?? previous[role] ?? (Object.hasOwn(groups, role) ? role : undefined);
    if (group !== undefined) out[role] = group;
  }
  return out;
}

export async function publish(board: Board, req: PublishRequest): Promise<PublishResult> {
  const file = path.join(req.folder, 'PROCESS.md');
  const bytes = await readIfExists(file);
  if (bytes === null) throw new BoardError('invalid', `${file} not found`, [{ path: '', message: `no PROCESS.md in ${req.folder}` }]);
  const text = bytes.toString('utf8');
  const loaded = loadProcess(text, req.offer);
  if (!loaded.ok) throw new BoardError('invalid', `${file} is not a valid process`, loaded.issues);
  const { process, hash } = loaded;
  const links = linkIssues(process, await latestLinked(board, process, req.offer));
  if (links.length > 0) throw new BoardError('invalid', `cannot publish ${process.name}: the processes it starts do not fit`, links);

  const { value } = await board.store.apply({ kind: 'board' }, async (reads) => {
    // The manifest as it is now, under the lock (a hand edit to WORK.md is adopted here).
    const work = await reads.read(WORK_FILE);
    const groups = work ? manifestFrom(work).groups : {};
    const roles = await resolveRoles(board, process, req.roles, groups);
    const issues: Issue[] = [];
    const folderName = path.basename(path.resolve(req.folder));
    if (folderName !== process.name) issues.push({ path: 'name', message: `"${process.name}" differs from its folder name "${folderName}"; a process travels in a folder of its own name` });
    for (const role of roleNames(process)) {
      const group = roles[role];
      if (group === undefined) issues.push({ path: 'roles', message: `role "${role}" has no group; pass --role ${role}=<group>` });
      else if (!Object.hasOwn(groups, group)) issues.push({ path: 'roles', message: `role "${role}" maps to group "${group}", which WORK.md does not declare` });
    }
    for (const role of Object.keys(req.roles)) {
      if (!roleNames(process).includes(role)) issues.push({ path: 'roles', message: `role "${role}" is not used by any step of ${process.name}` });
    }
    if (issues.length > 0) throw new BoardError('invalid', `cannot publish ${process.name}`, issues);

    const versions = await listVersions(board, process.name);
    const latest = versions[versions.length - 1];
    if (latest !== undefined) {
      const meta = await reads.read(`${paths.versionDir(process.name, latest)}/VERSION.md`);
      if (meta && meta.data.hash === hash && canonicalJson(meta.data.roles) === canonicalJson(roles)) {
        return { value: { version: latest, created: false, roles }, commit: null };
      }
    }
    const version = (latest ?? 0) + 1;
    const dir = paths.versionDir(process.name, version);
    const meta = await reads.read(`${dir}/VERSION.md`);
    const commit: Commit = {
      creates: [{ rel: `${dir}/PROCESS.md`, bytes: text }],
      files: [
        {
          rel: `${dir}/VERSION.md`,
          data: {
            process: process.name,
            version,
            hash,
            publishedAt: reads.now.toISOString(),
            publishedBy: req.actor,
            roles,
            profiles: profilesUsed(process),
            ...(process.requires ? { requires: process.requires } : {}),
          },
          body: `# ${process.name} v${version}\n\n${process.description}\n`,
          readRev: meta?.rev ?? 0,
        },
      ],
      state: [],
      events: [eventBy({ actor: req.actor, osUser: req.osUser ?? null }, 'process.published', `${process.name}@v${version}`, { version, hash, roles })],
    };
    return { value: { version, created: true, roles }, commit };
  });
  return { name: process.name, version: value.version, hash, created: value.created, roles: value.roles, requires: process.requires ?? null };
}

/** The profiles a process needs, recorded on its version. */
export function profilesUsed(process: Process): string[] {
  const out: string[] = [];
  if (process.steps.some((s) => s.kind === 'parallel')) out.push('parallel-1');
  if (process.steps.some((s) => s.check !== undefined)) out.push('check-1');
  if (process.flow || process.steps.some((s) => s.kind === 'subprocess')) out.push('flow-1');
  if (Object.values(process.inputs).some((f) => f.minimum !== undefined || f.maximum !== undefined)) out.push('fields-1');
  return out;
}

/** flow-1: the latest published version of every process `process` starts, and of those they start in turn (for cycles). */
async function latestLinked(board: Board, process: Process, offer: Offer): Promise<Latest> {
  const found = new Map<string, Process | null>();
  const queue = linkedNames(process);
  for (let name = queue.shift(); name !== undefined; name = queue.shift()) {
    if (found.has(name) || name === process.name) continue;
    const versions = await listVersions(board, name).catch((): number[] => []);
    const last = versions[versions.length - 1];
    const p =
      last === undefined
        ? null
        : await loadVersion(board, name, last, offer).then(
            (v) => v.process,
            () => null,
          );
    found.set(name, p);
    if (p) queue.push(...linkedNames(p));
  }
  return (name) => found.get(name) ?? null;
}
