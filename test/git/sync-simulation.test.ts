/**
 * Issue 26, "What must be shown", the simulation: a bare remote and four
 * clones of one board repository, each clone with its own agents, worked for
 * a few hundred seeded rounds of starts, claims, submits, decisions, cancels
 * and syncs through the real `workboard` binary and real git. Some rounds
 * make two clones move the same run between syncs; two syncs meet a remote
 * that cannot be reached. After a final round of syncs:
 * - every clone's board files are byte-identical, and no file anywhere holds
 *   a conflict marker;
 * - `audit verify --git` exits 0 on every clone;
 * - every audit line a call that exited 0 wrote (on the clone that made it,
 *   read right after the call) is in the final run's audit.jsonl or among
 *   its superseded.jsonl branches: nothing acknowledged vanishes;
 * - a run only one clone ever moved is never superseded;
 * - no act of a person or an agent is set aside for server lines alone, no
 *   set-aside branch is server lines alone (a timer), and no step is
 *   completed twice in one attempt (issue 41); the share of acknowledged
 *   lines superseded is printed.
 * Agents find their work as an agent does, through get_work (`workboard work`) on
 * their own clone, so a step that became ready on another clone is offered
 * to them only after the grace or never, once that clone's claim arrives
 * (docs/git.md "Offered first where it became ready"); the contested rounds
 * still claim by id, which always works. Some claims and submissions are
 * SIGKILLed at a random moment (never acknowledged; the next call recovers),
 * and some rounds edit WORK.md (a person added), whose board-chain lines must
 * all be kept or set aside too.
 * A second, smaller test makes two clones diverge and merges them both ways
 * round (A←B in one copy of the pair, B←A in another): the same bytes.
 *
 * The rounds are seeded (mulberry32): WB_SIM_SEED and WB_SIM_ROUNDS replay or
 * widen them; 30 in `npm test`, 300 in `npm run test:soak`. The choice of each round is reproducible; what git and the
 * board write (ids, times, signatures) is not, and needs not be.
 */
import { execFile } from 'node:child_process';
import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { BIN, ensureBuilt, workboard, type CliResult } from '../support/cli-run.js';
import { rounds } from '../support/soak.js';

const SEED = Number(process.env.WB_SIM_SEED ?? 20261201) >>> 0;
const ROUNDS = Number(process.env.WB_SIM_ROUNDS ?? rounds(30, 300));

/** No system or user git config: only what each clone sets for itself. */
const GIT_ENV = { GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null' };

function git(cwd: string, ...args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile('git', args, { cwd, env: { ...process.env, ...GIT_ENV }, maxBuffer: 64 * 1024 * 1024 }, (err, stdout, stderr) => {
      if (err) reject(new Error(`git ${args.join(' ')} in ${cwd}: ${String(stderr)}`));
      else resolve(String(stdout));
    });
  });
}

/** mulberry32: a small seeded PRNG, uniform in [0, 1). */
function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const PEOPLE = ['ana@example.com', 'bob@example.com'];
const OPERATOR = 'ana@example.com';
const AGENTS = Array.from({ length: 8 }, (_, i) => `bot${i + 1}`);

interface Clone {
  i: number;
  name: string;
  dir: string;
  agents: string[];
  person: string;
}

interface Call {
  round: number;
  clone: string;
  args: string[];
  code: number;
  stderr: string;
}

/** `workboard <args>` SIGKILLed after `ms` unless it ended first: a crash at a random moment (code -1 when killed). */
function killed(args: string[], cwd: string, ms: number): Promise<CliResult> {
  const env: Record<string, string> = { NO_COLOR: '1', ...GIT_ENV };
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined && !k.startsWith('WORKBOARD_')) env[k] = v;
  return new Promise((resolve) => {
    execFile(process.execPath, [BIN, ...args], { cwd, env, timeout: ms, killSignal: 'SIGKILL' }, (err, stdout, stderr) => {
      const c = (err as { code?: unknown } | null)?.code;
      resolve({ code: err ? (typeof c === 'number' ? c : -1) : 0, stdout: String(stdout), stderr: String(stderr) });
    });
  });
}

/** Every CLI call of a test, for the failure message: which round, which clone, what it said. */
class Trace {
  calls: Call[] = [];
  round = 0;
  constructor(readonly seed: number) {}
  async cli(c: Clone, args: string[], killAfterMs?: number): Promise<CliResult> {
    const r = killAfterMs === undefined ? await workboard(args, { cwd: c.dir, env: GIT_ENV }) : await killed(args, c.dir, killAfterMs);
    this.calls.push({ round: this.round, clone: c.name, args, code: r.code, stderr: r.stderr.trim().split('\n').slice(-2).join(' | ') });
    return r;
  }
  tail(n = 40): string {
    return this.calls
      .slice(-n)
      .map((c) => `  round ${c.round} ${c.clone}: workboard ${c.args.map((a) => (a.length > 40 ? `${a.slice(0, 37)}...` : a)).join(' ')} -> ${c.code}${c.code !== 0 ? ` (${c.stderr})` : ''}`)
      .join('\n');
  }
  where(): string {
    return `seed ${this.seed}, round ${this.round} (replay: WB_SIM_SEED=${this.seed} npx vitest run test/git/sync-simulation.test.ts)`;
  }
}

