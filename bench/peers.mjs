// Peers section of `npm run bench -- --peers`: workboard's CLI side by side with Backlog.md's
// (a markdown-file task board with a CLI, pinned below), each a whole process timed from spawn
// to exit, on boards of the same size (1k and 10k items; 1k only with --quick):
//   ours    bench/gen-board.mjs: 1% of runs with a ready agent step, 0.25% awaiting finance, the rest ended
//   theirs  task files written in Backlog.md's own format (backlog/tasks/*.md) in a git repository made
//           by `backlog init --defaults`, with the same share per state: To Do, In Progress, Done;
//           its own CLI checks that it reads them all before anything is timed
// For each operation: one warm-up run of each side, then 5 runs of each, alternating, and the medians.
// Every run must exit 0 and show that it did the work (ours: read from its --json answer, so the words people read may change freely; the item shown, the expected count listed, the
// file changed), or that side's row says what went wrong instead of a time. Backlog.md is installed
// with npm into a temporary folder; if that fails the section says why and the rest of the bench runs.
import { spawn, spawnSync } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, mkdtempSync, openSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { generateBoard, stageOf } from './gen-board.mjs';
import { median } from './stats.mjs';

export const PEER = 'backlog.md';
export const PEER_VERSION = '1.52.0';
const GOAL = 0.2; // ours/theirs, issue 15
const REPS = 5;

const here = path.dirname(fileURLToPath(import.meta.url));
const BIN = path.join(here, '../bin/workboard.js');

/** A command's --json answer, or null when its output is not JSON. */
const json = (out) => {
  try {
    return JSON.parse(out);
  } catch {
    return null;
  }
};
const f2 = (ms) => (ms / 1000).toFixed(2);
const k = (n) => (n >= 1000 ? `${n / 1000}k` : String(n));

/**
 * Run `args` with this Node in `cwd`; resolves (never rejects) with the wall time, exit code and
 * output. Output goes to files in `io`, not pipes: Backlog.md's binary, given a pipe by Node, exits
 * before its output is all written (a list of 1,000 tasks came back cut at 273 to 884 lines; Bun's
 * compiled binaries do this when Node spawns them with pipes, oven-sh/bun#28145).
 */
function run(args, { cwd, io }) {
  const files = [path.join(io, 'stdout'), path.join(io, 'stderr')];
  const fds = files.map((f) => openSync(f, 'w'));
  return new Promise((resolve) => {
    const t = performance.now();
    const c = spawn(process.execPath, args, { cwd, stdio: ['ignore', ...fds], env: { ...process.env, NO_COLOR: '1' } });
    let settled = false;
    const done = (code, why) => {
      if (settled) return;
      settled = true;
      const ms = performance.now() - t;
      for (const fd of fds) closeSync(fd);
      const [out, err] = files.map((f) => readFileSync(f, 'utf8'));
      resolve({ ms, code, out, err: why ?? err });
    };
    c.on('error', (e) => done(-1, String(e)));
    c.on('exit', (code) => done(code));
  });
}

/** Install the pinned peer under `dir`; its CLI script, or why there is none. */
function installPeer(dir) {
  const r = spawnSync('npm', ['install', '--prefix', dir, '--no-save', '--no-audit', '--no-fund', `${PEER}@${PEER_VERSION}`], { encoding: 'utf8', timeout: 180_000 });
  const tail = (s) => (s ?? '').trim().split('\n').slice(-3).join(' / ');
  // npm's error: its first lines (code, errno, the message), without the stack and the log file's name.
  const npmError = (s) =>
    s
      .split('\n')
      .map((l) => l.replace(/^npm error /, ''))
      .filter((l) => /^\S/.test(l) && !/^(npm error|A complete log)/.test(l))
      .slice(0, 4)
      .join(' / ');
  if (r.error) return { error: `npm install ${PEER}@${PEER_VERSION} failed: ${r.error.message}` };
  if (r.status !== 0) return { error: `npm install ${PEER}@${PEER_VERSION} exited with ${r.status}: ${npmError(r.stderr)}` };
  const cli = path.join(dir, 'node_modules', PEER, 'cli.js');
  if (!existsSync(cli)) return { error: `npm installed ${PEER}@${PEER_VERSION} but ${cli} is missing` };
  const v = spawnSync(process.execPath, [cli, '--version'], { encoding: 'utf8', timeout: 30_000 });
  if (v.status !== 0 || v.stdout.trim() !== PEER_VERSION) return { error: `${PEER} --version did not answer ${PEER_VERSION} here (exit ${v.status}): ${tail(v.stderr || v.stdout)}` };
  return { cli };
}

