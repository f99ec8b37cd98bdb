/**
 * Issues 26 and 41, "What must be shown", the simulation: a bare remote and
 * four clones of one board repository, each clone with its own long-lived
 * processes, as a team would run them: a `serve --git-sync` (it syncs on a
 * timer, takes the board's clock and writes the timers), and a stdio MCP
 * server per agent. Seeded rounds of starts, claims and submissions (agents,
 * over MCP), decisions, cancels and events (people, through the CLI), syncs
 * from the CLI, WORK.md edits and runs of `timed`, whose `wait`, `wait_for`
 * with a timeout and approval `due` fall due as the rounds go (serve's clock
 * runs ahead, docs/architecture.md "Test-only seams"). Some rounds make two
 * clones move the same run between syncs; an agent's MCP server, a CLI sync
 * and a serve (at any moment, or while it syncs) are SIGKILLed at random and
 * started again; two syncs meet a remote that cannot be reached. After the
 * serves stop and a final round of syncs (sim-verdict.ts):
 * - every clone's board files are byte-identical, no file holds a conflict
 *   marker, and `audit verify --git` exits 0 on every clone;
 * - every line an acknowledged call wrote (its actor's, signed by its clone's
 *   key, read right after the call) is in the final chain or set aside beside
 *   it; no board-chain line is lost;
 * - a run only one clone's key wrote to is never superseded;
 * - no act of a person or an agent is set aside for server lines alone; a
 *   timer set aside in a branch of server lines alone is the same timer kept
 *   (written twice) or made moot by an act kept that came before its deadline
 *   (docs/git.md "Timers once per board"), never lost; no step is completed
 *   twice in one attempt; timers did fall due;
 * - the share of acknowledged acts superseded is printed (goal: at most 10%):
 *   an act whose line was set aside but that the merge applied again on top
 *   of the side kept holds, so it is counted apart; the lines set aside, both
 *   kinds, are printed too.
 * Agents find their work through get_work on their own clone; the contested
 * rounds claim by id, which always works.
 * The same merge made either way round is test/git/sync-both-ways.test.ts.
 *
 * The rounds are seeded (mulberry32): WB_SIM_SEED and WB_SIM_ROUNDS replay or
 * widen them (WB_SIM_KEEP=1 keeps the boards of a run that passed); 20 in `npm test` (the file is among the suite's longest), 300 in
 * `npm run test:soak`. The choice of each round is reproducible; what the serves do between them (their syncs and
 * timers run on their own clocks) is not, and needs not be.
 */
import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt, type CliResult } from '../support/cli-run.js';
import { rounds } from '../support/soak.js';
import { boardFiles, chainLines, differing, exists, git, gitState, mulberry32, readOr, runsOf, type RunView } from '../support/sim-board.js';
import { gitWorkingIn, mcpOf, OPERATOR, PEOPLE, SERVE, startServe, stopAll, stopServe, team, Trace, type Clone } from '../support/sim-team.js';
import { isTimer, verdict, type Acked } from '../support/sim-verdict.js';
import { until } from '../support/until.js';

const SEED = Number(process.env.WB_SIM_SEED ?? 20261201) >>> 0;
const ROUNDS = Number(process.env.WB_SIM_ROUNDS ?? rounds(10, 300));
/** WB_SIM_KEEP=1 keeps the boards of a run that passed, with the acknowledged acts in acked.json, to read what was superseded and why. */
const KEEP = process.env.WB_SIM_KEEP === '1';

beforeAll(async () => {
  await ensureBuilt();
}, 600_000);