/** The board's own files (what a clone shares), relative path -> bytes. */
async function boardFiles(root: string): Promise<Map<string, Buffer>> {
  const out = new Map<string, Buffer>();
  const walk = async (rel: string) => {
    const abs = path.join(root, rel);
    let st;
    try {
      st = await fs.lstat(abs);
    } catch {
      return;
    }
    if (st.isDirectory()) for (const e of (await fs.readdir(abs)).sort()) await walk(rel === '' ? e : `${rel}/${e}`);
    else out.set(rel, await fs.readFile(abs));
  };
  for (const top of ['WORK.md', '.gitattributes', '.gitignore', 'runs', 'audit', 'processes', 'files']) await walk(top);
  return out;
}

/** The names of files that differ between two board snapshots (missing on one side counts). */
function differing(a: Map<string, Buffer>, b: Map<string, Buffer>): string[] {
  const names = new Set([...a.keys(), ...b.keys()]);
  return [...names].filter((n) => !a.has(n) || !b.has(n) || !a.get(n)!.equals(b.get(n)!)).sort();
}

/** Files anywhere under `root` but .git/ that hold a conflict marker. */
async function withConflictMarkers(root: string): Promise<string[]> {
  const found: string[] = [];
  const walk = async (dir: string) => {
    for (const e of await fs.readdir(dir, { withFileTypes: true })) {
      const abs = path.join(dir, e.name);
      if (e.isDirectory()) {
        if (e.name !== '.git') await walk(abs);
      } else if (e.isFile()) {
        const text = (await fs.readFile(abs)).toString('latin1');
        if (text.includes('<<<<<<<') || text.includes('>>>>>>>')) found.push(path.relative(root, abs));
      }
    }
  };
  await walk(root);
  return found;
}

const fm = (text: string | null, key: string): string | null => {
  if (text === null) return null;
  const m = new RegExp(`^${key}: (.*)$`, 'm').exec(text);
  return m ? m[1]!.trim() : null;
};

async function readOr(file: string): Promise<string | null> {
  try {
    return await fs.readFile(file, 'utf8');
  } catch {
    return null;
  }
}

async function exists(file: string): Promise<boolean> {
  return (await readOr(file)) !== null;
}

/** The hashes of a chain file's lines, in order, with each line's action and actor. */
function chainLines(text: string | null): { hash: string; action: string; actor: string }[] {
  if (text === null || text === '') return [];
  return text
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => {
      const v = JSON.parse(l) as { hash: string; action: string; actor: string };
      return { hash: v.hash, action: v.action, actor: v.actor };
    });
}

interface RunView {
  id: string;
  state: string | null;
  draft: string | null;
  approve: string | null;
}

/** What a clone's files say of each run: the run's state and its two working steps' states. */
async function runsOf(c: Clone): Promise<RunView[]> {
  const dir = path.join(c.dir, 'runs');
  const ids = (await fs.readdir(dir).catch(() => [] as string[])).filter((n) => n.startsWith('r-')).sort();
  return Promise.all(
    ids.map(async (id) => ({
      id,
      state: fm(await readOr(path.join(dir, id, 'RUN.md')), 'state'),
      draft: fm(await readOr(path.join(dir, id, 'draft.md')), 'state'),
      approve: fm(await readOr(path.join(dir, id, 'approve.md')), 'state'),
    })),
  );
}

/** Each run's audit chain on a clone, as line hashes. */
async function chainsOf(c: Clone): Promise<Map<string, string[]>> {
  const dir = path.join(c.dir, 'runs');
  const ids = (await fs.readdir(dir).catch(() => [] as string[])).filter((n) => n.startsWith('r-'));
  const out = new Map<string, string[]>();
  for (const id of ids)
    out.set(
      id,
      chainLines(await readOr(path.join(dir, id, 'audit.jsonl'))).map((l) => l.hash),
    );
  return out;
}

/** HEAD, every ref, and the work tree's status: what a failed sync must leave as it found. */
async function gitState(dir: string): Promise<string> {
  const head = await git(dir, 'rev-parse', 'HEAD');
  const refs = await git(dir, 'for-each-ref', '--format=%(refname) %(objectname)');
  const status = await git(dir, 'status', '--porcelain=v1', '--untracked-files=all');
  return `HEAD ${head}${refs}status:\n${status}`;
}

/**
 * A board repository pushed to a new bare remote: WORK.md with the agents and
 * people, `hello` (an agent drafts, a group of people approves) published;
 * then clones of it, each set up as a team member would (git-setup, own git
 * identity).
 */