/** A Backlog.md project at `dir`: git repository, `backlog init --defaults`, no remote operations (there is no remote). */
function initPeerProject(cli, dir) {
  mkdirSync(dir, { recursive: true });
  const steps = [
    ['git', ['init', '-q', '-b', 'main']],
    [process.execPath, [cli, 'init', 'peers', '--defaults', '--agent-instructions', 'none']],
    [process.execPath, [cli, 'config', 'set', 'remoteOperations', 'false']],
  ];
  for (const [cmd, args] of steps) {
    const r = spawnSync(cmd, args, { cwd: dir, encoding: 'utf8', timeout: 60_000, env: { ...process.env, NO_COLOR: '1' } });
    if (r.error || r.status !== 0)
      return `${path.basename(cmd)} ${args.slice(cmd === 'git' ? 0 : 1).join(' ')} failed: ${r.error?.message ?? (r.stderr || r.stdout).trim().split('\n').slice(-2).join(' / ')}`;
  }
  return null;
}

const STATUS = { ready: 'To Do', awaiting: 'In Progress', ended: 'Done' };

/** Task k of n in Backlog.md's file format, in the state gen-board gives run k. */
function taskFile(i, status, created) {
  const title = `Expense claim ${i}`;
  const worked = status !== 'To Do';
  const text = [
    '---',
    `id: TASK-${i}`,
    `title: ${title}`,
    `status: ${status}`,
    ...(worked ? ['assignee:', "  - '@reviewer'"] : ['assignee: []']),
    `created_date: '${created}'`,
    ...(worked ? [`updated_date: '${created}'`] : []),
    'labels:',
    '  - expense',
    'dependencies: []',
    'priority: medium',
    `ordinal: ${i * 1000}`,
    '---',
    '',
    '## Description',
    '',
    '<!-- SECTION:DESCRIPTION:BEGIN -->',
    `Claimant mira@example.com asks for 120 EUR; receipt https://example.com/r/${i}.`,
    '<!-- SECTION:DESCRIPTION:END -->',
    ...(worked ? ['', '## Implementation Notes', '', '<!-- SECTION:NOTES:BEGIN -->', 'Checked against the expense policy: within policy.', '<!-- SECTION:NOTES:END -->'] : []),
    ...(status === 'Done' ? ['', '## Final Summary', '', '<!-- SECTION:FINAL_SUMMARY:BEGIN -->', 'Approved by finance and paid.', '<!-- SECTION:FINAL_SUMMARY:END -->'] : []),
    '',
  ];
  return { name: `task-${i} - ${title.replaceAll(' ', '-')}.md`, text: text.join('\n') };
}

/** Write n tasks (task k+1 in the state of gen-board's run k) and commit them; ids by status. */
function writeTasks(dir, n) {
  const ids = { 'To Do': [], 'In Progress': [], Done: [] };
  const files = {};
  const t0 = Date.now() - n * 60_000;
  for (let kk = 0; kk < n; kk++) {
    const status = STATUS[stageOf(kk)];
    const created = new Date(t0 + kk * 60_000).toISOString().slice(0, 16).replace('T', ' ');
    const { name, text } = taskFile(kk + 1, status, created);
    writeFileSync(path.join(dir, 'backlog/tasks', name), text);
    ids[status].push(`TASK-${kk + 1}`);
    files[`TASK-${kk + 1}`] = path.join(dir, 'backlog/tasks', name);
  }
  const git = (...a) => spawnSync('git', ['-c', 'user.name=bench', '-c', 'user.email=bench@example.com', ...a], { cwd: dir, encoding: 'utf8' });
  git('add', '-A');
  const c = git('commit', '-q', '-m', `${n} tasks`);
  return { ids, files, error: c.status === 0 ? null : `git commit failed: ${c.stderr.trim()}` };
}

