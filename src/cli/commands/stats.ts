import type { Command } from 'commander';
import { insights, selecting, type Insights } from '../../insights/figures.js';
import { parseFilter } from '../../insights/filter.js';
import { durationText, labels, type Labels } from '../../insights/labels.js';
import { oneLine } from '../../git/audit-words.js';
import { RunHistory } from '../../service/run-history.js';
import { color, printJson } from '../output.js';
import type { Cli } from '../cli.js';

interface StatsOptions {
  since?: string;
  until?: string;
  versionNumber?: string;
  tests?: string | boolean;
}

const out = (line = '') => process.stdout.write(`${line}\n`);
const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;
const outcomes = (by: Record<string, number>) =>
  Object.entries(by)
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .map(([k, n]) => `${n} ${k}`)
    .join(', ') || 'none';

/** The figures in words: titles and names, never ids. */
function printText(s: Insights, l: Labels): void {
  const scope = [
    s.filter.process ? l.process(s.filter.process) : 'every process',
    s.filter.version ? `version ${s.filter.version}` : null,
    s.filter.since ? `from ${s.filter.since}` : null,
    s.filter.until ? `before ${s.filter.until}` : null,
  ]
    .filter(Boolean)
    .join(', ');
  const modes = s.filter.modes.length === 2 ? 'live and test runs' : s.filter.modes[0] === 'test' ? 'test runs only' : 'live runs';
  out(`${color.bold('Insights')}: ${scope}; ${modes}; as of ${s.now}`);
  out();
  out(color.bold('Runs'));
  out(`  ${plural(s.runs.started, 'run')} started, ${s.runs.ended} ended (${outcomes(s.runs.byOutcome)}), ${s.runs.open} open`);
  out(`  start to end: median ${durationText(s.runs.cycle.p50Ms)}, 90th percentile ${durationText(s.runs.cycle.p90Ms)}`);
  if (s.periods.length > 0) {
    out();
    out(color.bold(`Per ${s.per}`));
    for (const w of s.periods) out(`  ${w.period} (from ${w.from})  ${String(w.started).padStart(5)} started  ended: ${outcomes(w.ended)}${w.overdue ? `  ${w.overdue} fell overdue` : ''}`);
  }
  out();
  out(color.bold('Where runs wait'));
  out(`  waiting for agents ${durationText(s.waiting.agentsMs)}, for people ${durationText(s.waiting.peopleMs)}, for timers and events ${durationText(s.waiting.timersMs)}`);
  for (const st of s.steps) {
    out(
      `  ${l.process(st.process)} · ${l.step(st.process, st.step)}: ${plural(st.visits, 'visit')}; done in median ${durationText(st.wall.p50Ms)} (90th ${durationText(st.wall.p90Ms)}), waiting median ${durationText(st.waiting.p50Ms)} (90th ${durationText(st.waiting.p90Ms)})`,
    );
    const now = [st.waitingNow ? `${st.waitingNow} waiting now` : null, st.overdueNow ? `${st.overdueNow} overdue now` : null].filter(Boolean).join(', ');
    out(
      `      waited for agents ${durationText(st.waitingForAgentsMs)}, for people ${durationText(st.waitingForPeopleMs)}${st.waitingForTimersMs ? `, for timers ${durationText(st.waitingForTimersMs)}` : ''}${now ? `; ${now}` : ''}`,
    );
  }
  out();
  out(color.bold('Sent back'));
  if (s.rework.length === 0) out('  no rejections');
  for (const r of s.rework) {
    out(`  ${l.process(r.process)} · ${l.step(r.process, r.step)}: ${plural(r.rejections, 'rejection')} in ${plural(r.runs, 'run')}`);
    for (const n of r.topNotes) out(`      ${n.count}× "${oneLine(n.note)}"`);
  }
  out();
  out(color.bold('Agents'));
  if (s.agents.length === 0) out('  no escalations, returns or expired claims');
  for (const a of s.agents)
    out(
      `  ${l.who(a.agent)}: ${plural(a.escalations, 'escalation')}${a.checkEscalations ? ` (${a.checkEscalations} by a check)` : ''}, ${plural(a.returns, 'return')}, ${plural(a.leaseExpiries, 'expired claim')}`,
    );
  out(`  expired claims in all: ${s.leaseExpiries}; steps overdue now: ${s.overdueNow}`);
  if (s.checks.length > 0) {
    out();
    out(color.bold('Checks'));
    for (const c of s.checks) out(`  ${l.process(c.process)} · ${l.step(c.process, c.step)}: ${c.pass} passed, ${c.fail} failed, ${c.unsure} unsure`);
  }
  if (s.children) {
    out();
    out(color.bold('Runs these runs started'));
    for (const c of s.children) {
      const by = c.step === null ? `${l.process(c.process)}, at its end` : `${l.process(c.process)} · ${l.step(c.process, c.step)}`;
      out(
        `  ${by}: ${plural(c.runs, 'run')} of ${l.process(c.child)}${c.missing ? ` (${c.missing} not on this board)` : ''}, ${c.ended} ended (${outcomes(c.byOutcome)}); start to end: median ${durationText(c.cycle.p50Ms)}`,
      );
    }
  }
}

export function register(program: Command, cli: Cli): void {
  program
    .command('stats [process]')
    .description('figures from the audit chains: runs per week, cycle and waiting times per step, rework, escalations, overdue work, checks')
    .option('--since <when>', 'runs started from then: a date (2026-11-30), a date-time, or an age (12h, 7d, 4w)')
    .option('--until <when>', 'runs started before then (a date counts its own day)')
    .option('--version-number <n>', "only runs of this published version (--version is the CLI's own)")
    .option('--tests [only]', 'count test runs as well (or, with only, test runs alone)')
    .addHelpText('after', '\nExamples:\n  workboard stats\n  workboard stats expense-approval --since 7d\n  workboard stats --json --tests')
    .action(async (processName: string | undefined, o: StatsOptions) => {
      const now = new Date();
      const parsed = parseFilter(
        { process: processName, version: o.versionNumber, since: o.since, until: o.until, tests: o.tests === true ? 'also' : typeof o.tests === 'string' ? o.tests : undefined },
        now,
      );
      if (!parsed.ok) cli.usage(parsed.issues.join('; '));
      const board = await cli.board();
      const history = new RunHistory(board);
      await history.loadKept();
      const selected = history.runs(selecting(parsed.filter));
      // flow-1: runs that started runs of other processes need those runs' facts too (docs/profile-flow-1.md "7. Lineage and rollup").
      const runs = selected.some((r) => r.started.length > 0) ? history.runs() : selected;
      // A board this person may only read still gets its figures, read from the chains each time.
      await history.saveKept().catch(() => undefined);
      const versions = await history.versionsOf(runs);
      const s = insights(runs, versions, parsed.filter, now.toISOString());
      if (cli.json()) printJson({ ok: true, data: s });
      else {
        // Titles, names and notes come from files anyone may edit: on one line, with no control character a terminal would obey.
        const l = labels(versions, board.manifest.people);
        printText(s, { process: (p) => oneLine(l.process(p)), step: (p, st) => oneLine(l.step(p, st)), who: (w) => oneLine(l.who(w)) });
      }
    });
}