async function team(trace: Trace, root: string, cloneCount: number): Promise<{ remote: string; clones: Clone[] }> {
  const remote = path.join(root, 'remote.git');
  await git(root, 'init', '-q', '--bare', '-b', 'main', remote);
  const seed: Clone = { i: -1, name: 'seed', dir: path.join(root, 'seed'), agents: [], person: PEOPLE[0]! };
  const ok = async (c: Clone, args: string[]) => {
    const r = await trace.cli(c, args);
    expect(r.code, `workboard ${args.join(' ')} in ${c.name}: ${r.stderr}`).toBe(0);
    return r;
  };
  await ok({ ...seed, dir: root }, ['init', 'seed', '--name', 'team', '--git']);
  await git(seed.dir, 'symbolic-ref', 'HEAD', 'refs/heads/main');
  await git(seed.dir, 'config', 'user.email', 'seed@example.com');
  await git(seed.dir, 'config', 'user.name', 'Seed');
  for (const p of PEOPLE) await ok(seed, ['person', 'add', p]);
  await ok(seed, ['group', 'add', 'approvers', ...PEOPLE]);
  await ok(seed, ['operator', 'add', OPERATOR]);
  for (const a of AGENTS) await ok(seed, ['agent', 'add', a]);
  await ok(seed, ['new', 'hello']);
  await ok(seed, ['publish', 'processes/hello', '--role', 'approver=approvers']);
  await git(seed.dir, 'remote', 'add', 'origin', remote);
  await ok(seed, ['sync', '--as', PEOPLE[0]!]);
  const clones: Clone[] = [];
  for (let i = 0; i < cloneCount; i++) {
    const name = String.fromCharCode(65 + i);
    const dir = path.join(root, name);
    await git(root, 'clone', '-q', remote, name);
    await git(dir, 'config', 'user.email', `clone-${name.toLowerCase()}@example.com`);
    await git(dir, 'config', 'user.name', `Clone ${name}`);
    const c: Clone = { i, name, dir, agents: [AGENTS[(2 * i) % 8]!, AGENTS[(2 * i + 1) % 8]!], person: PEOPLE[i % 2]! };
    await ok(c, ['git-setup']);
    clones.push(c);
  }
  return { remote, clones };
}

beforeAll(async () => {
  await ensureBuilt();
}, 600_000);