/** Our board of n runs at `dir`; run ids by state, read from each RUN.md. */
async function ourBoard(dir, n) {
  const counts = await generateBoard(dir, n);
  const ids = { active: [], waiting: [], ended: [] };
  for (const id of readdirSync(path.join(dir, 'runs')).filter((x) => x.startsWith('r-'))) {
    const state = /^state: (\w+)$/m.exec(readFileSync(path.join(dir, 'runs', id, 'RUN.md'), 'utf8'))?.[1];
    ids[state]?.push(id);
  }
  return { counts, ids };
}

const lineCount = (out, re) => out.split('\n').filter((l) => re.test(l)).length;

/**
 * The operations, each a pair of sides. A side is { cmd: the command as printed, note: which item, args(i): the
 * argv of run i (0 is the warm-up), check(result, i): null when run i did its work, else why not }.
 */
function operations(our, their, wb) {
  const view = our.ids.waiting[Math.floor(our.ids.waiting.length / 2)];
  const viewTask = their.ids['In Progress'][Math.floor(their.ids['In Progress'].length / 2)];
  const readyRuns = our.ids.active;
  const todo = their.ids['To Do'];
  const statusOf = (id) => /^status: (.+)$/m.exec(readFileSync(their.files[id], 'utf8'))?.[1];
  const priorityOf = (id) => /^priority: (.+)$/m.exec(readFileSync(their.files[id], 'utf8'))?.[1];
  const listTodo = {
    cmd: 'backlog task list --plain -s "To Do"',
    note: 'the To Do tasks',
    args: () => ['task', 'list', '--plain', '-s', 'To Do'],
    check: (r) => (lineCount(r.out, /^\s+(\[\w+\] )?TASK-\d+ - /) === todo.length ? null : `listed ${lineCount(r.out, /^\s+(\[\w+\] )?TASK-\d+ - /)} tasks, expected ${todo.length}`),
  };
  const renewTask = todo[todo.length - 1];
  let token = null;
  return [
    {
      op: 'view one item',
      ours: {
        cmd: 'workboard show <run> --json --as mira@example.com',
        note: 'a run awaiting finance',
        args: () => [...wb, 'show', view, '--json', '--as', 'mira@example.com'],
        check: (r) => {
          const d = json(r.out)?.data;
          return d?.run?.id === view && d.workItems?.length > 0 ? null : 'the run or its work item is not in the output';
        },
      },
      theirs: {
        cmd: 'backlog task view <id> --plain',
        note: 'an In Progress task',
        args: () => ['task', 'view', viewTask, '--plain'],
        check: (r) => (r.out.includes(`${viewTask} - Expense claim`) && r.out.includes('In Progress') ? null : 'the task is not in the output'),
      },
    },
    {
      op: 'list open items',
      ours: {
        cmd: 'workboard runs --state active --limit 100 --json --as mira@example.com',
        note: 'the runs with a ready step',
        args: () => [...wb, 'runs', '--state', 'active', '--limit', '100', '--json', '--as', 'mira@example.com'],
        check: (r) => {
          const items = json(r.out)?.data?.items ?? [];
          const n = items.filter((x) => x.process === 'expense-approval' && x.state === 'active' && readyRuns.includes(x.id)).length;
          return n === readyRuns.length ? null : `listed ${n} of the ${readyRuns.length} runs expected`;
        },
      },
      theirs: listTodo,
    },
    {
      op: 'list open items',
      ours: {
        cmd: 'workboard inbox --as reviewer --limit 100 --json',
        note: 'the ready steps, as the agent',
        args: () => [...wb, 'inbox', '--as', 'reviewer', '--limit', '100', '--json'],
        check: (r) => {
          const items = json(r.out)?.data?.items ?? [];
          const n = items.filter((x) => x.stepId === 'review_claim' && readyRuns.includes(x.runId)).length;
          return n === readyRuns.length ? null : `listed ${n} of the ${readyRuns.length} ready steps expected`;
        },
      },
      theirs: listTodo,
    },
    {
      op: 'edit one item',
      ours: {
        cmd: 'workboard claim <run> review_claim --as reviewer',
        note: 'a different ready run each time',
        args: (i) => [...wb, 'claim', readyRuns[i], 'review_claim', '--as', 'reviewer'],
        check: (r) => {
          token = r.out.trim();
          return /^\S+$/.test(token) ? null : 'no token on stdout';
        },
      },
      theirs: {
        cmd: 'backlog task edit <id> -s "In Progress"',
        note: 'a different To Do task each time',
        args: (i) => ['task', 'edit', todo[i], '-s', 'In Progress'],
        check: (r, i) => (statusOf(todo[i]) === 'In Progress' ? null : `${todo[i]} has status ${statusOf(todo[i])} after the edit`),
      },
    },
    {
      op: 'edit one item',
      ours: {
        cmd: 'workboard renew <token> --as reviewer',
        note: 'the same claim, each time with the token the last one printed',
        args: () => [...wb, 'renew', token, '--as', 'reviewer'],
        check: (r) => {
          const next = r.out.trim();
          if (!/^\S+$/.test(next) || next === token) return 'no new token on stdout';
          token = next;
          return null;
        },
      },
      theirs: {
        cmd: 'backlog task edit <id> --priority high|low',
        note: 'the same task, alternating',
        args: (i) => ['task', 'edit', renewTask, '--priority', i % 2 ? 'low' : 'high'],
        check: (r, i) => (priorityOf(renewTask) === (i % 2 ? 'low' : 'high') ? null : `${renewTask} has priority ${priorityOf(renewTask)} after the edit`),
      },
    },
  ];
}