describe(`workboard sync: four clones with serves, ${ROUNDS} seeded rounds (seed ${SEED})`, () => {
  it(
    `keeps every acknowledged act, converges byte for byte, writes each timer once (seed ${SEED})`,
    async () => {
      const rand = mulberry32(SEED);
      const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)]!;
      const trace = new Trace(SEED);
      const root = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'wb-sync-sim-')));
      const began = performance.now();
      let clones: Clone[] = [];
      let passed = false;
      try {
        const made = await team(trace, root, 4);
        const remote = made.remote;
        clones = made.clones;
        for (const c of clones) startServe(c);

        const acked: Acked[] = [];
        const ackedHashes = new Set<string>();
        const counts: Record<string, { tried: number; ok: number }> = {};
        const count = (op: string, ok: boolean) => {
          const e = (counts[op] ??= { tried: 0, ok: 0 });
          e.tried++;
          if (ok) e.ok++;
        };
        const refusals = new Map<string, number>();
        const kills: Record<string, number> = { agent: 0, sync: 0, serve: 0, 'serve mid-sync': 0 };

        /** The lines an acknowledged call wrote to `run`: its actor's, signed by its clone, not seen before. */
        const acknowledge = async (c: Clone, run: string, as: string) => {
          for (const l of chainLines(await readOr(path.join(c.dir, 'runs', run, 'audit.jsonl')))) {
            if (l.actor !== as || l.signer !== c.signer || ackedHashes.has(l.hash)) continue;
            ackedHashes.add(l.hash);
            acked.push({ round: trace.round, clone: c.name, run, hash: l.hash, action: l.action, actor: l.actor });
          }
        };
        const refused = (op: string, message: string) => {
          const why = `${op}: ${message
            .replace(/r-[0-9a-z]{26}/g, 'r-…')
            .replace(/w-[0-9a-f]{26}/g, 'w-…')
            .slice(0, 160)}`;
          refusals.set(why, (refusals.get(why) ?? 0) + 1);
        };

        /** A person's call through the CLI; acknowledged when it exits 0. */
        const person = async (c: Clone, op: string, run: string, args: string[], as: string): Promise<boolean> => {
          const r = await trace.cli(c, [...args, '--as', as]);
          count(op, r.code === 0);
          if (r.code === 0) await acknowledge(c, run, as);
          else
            refused(
              op,
              r.stderr
                .trim()
                .split('\n')
                .filter((l) => !l.startsWith('request id'))
                .pop() ?? '',
            );
          return r.code === 0;
        };

        /** An agent's tool call over its stdio MCP server, which is SIGKILLed mid-call one time in ten. */
        let rid = 0;
        const tool = async (c: Clone, agent: string, name: string, args: Record<string, unknown>): Promise<{ ok: boolean; data?: any; error?: { code: string; message: string } } | null> => {
          const m = await mcpOf(c, agent);
          const killAfter = rand() < 0.1 ? Math.floor(rand() * 400) : null;
          const t0 = performance.now();
          const call = m.call(name, { ...args, ...(name === 'get_work' ? {} : { requestId: `sim-${SEED}-${++rid}` }) }, 120_000);
          let killSent = false;
          const timer =
            killAfter === null
              ? null
              : setTimeout(() => {
                  killSent = true;
                  m.kill();
                }, killAfter);
          let r: Awaited<typeof call> | null = null;
          try {
            r = await call;
          } catch (e) {
            // Only the kill this round chose may end a call unanswered.
            if (killAfter === null) throw new Error(`${name} by ${agent} on ${c.name} went unanswered (${trace.where()}): ${String(e)}`);
            r = null;
          }
          if (timer) clearTimeout(timer);
          // A kill sent just after the answer was written still lands: wait for
          // it, so that the agent's next call starts a fresh server.
          if (killSent) await m.exited;
          if (r === null) kills.agent!++;
          trace.note(c.name, ['mcp', name, typeof args.runId === 'string' ? args.runId : ''], r === null ? -1 : r.ok ? 0 : 1, r?.ok === false ? (r.error?.message ?? '') : '', performance.now() - t0);
          if (name !== 'get_work') count(name, r?.ok === true);
          if (r !== null && !r.ok) refused(name, r.error?.message ?? '');
          return r;
        };

        const tokens: { clone: Clone; agent: string; run: string; token: string }[] = [];
        const start = async (c: Clone, process = rand() < 0.3 ? 'timed' : 'hello'): Promise<string | null> => {
          const agent = pick(c.agents);
          const inputs = process === 'timed' ? { topic: `Timed in round ${trace.round}` } : { topic: `Topic of round ${trace.round}`, words: 20 + Math.floor(rand() * 80) };
          const r = await tool(c, agent, 'start_run', { process, inputs });
          if (!r?.ok) return null;
          const run = String(r.data.runId ?? r.data.run?.id);
          expect(run, `start_run answered a run id (${trace.where()})`).toMatch(/^r-[0-9a-z]+$/);
          await acknowledge(c, run, agent);
          return run;
        };
        const claim = async (c: Clone, run: string, agent = pick(c.agents)): Promise<boolean> => {
          const r = await tool(c, agent, 'claim', { runId: run, stepId: 'draft' });
          if (!r?.ok) return false;
          tokens.push({ clone: c, agent, run, token: String(r.data.token) });
          await acknowledge(c, run, agent);
          return true;
        };
        const submit = async (c: Clone, t: (typeof tokens)[number]): Promise<boolean> => {
          tokens.splice(tokens.indexOf(t), 1);
          const next = rand() < 0.85 ? 'approve' : 'dropped';
          const output = { text: `Written by ${t.agent} on clone ${c.name} in round ${trace.round}.`, sources: 1 };
          const r = await tool(c, t.agent, 'submit', {
            token: t.token,
            output,
            evidence: [{ kind: 'link', ref: `https://example.com/${c.name}/${trace.round}` }],
            next,
            reason: 'Ready.',
            summary: `Round ${trace.round}.`,
          });
          if (r?.ok) await acknowledge(c, t.run, t.agent);
          return r?.ok === true;
        };
        /** What get_work offers an agent on its clone: the runs whose draft it may claim there. */
        const offered = async (c: Clone, agent: string): Promise<string[]> => {
          const r = await tool(c, agent, 'get_work', { limit: 100 });
          if (!r?.ok) return [];
          return (r.data.items as { runId: string; stepId: string }[]).filter((i) => i.stepId === 'draft').map((i) => i.runId);
        };
        const claimOrStart = async (c: Clone) => {
          const agent = pick(c.agents);
          const work = await offered(c, agent);
          return work.length > 0 ? claim(c, pick(work), agent) : start(c);
        };

        /** A decision from a person's inbox on this clone (on `run` when given). */
        const decide = async (c: Clone, run: string | null, who = pick(PEOPLE)): Promise<boolean> => {
          const inbox = await trace.cli(c, ['inbox', '--json', '--as', who]);
          expect(inbox.code, `inbox on ${c.name} (${trace.where()}): ${inbox.stderr}`).toBe(0);
          const items = (JSON.parse(inbox.stdout) as { data: { items: { runId: string; workItem: { id: string; snapshot: string } }[] } }).data.items.filter((it) => run === null || it.runId === run);
          if (items.length === 0) return false;
          const item = pick(items);
          const roll = rand();
          const decision = roll < 0.6 ? 'approved' : roll < 0.93 ? 'rejected' : 'failed';
          const note = decision === 'approved' ? [] : ['--note', `Not yet (round ${trace.round}).`];
          return person(c, 'decide', item.runId, ['decide', item.runId, item.workItem.id, decision, '--snapshot', item.workItem.snapshot, ...note], who);
        };
        const cancel = (c: Clone, run: string) => person(c, 'cancel', run, ['cancel', run, '--reason', `Cancelled in round ${trace.round}.`], OPERATOR);
        const event = (c: Clone, run: string) => person(c, 'event', run, ['event', run, 'go-ahead'], OPERATOR);

        /** A CLI sync, SIGKILLed at a random moment one time in four (the next sync, or serve's, finishes it). */
        const sync = async (c: Clone, killable = true): Promise<CliResult> => {
          const killAfter = killable && rand() < 0.25 ? 100 + Math.floor(rand() * 1500) : undefined;
          const r = await trace.cli(c, ['sync', '--as', c.person], killAfter);
          if (r.code === -1 && killAfter !== undefined) {
            kills.sync!++;
            return r;
          }
          count('sync', r.code === 0);
          // 3: the remote kept moving under five pushes (four serves sync too); retrying is safe, and the next sync does.
          expect([0, 3], `sync on ${c.name} failed (${trace.where()}):\n${r.stderr}\n${trace.tail()}`).toContain(r.code);
          return r;
        };

        /** A serve SIGKILLed, at a random moment or while it syncs, and started again. */
        const killServe = async (c: Clone) => {
          if (rand() < 0.5) {
            const lock = path.join(c.dir, '.work', 'locks', 'sync.lock');
            const syncing = await until(async () => ((await exists(lock)) ? true : undefined), 3 * SERVE.sync * 1000, 20).catch(() => false);
            if (syncing) kills['serve mid-sync']!++;
          }
          await stopServe(c, 'SIGKILL');
          kills.serve!++;
          startServe(c);
        };

        /** A sync that cannot reach the remote: non-zero, one line on stderr, and nothing changed (the clone's serve stopped meanwhile, so only the sync acts). */
        const unreachable = async (c: Clone, how: 'moved' | 'url') => {
          await stopServe(c, 'SIGTERM');
          const away = `${remote}.away`;
          if (how === 'moved') await fs.rename(remote, away);
          else await git(c.dir, 'remote', 'set-url', 'origin', path.join(root, 'no-such-remote.git'));
          try {
            // Nothing else acts here while the failed sync is watched: a push of a sync SIGKILLed before may still be landing.
            await until(async () => ((await gitWorkingIn(c.dir)).length === 0 ? true : undefined), 120_000, 20);
            const interrupted = await exists(path.join(c.dir, '.work', 'journal', 'sync.json'));
            const filesBefore = await boardFiles(c.dir);
            const gitBefore = await gitState(c.dir);
            const r = await trace.cli(c, ['sync', '--as', c.person]);
            count('sync unreachable', r.code !== 0);
            expect(r.code, `sync with the remote unreachable (${how}) on ${c.name} (${trace.where()})`).not.toBe(0);
            const lines = r.stderr.split('\n').filter((l) => l.trim() !== '');
            expect(lines, `stderr of a sync that cannot reach the remote (${trace.where()})`).toHaveLength(1);
            // A sync killed on this clone before is finished first, network or not (the board must not stay half moved), and the one line says so.
            if (/finished the sync that was interrupted/.test(r.stderr)) {
              expect(interrupted, `a sync said it finished one that was interrupted, with no intent on record (${trace.where()})`).toBe(true);
              count('sync unreachable, finishing one interrupted', true);
            } else {
              expect(r.stderr, `a failed sync says it changed nothing (${trace.where()})`).toMatch(/nothing was changed/);
              expect(differing(filesBefore, await boardFiles(c.dir)), `board files a failed sync changed (${trace.where()})`).toEqual([]);
              expect(await gitState(c.dir), `HEAD, refs or status a failed sync changed (${trace.where()})`).toBe(gitBefore);
            }
          } finally {
            if (how === 'moved') await fs.rename(away, remote);
            else await git(c.dir, 'remote', 'set-url', 'origin', remote);
            startServe(c);
          }
        };

        const boardAcked: Omit<Acked, 'run' | 'actor'>[] = [];
        const editWork = async (c: Clone): Promise<void> => {
          const r = await trace.cli(c, ['person', 'add', `p${trace.round}-${c.name.toLowerCase()}@example.com`, '--as', OPERATOR]);
          count('edit WORK.md', r.code === 0);
          if (r.code !== 0) return;
          for (const l of chainLines(await readOr(path.join(c.dir, 'audit', 'board.jsonl')))) {
            if (l.actor === OPERATOR && l.signer === c.signer && !ackedHashes.has(l.hash)) {
              ackedHashes.add(l.hash);
              boardAcked.push({ round: trace.round, clone: c.name, hash: l.hash, action: l.action });
            }
          }
        };

        const contestedRuns = new Set<string>();
        /** Two clones move the same run before either syncs (their serves may sync between the two acts, as a team's would). */
        const contest = async () => {
          const [c1, c2] = [...clones].sort(() => rand() - 0.5) as [Clone, Clone];
          const [v1, v2] = await Promise.all([runsOf(c1.dir), runsOf(c2.dir)]);
          const in2 = new Map(v2.map((v) => [v.id, v]));
          const both = v1.filter((v) => in2.has(v.id)).map((v) => [v, in2.get(v.id)!] as const);
          const all = (f: (v: RunView) => boolean) => both.filter(([a, b]) => f(a) && f(b)).map(([a]) => a);
          const drafting = all((v) => v.state === 'active' && v.steps.draft === 'ready');
          const deciding = all((v) => v.state === 'waiting' && (v.steps.approve === 'waiting' || v.steps.review === 'waiting'));
          const listening = all((v) => v.process === 'timed' && v.steps.signal === 'waiting');
          const kinds = [
            ...(drafting.length > 0 ? ['claim-claim', 'claim-cancel'] : []),
            ...(deciding.length > 0 ? ['decide-decide', 'decide-cancel'] : []),
            ...(listening.length > 0 ? ['event-cancel'] : []),
          ];
          count('contest', true);
          if (kinds.length === 0) {
            const run = await start(c1, 'hello');
            if (run === null) return;
            // Shared first: c1's sync carries it (a serve's sync holding the lock answers busy; try again), then c2's brings it.
            while ((await sync(c1, false)).code !== 0);
            while ((await sync(c2, false)).code !== 0 || !(await exists(path.join(c2.dir, 'runs', run, 'RUN.md'))));
            contestedRuns.add(run);
            await claim(c1, run);
            await claim(c2, run);
            return;
          }
          const kind = pick(kinds);
          const run = pick(kind.startsWith('claim') ? drafting : kind.startsWith('decide') ? deciding : listening).id;
          contestedRuns.add(run);
          if (kind.startsWith('claim')) await claim(c1, run);
          else if (kind.startsWith('decide')) await decide(c1, run);
          else await event(c1, run);
          if (kind === 'claim-claim') await claim(c2, run);
          else if (kind === 'decide-decide') await decide(c2, run);
          else await cancel(c2, run);
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
            await unreachable(c, how);
            continue;
          }
          if (round % 10 === 5) {
            // A WORK.md edit on some clone every ten rounds: its board-chain line must survive every merge.
            await editWork(c);
            continue;
          }
          if (round % 15 === 8) {
            await killServe(c);
            continue;
          }
          const roll = rand();
          const views = await runsOf(c.dir);
          const mine = tokens.filter((t) => t.clone === c);
          const open = views.filter((v) => v.state === 'active' || v.state === 'waiting');
          const listening = views.filter((v) => v.process === 'timed' && v.steps.signal === 'waiting');
          // Round 3 always contests a run, so even the short in-suite rounds make two clones move one run.
          if (roll < 0.1 || round === 3) await contest();
          else if (roll < 0.22) await sync(c);
          else if (roll < 0.42) await (mine.length > 0 ? submit(c, pick(mine)) : claimOrStart(c));
          else if (roll < 0.56) await claimOrStart(c);
          else if (roll < 0.72) {
            if (!views.some((v) => v.state === 'waiting') || !(await decide(c, null))) await claimOrStart(c);
          } else if (roll < 0.78 && listening.length > 0) await event(c, pick(listening).id);
          else if (roll < 0.83 && open.length > 0) await cancel(c, pick(open).id);
          else await start(c);
        }
        const roundsTook = performance.now() - began;

        // Quiet rounds may end before any timer fell due (they run on serve's clock): wait, on the condition, until a clone's
        // serve wrote one (a wait ended, a wait_for timed out, an approval overdue), starting a `timed` run if none exists.
        trace.round = ROUNDS + 1;
        const timerWritten = async () => {
          for (const c of clones) for (const v of await runsOf(c.dir)) if (chainLines(await readOr(path.join(c.dir, 'runs', v.id, 'audit.jsonl'))).some(isTimer)) return `${c.name} ${v.id}`;
          return undefined;
        };
        if ((await timerWritten()) === undefined && !(await runsOf(clones[0]!.dir)).some((v) => v.process === 'timed')) {
          while ((await start(clones[0]!, 'timed')) === null);
        }
        const waitedFrom = performance.now();
        const timerAt = await until(timerWritten, 600_000, 500).catch(() => null);
        expect(timerAt, `a serve wrote a timer within 600 s of the last round (${trace.where()})`).not.toBeNull();
        const waitedForTimer = performance.now() - waitedFrom;

        // The serves stop (their last syncs finished), then the final round of syncs: every clone, until a whole pass changes nothing.
        await stopAll(clones);
        const heads = async () => Promise.all([remote, ...clones.map((c) => c.dir)].map((d) => git(d, 'rev-parse', 'main')));
        let passes = 0;
        let still = true;
        while (still && passes < 4) {
          const before = await heads();
          for (const c of clones) await sync(c, false);
          passes++;
          still = (await heads()).some((h, k) => h !== before[k]);
        }
        expect(still, `a fourth pass of syncs still changed something (${trace.where()})`).toBe(false);
        expect(new Set(await heads()).size, `every clone and the remote at one commit`).toBe(1);

        // What was acknowledged, beside the boards (kept when the verdict fails, or with WB_SIM_KEEP=1), to read what became of each act.
        await fs.writeFile(path.join(root, 'acked.json'), `${JSON.stringify({ seed: SEED, rounds: ROUNDS, contested: [...contestedRuns], acked, boardAcked }, null, 1)}\n`);
        const v = await verdict(trace, clones, acked, boardAcked);
        expect(counts['sync unreachable']?.tried, 'the unreachable syncs ran').toBe(2);
        expect(v.supersededRuns, 'the rounds made at least one run move on two clones at once').toBeGreaterThan(0);
        const ordinary = acked.filter((a) => !contestedRuns.has(a.run));
        const pct = (n: number, of: number) => (of === 0 ? '0' : ((100 * n) / of).toFixed(1));
        const ordinarySuperseded = ordinary.filter((a) => v.supersededLines.has(a.hash)).length;
        const holds = (h: string) => v.replayedLines.has(h) || v.heldLines.has(h);
        const ordinaryLost = ordinary.filter((a) => v.supersededLines.has(a.hash) && !holds(a.hash)).length;
        const lost = v.superseded - v.replayedLines.size - v.heldLines.size;
        // What was superseded outside the contested runs, by the act it was: where the share comes from when it is not contention on purpose.
        const byAction = new Map<string, number>();
        for (const a of ordinary) if (v.supersededLines.has(a.hash)) byAction.set(a.action, (byAction.get(a.action) ?? 0) + 1);
        // And inside them, the acts lost by the act they were: two claims of one step, say, keep one.
        const contested = acked.filter((a) => contestedRuns.has(a.run));
        const contestedLost = new Map<string, number>();
        for (const a of contested) if (v.supersededLines.has(a.hash) && !holds(a.hash)) contestedLost.set(a.action, (contestedLost.get(a.action) ?? 0) + 1);
        const lostThere = [...contestedLost.values()].reduce((n, k) => n + k, 0);
        console.log(
          `sync simulation, seed ${SEED}: ${ROUNDS} rounds in ${(roundsTook / 1000).toFixed(0)} s (${(roundsTook / ROUNDS / 1000).toFixed(2)} s a round; load ${os
            .loadavg()
            .map((l) => l.toFixed(1))
            .join(' ')}), waited ${(waitedForTimer / 1000).toFixed(0)} s for a timer, whole test ${((performance.now() - began) / 1000).toFixed(0)} s; ` +
            `${v.runs} runs, ${v.supersededRuns} with superseded branches, ${contestedRuns.size} contested on purpose; ` +
            `${acked.length} acknowledged acts, ${lost} superseded (${pct(lost, acked.length)}%), outside the contested runs ${ordinaryLost} of ${ordinary.length} (${pct(ordinaryLost, ordinary.length)}%), in them ${lostThere} of ${contested.length}${contestedLost.size > 0 ? ` (${[...contestedLost].map(([k, n]) => `${n} ${k}`).join(', ')})` : ''}; ` +
            `lines set aside ${v.superseded} (${pct(v.superseded, acked.length)}%; ${v.replayedLines.size} of them applied again on merge, ${v.heldLines.size} already done alike on the side kept, ${v.byReason} refused with the engine's reason), outside the contested runs ${ordinarySuperseded} (${pct(ordinarySuperseded, ordinary.length)}%${byAction.size > 0 ? `: ${[...byAction].map(([k, n]) => `${n} ${k}`).join(', ')}` : ''}); ` +
            `${v.timers} timers kept (${v.timersOnOtherClone} runs where a timer met another clone's act), ${v.timersTwice.length} timers set aside beside the same timer kept (written twice while two clones held the clock${v.timersTwice.length > 0 ? `: ${v.timersTwice.join('; ')}` : ''}), ${v.timersMoot.length} timers set aside for an earlier act on another clone${v.timersMoot.length > 0 ? ` (${v.timersMoot.join('; ')})` : ''}, ${boardAcked.length} board-chain lines; ` +
            `SIGKILLs: ${Object.entries(kills)
              .map(([k, n]) => `${k} ${n}`)
              .join(', ')}; final syncs: ${passes} passes; ` +
            `calls ${Object.entries(counts)
              .map(([k, n]) => `${k} ${n.ok}/${n.tried}`)
              .join(', ')}; time by call: ${trace.spent()}; refused: ${[...refusals].map(([k, n]) => `${n}× ${k}`).join('; ') || 'none'}`,
        );
        passed = true;
      } catch (e) {
        console.error(
          `sync simulation failed at ${trace.where()}; the board is kept at ${root}\ntime by call: ${trace.spent()}\nlast calls:\n${trace.tail()}\nserves:\n${clones.map((c) => `${c.name}: ${c.serveLog.slice(-1500)}`).join('\n')}`,
        );
        throw e;
      } finally {
        await stopAll(clones);
        if (passed && !KEEP) await fs.rm(root, { recursive: true, force: true });
        else if (passed) console.log(`sync simulation: the boards are kept at ${root} (WB_SIM_KEEP=1), with the acknowledged acts in acked.json`);
      }
    },
    Math.max(1_800_000, ROUNDS * 20_000),
  );
});
