/**
 * Saved views on the Runs and My work pages (docs/operators.md "Saved
 * views"): which view a page shows (the one the address names, else the
 * first when no other filter is given), the picker, and the Runs page's view
 * of runs as a list or a board of columns, every run and column in words.
 */
import { h } from 'preact';
import type { ViewAnswer } from '../service/view-runs.js';
import { columnTitle, humanize, processTitle, runTitle } from '../words/index.js';
import { MessagePage } from './pages/message.js';
import { ViewPage, ViewPicker, type PickerProps } from './pages/saved-view.js';
import { frame, sendPage, statusFor, type Request } from './respond.js';
import type { PublishedVersion } from '../service/published.js';

/** The view a page shows: `?view=all` none, `?view=<id>` that one, else the first unless the address filters by one of `filters`. Null when WORK.md declares no views. */
export function chosenView(r: Request, filters: readonly string[]): string | null {
  const views = r.app.service.board.manifest.views;
  const q = r.url.searchParams.get('view');
  if (views.length === 0 || q === 'all') return null;
  if (q) return q;
  return filters.some((k) => r.url.searchParams.get(k)) ? null : (views[0]?.id ?? null);
}

export function pickerFor(r: Request, action: string, current: string | null, none: string): PickerProps {
  return { action, views: r.app.service.board.manifest.views.map((v) => ({ id: v.id, title: v.title })), current, none };
}

/** Column headings and run titles in words: each run by its pinned version, each process by its title. */
export async function viewWords(r: Request, a: ViewAnswer): Promise<{ names: Map<string, string>; columns: { title: string; runs: string[] }[] | null }> {
  const people = r.app.service.board.manifest.people;
  const names = new Map<string, string>();
  const processes = new Map<string, string>();
  // A view names many runs of a few versions: each version read once.
  const versions = new Map<string, Promise<PublishedVersion | null>>();
  const pinned = (name: string, version: number) => {
    const key = `${name}@${version}`;
    const known = versions.get(key);
    if (known) return known;
    const read = r.app.service.processVersion(name, version);
    versions.set(key, read);
    return read;
  };
  for (const run of a.runs) {
    const v = await pinned(run.process, run.version);
    names.set(run.id, v ? runTitle(v.process, run.inputs, people) : humanize(run.process));
    if (v && !processes.has(run.process)) processes.set(run.process, processTitle(v.process));
  }
  const words = { people, processTitle: (n: string) => processes.get(n) ?? humanize(n), runTitle: (id: string) => names.get(id) ?? `run ${id}` };
  return { names, columns: a.columns ? a.columns.map((c) => ({ title: columnTitle(c.key, words), runs: c.runs })) : null };
}

/** The Runs page showing a saved view. */
export async function runsView(r: Request, id: string): Promise<void> {
  const picker = pickerFor(r, '/runs', id, 'All runs');
  const res = await r.app.service.savedView(id);
  if (!res.ok)
    return sendPage(r.res, statusFor(res.error.code), h(MessagePage, { frame: frame(r, 'Runs', { current: 'runs' }), title: 'No such view' }, h(ViewPicker, picker), h('p', null, res.error.message)));
  const { names, columns } = await viewWords(r, res.data);
  sendPage(
    r.res,
    200,
    h(ViewPage, {
      frame: frame(r, `${res.data.view.title}: Runs`, { current: 'runs' }),
      heading: 'Runs',
      picker,
      title: res.data.view.title,
      runs: res.data.runs.map((run) => ({ run, name: names.get(run.id) ?? run.id })),
      columns,
    }),
  );
}