/** One warm-up and REPS timed runs of each side, alternating; a side that fails once is not timed further. */
async function timePair(pair, dirs) {
  const sides = ['ours', 'theirs'];
  const res = { ours: { ms: [], error: null }, theirs: { ms: [], error: null } };
  for (let i = 0; i <= REPS; i++) {
    for (const s of sides) {
      if (res[s].error) continue;
      const side = pair[s];
      const r = await run(s === 'ours' ? side.args(i) : [dirs.cli, ...side.args(i)], { cwd: s === 'ours' ? undefined : dirs.project, io: dirs.io });
      const why = r.code !== 0 ? `exit ${r.code}: ${(r.err || r.out).trim().split('\n').slice(-2).join(' / ')}` : side.check(r, i);
      if (why) res[s].error = `run ${i}: ${why}`;
      else if (i > 0) res[s].ms.push(r.ms);
    }
  }
  const out = (s) => ({ cmd: pair[s].cmd, note: pair[s].note, error: res[s].error, runsMs: res[s].ms, medianMs: res[s].error ? null : median(res[s].ms) });
  const ours = out('ours');
  const theirs = out('theirs');
  const ratio = ours.medianMs !== null && theirs.medianMs !== null ? ours.medianMs / theirs.medianMs : null;
  return { op: pair.op, ours, theirs, ratio, met: ratio === null ? null : ratio <= GOAL };
}

/** Both boards of n items, each operation timed on them; the boards are deleted after. */
async function measureSize(n, cli, base) {
  const ourDir = path.join(base, `ours-${n}`);
  const peerDir = path.join(base, `theirs-${n}`);
  try {
    return await measureBoards(n, cli, base, ourDir, peerDir);
  } finally {
    for (const d of [ourDir, peerDir]) rmSync(d, { recursive: true, force: true });
  }
}