describe(`workboard sync: four clones, ${ROUNDS} seeded rounds (seed ${SEED})`, () => {
  it(
    `keeps every acknowledged transition, converges byte for byte, supersedes only runs two clones moved (seed ${SEED})`,
    async () => {
      const rand = mulberry32(SEED);
      const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)]!;
      const trace = new Trace(SEED);
      const root = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'wb-sync-sim-')));
      let passed = false;
      try {
        const { remote, clones } = await team(trace, root, 4);

        /** Acknowledged lines: every audit line a call that exited 0 added, as its clone had it right after. */
        const acked: { round: number; clone: string; run: string; hash: string; action: string; actor: string }[] = [];
        /** Which clones' own calls (not syncs) ever changed each run's chain. */
        const touchedBy = new Map<string, Set<string>>();
        const tokens: { clone: Clone; agent: string; run: string; token: string }[] = [];
        const counts: Record<string, { tried: number; ok: number }> = {};
        const count = (op: string, ok: boolean) => {
          const e = (counts[op] ??= { tried: 0, ok: 0 });
          e.tried++;
          if (ok) e.ok++;
        };
        let refusedWrites = 0;
        /** Why refused calls were refused (run ids masked), for the summary line. */
        const refusals = new Map<string, number>();

        /** One call that acts on the board (never a sync), with its effect on the clone's chains recorded. */
        let kills = 0;
        const act = async (c: Clone, op: string, args: string[], as: string, killAfterMs?: number): Promise<CliResult> => {
          const before = await chainsOf(c);
          const r = await trace.cli(c, [...args, '--as', as], killAfterMs);
          if (r.code === -1) kills++;
          const after = await chainsOf(c);
          for (const [run, hashes] of after) {
            const old = before.get(run) ?? [];
            if (old.length === hashes.length && old.every((h, k) => h === hashes[k])) continue;
            // A call only ever appends to a chain; it never rewrites one.
            expect(hashes.slice(0, old.length), `${op} on ${c.name} rewrote the chain of ${run} (${trace.where()})`).toEqual(old);
            (touchedBy.get(run) ?? touchedBy.set(run, new Set()).get(run)!).add(c.name);
            if (r.code !== 0) {
              refusedWrites++;
              continue;
            }
            const lines = chainLines(await readOr(path.join(c.dir, 'runs', run, 'audit.jsonl'))).slice(old.length);
            for (const l of lines) acked.push({ round: trace.round, clone: c.name, run, ...l });
          }
          count(op, r.code === 0);
          if (r.code !== 0) {
            const why = `${op}: ${(
              r.stderr
                .trim()
                .split('\n')
                .filter((l) => !l.startsWith('request id'))
                .pop() ?? ''
            )
              .replace(/r-[0-9a-z]{26}/g, 'r-…')
              .replace(/w-[0-9a-f]{26}/g, 'w-…')
              .slice(0, 160)}`;
            refusals.set(why, (refusals.get(why) ?? 0) + 1);
          }
          return r;
        };

        const sync = async (c: Clone): Promise<CliResult> => {
          const r = await trace.cli(c, ['sync', '--as', c.person]);
          count('sync', r.code === 0);
          expect(r.code, `sync on ${c.name} failed (${trace.where()}):\n${r.stderr}\n${trace.tail()}`).toBe(0);
          return r;
        };

        const start = async (c: Clone): Promise<string | null> => {
          const agent = pick(c.agents);
          const r = await act(c, 'start', ['start', 'hello', '--input', `topic=Topic of round ${trace.round}`, '--input', `words=${20 + Math.floor(rand() * 80)}`], agent);
          expect(r.code, `start on ${c.name} (${trace.where()}): ${r.stderr}`).toBe(0);
          const run = r.stdout.trim();
          expect(run).toMatch(/^r-[0-9a-z]+$/);
          const mine = acked.filter((a) => a.run === run);
          expect(
            mine.map((a) => a.action),
            `start's lines for ${run}`,
          ).toContain('run.started');
          return run;
        };

        /** One call in ten of an agent's is SIGKILLed somewhere in its first 1.5 s. */
        const maybeKill = () => (rand() < 0.1 ? 150 + Math.floor(rand() * 1350) : undefined);
        const claim = async (c: Clone, run: string, agent = pick(c.agents)): Promise<boolean> => {
          const r = await act(c, 'claim', ['claim', run, 'draft'], agent, maybeKill());
          if (r.code !== 0) return false;
          const token = r.stdout.trim();
          expect(token.length, `claim printed a token (${trace.where()})`).toBeGreaterThan(0);
          tokens.push({ clone: c, agent, run, token });
          return true;
        };

        const submit = async (c: Clone, t: (typeof tokens)[number]): Promise<boolean> => {
          tokens.splice(tokens.indexOf(t), 1);
          const next = rand() < 0.85 ? 'approve' : 'dropped';
          const r = await act(
            c,
            'submit',
            [
              'submit',
              t.token,
              '--output',
              `text=Written by ${t.agent} on clone ${c.name} in round ${trace.round}.`,
              '--output',
              'sources=1',
              '--evidence',
              `link:https://example.com/${c.name}/${trace.round}`,
              '--next',
              next,
              '--reason',
              'Ready.',
              '--summary',
              `Round ${trace.round}.`,
            ],
            t.agent,
            maybeKill(),
          );
          return r.code === 0;
        };

        /** What get_work offers an agent on its clone: the runs whose draft it may claim there. */
        const offered = async (c: Clone, agent: string): Promise<string[]> => {
          const r = await trace.cli(c, ['work', '--json', '--limit', '100', '--as', agent]);
          expect(r.code, `work on ${c.name} (${trace.where()}): ${r.stderr}`).toBe(0);
          return (JSON.parse(r.stdout) as { data: { items: { runId: string; stepId: string }[] } }).data.items.filter((i) => i.stepId === 'draft').map((i) => i.runId);
        };

        /** Board-chain lines a WORK.md edit that exited 0 added (audit/board.jsonl), as its clone had them right after. */
        const boardAcked: { round: number; clone: string; hash: string; action: string }[] = [];
        const editWork = async (c: Clone): Promise<void> => {
          const before = chainLines(await readOr(path.join(c.dir, 'audit', 'board.jsonl'))).length;
          const r = await trace.cli(c, ['person', 'add', `p${trace.round}-${c.name.toLowerCase()}@example.com`, '--as', OPERATOR]);
          count('edit WORK.md', r.code === 0);
          if (r.code !== 0) return;
          for (const l of chainLines(await readOr(path.join(c.dir, 'audit', 'board.jsonl'))).slice(before)) boardAcked.push({ round: trace.round, clone: c.name, hash: l.hash, action: l.action });
        };

        const decide = async (c: Clone, run: string | null, person = pick(PEOPLE)): Promise<boolean> => {
          const inbox = await trace.cli(c, ['inbox', '--json', '--as', person]);
          expect(inbox.code, `inbox on ${c.name} (${trace.where()}): ${inbox.stderr}`).toBe(0);
          const items = (JSON.parse(inbox.stdout) as { data: { items: { runId: string; workItem: { id: string; snapshot: string } }[] } }).data.items.filter((it) => run === null || it.runId === run);
          if (items.length === 0) return false;
          const item = pick(items);
          const roll = rand();
          const decision = roll < 0.6 ? 'approved' : roll < 0.93 ? 'rejected' : 'failed';
          const note = decision === 'approved' ? [] : ['--note', `Not yet (round ${trace.round}).`];
          const r = await act(c, 'decide', ['decide', item.runId, item.workItem.id, decision, '--snapshot', item.workItem.snapshot, ...note], person);
          return r.code === 0;
        };

        const cancel = async (c: Clone, run: string): Promise<boolean> => {
          const r = await act(c, 'cancel', ['cancel', run, '--reason', `Cancelled in round ${trace.round}.`], OPERATOR);
          return r.code === 0;
        };

        /** A sync that cannot reach the remote: non-zero, one line on stderr, and nothing changed. */
        const unreachable = async (c: Clone, how: 'moved' | 'url') => {
          const away = `${remote}.away`;
          if (how === 'moved') await fs.rename(remote, away);
          else await git(c.dir, 'remote', 'set-url', 'origin', path.join(root, 'no-such-remote.git'));
          try {
            const filesBefore = await boardFiles(c.dir);
            const gitBefore = await gitState(c.dir);
            const r = await trace.cli(c, ['sync', '--as', c.person]);
            count('sync unreachable', r.code !== 0);
            expect(r.code, `sync with the remote unreachable (${how}) on ${c.name} (${trace.where()})`).not.toBe(0);
            const lines = r.stderr.split('\n').filter((l) => l.trim() !== '');
            expect(lines, `stderr of a sync that cannot reach the remote (${trace.where()})`).toHaveLength(1);
            expect(differing(filesBefore, await boardFiles(c.dir)), `board files a failed sync changed (${trace.where()})`).toEqual([]);
            expect(await gitState(c.dir), `HEAD, refs or status a failed sync changed (${trace.where()})`).toBe(gitBefore);
          } finally {
            if (how === 'moved') await fs.rename(away, remote);
            else await git(c.dir, 'remote', 'set-url', 'origin', remote);
          }
        };

        /** Runs a contested round moved on two clones on purpose (claims by id, decisions, cancels). */
        const contestedRuns = new Set<string>();
        /** Two clones move the same run before either syncs. */
        const contest = async (): Promise<boolean> => {
          const [c1, c2] = [...clones].sort(() => rand() - 0.5) as [Clone, Clone];
          const [v1, v2] = await Promise.all([runsOf(c1), runsOf(c2)]);
          const in2 = new Map(v2.map((v) => [v.id, v]));
          const both = v1.filter((v) => in2.has(v.id)).map((v) => [v, in2.get(v.id)!] as const);
          const drafting = both.filter(([a, b]) => a.state === 'active' && a.draft === 'ready' && b.state === 'active' && b.draft === 'ready');
          const deciding = both.filter(([a, b]) => a.state === 'waiting' && a.approve === 'waiting' && b.state === 'waiting' && b.approve === 'waiting');
          const kinds = [...(drafting.length > 0 ? ['claim-claim', 'claim-cancel'] : []), ...(deciding.length > 0 ? ['decide-decide', 'decide-cancel'] : [])];
          if (kinds.length === 0) {
            // Nothing both clones can move yet: share one first.
            const run = await start(c1);
            await sync(c1);
            await sync(c2);
            contestedRuns.add(run!);
            await claim(c1, run!);
            await claim(c2, run!);
            count('contest', true);
            return true;
          }
          const kind = pick(kinds);
          if (kind.startsWith('claim')) {
            const [a] = pick(drafting);
            contestedRuns.add(a.id);
            await claim(c1, a.id);
            if (kind === 'claim-claim') await claim(c2, a.id);
            else await cancel(c2, a.id);
          } else {
            const [a] = pick(deciding);
            contestedRuns.add(a.id);
            await decide(c1, a.id);
            if (kind === 'decide-decide') await decide(c2, a.id);
            else await cancel(c2, a.id);
          }
          count('contest', true);
          return true;
        };

        const unreachableAt = new Map<number, 'moved' | 'url'>([
          [Math.floor(ROUNDS * (0.2 + 0.3 * rand())), 'moved'],
          [Math.floor(ROUNDS * (0.6 + 0.3 * rand())), 'url'],
        ]);

        for (let round = 1; round <= ROUNDS; round++) {
          trace.round = round;
          const c = pick(clones);
          const how = unreachableAt.get(round);
          if (how) {
            // Prefer a clone with work it has not synced yet, so "nothing changed" means something.
            const dirty = [];
            for (const d of clones) if ((await git(d.dir, 'status', '--porcelain')).trim() !== '') dirty.push(d);
            await unreachable(dirty.length > 0 ? pick(dirty) : c, how);
            continue;
          }
          if (round % 10 === 5) {
            // A WORK.md edit on some clone every ten rounds: its board-chain line must survive every merge.
            await editWork(c);
            continue;
          }
          const roll = rand();
          const views = await runsOf(c);
          const mine = tokens.filter((t) => t.clone === c);
          const open = views.filter((v) => v.state === 'active' || v.state === 'waiting');
          // An agent asks its clone for work (get_work), and starts a run when none is offered.
          const claimOrStart = async () => {
            const agent = pick(c.agents);
            const work = await offered(c, agent);
            return work.length > 0 ? claim(c, pick(work), agent) : start(c);
          };
          if (roll < 0.11) await contest();
          else if (roll < 0.31) await sync(c);
          else if (roll < 0.49) await (mine.length > 0 ? submit(c, pick(mine)) : claimOrStart());
          else if (roll < 0.65) await claimOrStart();
          else if (roll < 0.81) {
            if (!views.some((v) => v.state === 'waiting' && v.approve === 'waiting') || !(await decide(c, null))) await claimOrStart();
          } else if (roll < 0.85 && open.length > 0) await cancel(c, pick(open).id);
          else await start(c);
        }

        // The final round of syncs: every clone, until a whole pass changes nothing (at most 3 passes).
        trace.round = ROUNDS + 1;
        const heads = async () => Promise.all([remote, ...clones.map((c) => c.dir)].map((d) => git(d, 'rev-parse', 'main')));
        let passes = 0;
        let still = true;
        while (still && passes < 3) {
          const before = await heads();
          for (const c of clones) await sync(c);
          passes++;
          still = (await heads()).some((h, k) => h !== before[k]);
        }
        expect(still, `a third pass of syncs still changed something (${trace.where()})`).toBe(false);
        const finalHeads = await heads();
        expect(new Set(finalHeads).size, `every clone and the remote at one commit`).toBe(1);

        // Byte-identical board files, no conflict marker, a clean work tree.
        const snapshots = await Promise.all(clones.map((c) => boardFiles(c.dir)));
        for (const [k, c] of clones.entries()) {
          expect(differing(snapshots[0]!, snapshots[k]!), `board files of ${c.name} that differ from ${clones[0]!.name}'s`).toEqual([]);
          expect(await withConflictMarkers(c.dir), `files of ${c.name} with a conflict marker`).toEqual([]);
          expect(await git(c.dir, 'status', '--porcelain'), `uncommitted files on ${c.name} after the final syncs`).toBe('');
        }
        for (const c of clones) {
          const v = await trace.cli(c, ['audit', 'verify', '--git']);
          expect(v.code, `audit verify --git on ${c.name}:\n${v.stdout}${v.stderr}`).toBe(0);
        }

        // Nothing acknowledged vanishes: each line is in the run's chain or set aside beside it.
        const finalRuns = (await fs.readdir(path.join(clones[0]!.dir, 'runs'))).filter((n) => n.startsWith('r-')).sort();
        const kept = new Map<string, { chain: Set<string>; superseded: Set<string>; hasSuperseded: boolean }>();
        for (const run of finalRuns) {
          const dir = path.join(clones[0]!.dir, 'runs', run);
          const sup = await readOr(path.join(dir, 'superseded.jsonl'));
          const superseded = new Set<string>();
          for (const line of (sup ?? '').split('\n').filter((l) => l !== '')) for (const l of (JSON.parse(line) as { lines: { hash: string }[] }).lines) superseded.add(l.hash);
          kept.set(run, { chain: new Set(chainLines(await readOr(path.join(dir, 'audit.jsonl'))).map((l) => l.hash)), superseded, hasSuperseded: sup !== null });
        }
        const vanished = acked.filter((a) => {
          const k = kept.get(a.run);
          return !k || (!k.chain.has(a.hash) && !k.superseded.has(a.hash));
        });
        expect(
          vanished.map((a) => `round ${a.round} ${a.clone} ${a.run} #${a.action} by ${a.actor} ${a.hash.slice(0, 12)}`),
          `acknowledged lines found neither in the chain nor superseded (seed ${SEED})`,
        ).toEqual([]);

        // No board-chain line lost: every acknowledged WORK.md edit's line is in audit/board.jsonl or set aside beside it.
        const boardChain = new Set(chainLines(await readOr(path.join(clones[0]!.dir, 'audit', 'board.jsonl'))).map((l) => l.hash));
        const boardSetAside = new Set<string>();
        for (const line of ((await readOr(path.join(clones[0]!.dir, 'audit', 'superseded.jsonl'))) ?? '').split('\n').filter((l) => l !== ''))
          for (const l of (JSON.parse(line) as { lines: { hash: string }[] }).lines) boardSetAside.add(l.hash);
        const boardLost = boardAcked.filter((a) => !boardChain.has(a.hash) && !boardSetAside.has(a.hash));
        expect(
          boardLost.map((a) => `round ${a.round} ${a.clone} ${a.action} ${a.hash.slice(0, 12)}`),
          `acknowledged board-chain lines found neither in audit/board.jsonl nor set aside (seed ${SEED})`,
        ).toEqual([]);
        expect(boardAcked.length, 'the rounds edited WORK.md').toBeGreaterThan(0);

        // A run only one clone moved is never superseded; the contested ones were exercised.
        const supersededRuns = finalRuns.filter((r) => kept.get(r)!.hasSuperseded);
        const soloSuperseded = supersededRuns.filter((r) => (touchedBy.get(r)?.size ?? 0) <= 1);
        expect(
          soloSuperseded.map((r) => `${r} (moved only by ${[...(touchedBy.get(r) ?? [])].join(', ') || 'nobody'})`),
          `runs superseded though one clone alone moved them (seed ${SEED})`,
        ).toEqual([]);
        expect(supersededRuns.length, 'the rounds made at least one run move on two clones at once').toBeGreaterThan(0);
        expect(counts['sync unreachable']?.tried, 'the unreachable syncs ran').toBe(2);

        // Issue 41: what a merge sets aside is never a person's act undone by the machine, never a timer alone, and no step is completed twice.
        const actAgainstServer: string[] = [];
        const timerOnly: string[] = [];
        const twice: string[] = [];
        for (const run of finalRuns) {
          const dir = path.join(clones[0]!.dir, 'runs', run);
          const chain = ((await readOr(path.join(dir, 'audit.jsonl'))) ?? '')
            .split('\n')
            .filter((l) => l !== '')
            .map((l) => JSON.parse(l) as { seq: number; actor: string; action: string; entity: string });
          for (const line of ((await readOr(path.join(dir, 'superseded.jsonl'))) ?? '').split('\n').filter((l) => l !== '')) {
            const branch = JSON.parse(line) as { fork: { seq: number }; lines: { actor: string; action: string }[] };
            const keptAfter = chain.filter((e) => e.seq > branch.fork.seq);
            if (branch.lines.every((l) => l.actor === 'server')) timerOnly.push(`${run}: ${branch.lines.map((l) => l.action).join(', ')}`);
            else if (keptAfter.every((e) => e.actor === 'server'))
              actAgainstServer.push(
                `${run}: ${branch.lines
                  .filter((l) => l.actor !== 'server')
                  .map((l) => `${l.actor} ${l.action}`)
                  .join(', ')} set aside for ${keptAfter.map((e) => e.action).join(', ')}`,
              );
          }
          // A step is completed once per attempt: between two completions of one step, it was made ready (or rewound) again.
          const open = new Map<string, boolean>();
          for (const e of chain) {
            if (e.action === 'step.ready' || e.action === 'step.rewound') open.set(e.entity, true);
            else if (e.action === 'step.completed') {
              if (open.get(e.entity) === false) twice.push(`${run}: ${e.entity} completed again by ${e.actor} at #${e.seq}`);
              open.set(e.entity, false);
            }
          }
        }
        expect(actAgainstServer, `acts of people or agents superseded by server lines alone (seed ${SEED})`).toEqual([]);
        expect(timerOnly, `superseded branches of server lines alone (seed ${SEED})`).toEqual([]);
        expect(twice, `steps completed twice in one attempt (seed ${SEED})`).toEqual([]);

        const contested = [...touchedBy.values()].filter((s) => s.size > 1).length;
        const ackedSuperseded = acked.filter((a) => !kept.get(a.run)!.chain.has(a.hash)).length;
        // Apart from the contested rounds' deliberate double moves: what get_work's offer (and the syncs) left to chance.
        const ordinary = acked.filter((a) => !contestedRuns.has(a.run));
        const ordinarySuperseded = ordinary.filter((a) => !kept.get(a.run)!.chain.has(a.hash)).length;
        console.log(
          `sync simulation, seed ${SEED}: ${ROUNDS} rounds, ${trace.calls.length} CLI calls, ${finalRuns.length} runs, ${contested} moved by several clones, ${supersededRuns.length} with superseded branches; ` +
            `${acked.length} acknowledged lines (${ackedSuperseded} of them superseded: ${acked.length === 0 ? 0 : ((100 * ackedSuperseded) / acked.length).toFixed(1)}%; outside the ${contestedRuns.size} contested runs ${ordinarySuperseded} of ${ordinary.length}: ${ordinary.length === 0 ? 0 : ((100 * ordinarySuperseded) / ordinary.length).toFixed(1)}%), ${boardAcked.length} board-chain lines, ${kills} calls SIGKILLed, ${refusedWrites} chains a refused or killed call wrote to; final syncs: ${passes} passes; ` +
            `calls ${Object.entries(counts)
              .map(([k, v]) => `${k} ${v.ok}/${v.tried}`)
              .join(', ')}; refused: ${[...refusals].map(([k, v]) => `${v}× ${k}`).join('; ') || 'none'}`,
        );
        passed = true;
      } catch (e) {
        console.error(`sync simulation failed at ${trace.where()}; the board is kept at ${root}\nlast calls:\n${trace.tail()}`);
        throw e;
      } finally {
        if (passed) await fs.rm(root, { recursive: true, force: true });
      }
    },
    Math.max(900_000, ROUNDS * 15_000),
  );
});

