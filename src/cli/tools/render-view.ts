/**
 * `workboard runs --view <id>`: a saved view's runs as people read them
 * (docs/operators.md "Saved views"): the view's title, then one line per run
 * (its title, state, level when not normal, what it waits for), under a
 * heading per column for a board layout.
 */
import { NORMAL_PRIORITY } from '../../process/model.js';
import type { ViewRow } from '../../engine/view-filter.js';
import type { ViewAnswer } from '../../service/view-runs.js';
import { columnTitle, humanize, inList, levelWords, processTitle, relativeTime, runTitle, waiterWords } from '../../words/index.js';
import { color } from '../output.js';
import type { Cli } from '../cli.js';
import { wordsFor } from './words.js';

const out = (s: string) => process.stdout.write(s);

export async function printView(cli: Cli, a: ViewAnswer): Promise<void> {
  const wordsOf = await wordsFor(cli);
  const board = await cli.board();
  const titles = new Map<string, string>();
  const processes = new Map<string, string>();
  for (const r of a.runs) {
    const w = await wordsOf(r);
    titles.set(r.id, runTitle(w.process, r.inputs, w.people));
    processes.set(r.process, processTitle(w.process));
  }
  const people = board.manifest.people;
  const line = async (r: ViewRow, indent: string) => {
    const w = await wordsOf(r);
    const parts = [`${humanize(r.state)}${r.outcome ? ` (${r.outcome})` : ''}`];
    if (r.priority !== NORMAL_PRIORITY) parts.push(levelWords(r.priority).toLowerCase());
    if (r.overdue) parts.push('overdue');
    if (r.waitingFor.length) parts.push(`waiting for ${inList(r.waitingFor.map((x) => waiterWords(x, { people })))}`);
    parts.push(`started ${relativeTime(r.startedAt, w.now)}`);
    out(`${indent}${r.id}  ${titles.get(r.id) ?? r.id}  ${parts.join(' · ')}\n`);
  };
  out(`${color.bold(a.view.title)}  ${color.dim(`${a.runs.length} ${a.runs.length === 1 ? 'run' : 'runs'}`)}\n`);
  if (!a.columns) {
    for (const r of a.runs) await line(r, '');
    return;
  }
  const byId = new Map(a.runs.map((r) => [r.id, r]));
  const words = { people, processTitle: (n: string) => processes.get(n) ?? humanize(n), runTitle: (id: string) => titles.get(id) ?? `run ${id}` };
  for (const c of a.columns) {
    out(`\n${color.bold(columnTitle(c.key, words))}  ${color.dim(String(c.runs.length))}\n`);
    for (const id of c.runs) {
      const r = byId.get(id);
      if (r) await line(r, '  ');
    }
  }
}