async function measureBoards(n, cli, base, ourDir, peerDir) {
  const our = await ourBoard(ourDir, n);
  const initError = initPeerProject(cli, peerDir);
  if (initError) return { n, error: `${PEER} project: ${initError}` };
  const their = writeTasks(peerDir, n);
  if (their.error) return { n, error: their.error };
  spawnSync('sync'); // written back now, not during the measurements
  // Backlog.md must read every task file written in its format, in the expected states.
  const all = await run([cli, 'task', 'list', '--plain'], { cwd: peerDir, io: base });
  const listed = lineCount(all.out, /^\s+(\[\w+\] )?TASK-\d+ - /);
  if (all.code !== 0 || listed !== n) return { n, error: `${PEER} task list --plain listed ${listed} of the ${n} task files written (exit ${all.code}) ${all.err.trim().slice(0, 200)}` };
  const wb = [BIN, '--board', ourDir];
  const rows = [];
  for (const pair of operations(our, their, wb)) rows.push(await timePair(pair, { cli, project: peerDir, io: base }));
  const open = { ours: our.ids.active.length + our.ids.waiting.length, theirs: their.ids['To Do'].length + their.ids['In Progress'].length };
  return { n, open, counts: our.counts, rows };
}

export async function peersSection({ quick, base = tmpdir() }) {
  const sizes = quick ? [1000] : [1000, 10_000];
  const root = mkdtempSync(path.join(base, 'wb-bench-peers-'));
  const head = `**Peers**: workboard's CLI and ${PEER} ${PEER_VERSION}'s on boards of the same size, whole process (spawn to exit), median of ${REPS} after one warm-up, alternating${quick ? '; 1k items only (--quick)' : ''}`;
  try {
    const installed = installPeer(path.join(root, 'peer'));
    if (installed.error) return { lines: [head, '', `Not measured: ${installed.error}`], json: { peer: PEER, version: PEER_VERSION, error: installed.error } };
    const results = [];
    for (const n of sizes) results.push(await measureSize(n, installed.cli, root).catch((e) => ({ n, error: e.message })));
    const esc = (text) => text.replaceAll('|', '\\|'); // an error message inside a table cell
    const cell = (side) => (side.error ? `failed (${esc(side.error)})` : f2(side.medianMs));
    const lines = [head, '', '| size | operation | ours s | theirs s | ours/theirs | met (≤ 0.2) |', '|---|---|---|---|---|---|'];
    for (const r of results) {
      if (r.error) lines.push(`| ${k(r.n)} | – | – | – | – | not measured: ${esc(r.error)} |`);
      else
        for (const x of r.rows)
          lines.push(`| ${k(r.n)} | ${x.op} | ${cell(x.ours)} | ${cell(x.theirs)} | ${x.ratio === null ? '–' : `${x.ratio.toFixed(2)}×`} | ${x.met === null ? '–' : x.met ? 'yes' : 'no'} |`);
    }
    const first = results.find((r) => !r.error);
    if (first) {
      lines.push('', 'Commands, in the order of the rows (ours with `node bin/workboard.js --board <dir>`, theirs with `node node_modules/backlog.md/cli.js` in the project):', '');
      const say = (side) => `\`${side.cmd}\` (${side.note})`;
      for (const x of first.rows) lines.push(`- ${x.op}: ours ${say(x.ours)}; theirs ${say(x.theirs)}`);
      lines.push(
        '',
        `Open items: ${results
          .filter((r) => !r.error)
          .map((r) => `${k(r.n)}: ours ${r.open.ours}, theirs ${r.open.theirs}`)
          .join('; ')}. ${PEER}'s project is a git repository (\`backlog init --defaults\`, remote operations off), its tasks committed.`,
      );
    }
    return { lines, json: { peer: PEER, version: PEER_VERSION, goal: GOAL, reps: REPS, sizes: results } };
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}