describe('workboard sync: the same merge either way round', () => {
  it('two clones that moved the same run merge to the same bytes whether A takes B or B takes A', async () => {
    const trace = new Trace(0);
    const root = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'wb-sync-dir-')));
    let passed = false;
    try {
      const { remote, clones } = await team(trace, root, 2);
      const [a, b] = clones as [Clone, Clone];
      const ok = async (c: Clone, args: string[]) => {
        const r = await trace.cli(c, args);
        expect(r.code, `workboard ${args.join(' ')} on ${c.name}: ${r.stderr}`).toBe(0);
        return r.stdout.trim();
      };
      const submit = (c: Clone, token: string, agent: string, text: string) =>
        ok(c, [
          'submit',
          token,
          '--output',
          `text=${text}`,
          '--output',
          'sources=1',
          '--evidence',
          'link:https://example.com/x',
          '--next',
          'approve',
          '--reason',
          'Ready.',
          '--summary',
          text,
          '--as',
          agent,
        ]);

      // Two runs both clones have.
      const contested = await ok(a, ['start', 'hello', '--input', 'topic=Both', '--input', 'words=10', '--as', a.agents[0]!]);
      const oneSided = await ok(a, ['start', 'hello', '--input', 'topic=One', '--input', 'words=10', '--as', a.agents[0]!]);
      await ok(a, ['sync', '--as', a.person]);
      await ok(b, ['sync', '--as', b.person]);
      expect(await exists(path.join(b.dir, 'runs', contested, 'RUN.md'))).toBe(true);

      // Diverge: both draft the contested run; B alone claims the other; each starts a run of its own.
      await submit(a, await ok(a, ['claim', contested, 'draft', '--as', a.agents[0]!]), a.agents[0]!, 'From A.');
      await submit(b, await ok(b, ['claim', contested, 'draft', '--as', b.agents[0]!]), b.agents[0]!, 'From B.');
      await ok(b, ['claim', oneSided, 'draft', '--as', b.agents[1]!]);
      const onA = await ok(a, ['start', 'hello', '--input', 'topic=A only', '--input', 'words=10', '--as', a.agents[1]!]);
      const onB = await ok(b, ['start', 'hello', '--input', 'topic=B only', '--input', 'words=10', '--as', b.agents[1]!]);
      await ok(a, ['person', 'add', 'carol@example.com']);
      await ok(b, ['agent', 'add', 'bot9']);

      // A second pair, the same clones and remote copied before either syncs.
      const remote2 = path.join(root, 'remote2.git');
      await fs.cp(remote, remote2, { recursive: true });
      const copy = async (c: Clone): Promise<Clone> => {
        const dir = path.join(root, `${c.name}2`);
        await fs.cp(c.dir, dir, { recursive: true, verbatimSymlinks: true });
        await git(dir, 'remote', 'set-url', 'origin', remote2);
        return { ...c, name: `${c.name}2`, dir };
      };
      const [a2, b2] = [await copy(a), await copy(b)];

      // Pair 1: A pushes first, so B merges A into B (B←A); pair 2: B pushes first, so A merges B into A (A←B).
      await ok(a, ['sync', '--as', a.person]);
      await ok(b, ['sync', '--as', b.person]);
      await ok(a, ['sync', '--as', a.person]);
      await ok(b2, ['sync', '--as', b2.person]);
      await ok(a2, ['sync', '--as', a2.person]);
      await ok(b2, ['sync', '--as', b2.person]);

      // The merges really were made opposite ways round: in pair 1 the merge's first parent is B's work, in pair 2 A's.
      const mergeOf = async (dir: string) => (await git(dir, 'log', '--merges', '-1', '--format=%H', 'main')).trim();
      const [merge1, merge2] = [await mergeOf(b.dir), await mergeOf(a2.dir)];
      const has = (dir: string, rev: string, run: string) =>
        git(dir, 'cat-file', '-e', `${rev}:runs/${run}/RUN.md`).then(
          () => true,
          () => false,
        );
      expect([await has(b.dir, `${merge1}^1`, onB), await has(b.dir, `${merge1}^1`, onA)], 'pair 1 merges A into B').toEqual([true, false]);
      expect([await has(a2.dir, `${merge2}^1`, onA), await has(a2.dir, `${merge2}^1`, onB)], 'pair 2 merges B into A').toEqual([true, false]);

      // The merge itself: the merge commits' trees, every file byte for byte.
      const tree = async (dir: string, commit: string) => (await git(dir, 'rev-parse', `${commit}^{tree}`)).trim();
      expect(await tree(a2.dir, merge2), 'the merge commit trees, B←A and A←B').toBe(await tree(b.dir, merge1));
      // After it, each pair's board files alike, and alike across the pairs, but for what the merging clone
      // wrote after the merge: WORK.md merged as data (carol from A, bot9 from B) is adopted with one line
      // on the board's chain, signed by that clone at its own time.
      const snaps = await Promise.all([a, b, a2, b2].map((c) => boardFiles(c.dir)));
      expect(differing(snaps[0]!, snaps[1]!), "board files of B that differ from A's").toEqual([]);
      expect(differing(snaps[2]!, snaps[3]!), "board files of B2 that differ from A2's").toEqual([]);
      const chainAtMerge = await git(b.dir, 'cat-file', 'blob', `${merge1}:audit/board.jsonl`);
      for (const snap of [snaps[0]!, snaps[2]!]) {
        const chain = snap.get('audit/board.jsonl')!.toString('utf8');
        expect(chain.startsWith(chainAtMerge), 'the board chain goes on from the merged one').toBe(true);
        expect(
          chainLines(chain.slice(chainAtMerge.length)).map((l) => l.action),
          'what the board chain gained after the merge',
        ).toEqual(['work.external-edit']);
      }
      expect(differing(snaps[0]!, snaps[2]!), 'board files that differ between the two directions').toEqual(['audit/board.jsonl']);
      const work = snaps[0]!.get('WORK.md')!.toString('utf8');
      expect(work, 'WORK.md merged as data keeps both additions').toContain('carol@example.com');
      expect(work).toMatch(/id: bot9$/m);

      // One whole run kept, the other drafting set aside beside it; the runs one side moved are not superseded.
      const sup = await readOr(path.join(a.dir, 'runs', contested, 'superseded.jsonl'));
      expect(sup, 'the contested run has its superseded branch').not.toBeNull();
      const texts = (await readOr(path.join(a.dir, 'runs', contested, 'draft.md')))!;
      const lost = texts.includes('From A.') ? 'From B.' : 'From A.';
      expect(texts.includes('From A.') !== texts.includes('From B.'), 'draft.md is one side whole').toBe(true);
      expect(sup!, "the other side's draft is in the superseded branch").toContain(lost);
      for (const run of [oneSided, onA, onB]) expect(await exists(path.join(a.dir, 'runs', run, 'superseded.jsonl')), `${run} moved on one side only`).toBe(false);
      for (const c of [a, a2]) {
        const v = await trace.cli(c, ['audit', 'verify', '--git']);
        expect(v.code, `audit verify --git on ${c.name}:\n${v.stdout}${v.stderr}`).toBe(0);
      }
      passed = true;
    } catch (e) {
      console.error(`the both-ways merge test failed; the clones are kept at ${root}\nlast calls:\n${trace.tail()}`);
      throw e;
    } finally {
      if (passed) await fs.rm(root, { recursive: true, force: true });
    }
  }, 600_000);
});
