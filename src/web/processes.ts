/**
 * Processes for people: the published ones (list_processes) with their
 * versions, a version's map as an image, and starting a run (start_run as
 * the signed-in person, from a form generated from the version's inputs),
 * then on to the new run's page. The service decides who may start what and
 * whether the inputs fit; its issues are shown beside their fields.
 */
import { randomUUID } from 'node:crypto';
import { h } from 'preact';
import type { PublishedVersion } from '../service/published.js';
import { inScope } from '../engine/rights.js';
import { linkedProcesses, processMapLayout, processMapSvg } from '../map/index.js';
import { MapPage } from './pages/map.js';
import { first, issuesByField, valuesFrom, webFields, type Posted } from './form-values.js';
import { MessagePage } from './pages/message.js';
import { ProcessesPage, ProcessPage } from './pages/processes.js';
import type { PostedForm } from './request.js';
import { call, frame, redirect, sendPage, sendSvg, statusFor, type Request } from './respond.js';
import { pinnedVersion, processHref, processList } from './runs.js';
import { humanize, processTitle } from '../words/index.js';

export async function processesPage(r: Request): Promise<void> {
  const rows = [];
  for (const summary of await processList(r)) {
    const latest = await pinnedVersion(r, summary.name, summary.version);
    rows.push({ summary, versions: await r.app.service.processVersions(summary.name), title: latest ? processTitle(latest.process) : humanize(summary.name) });
  }
  sendPage(r.res, 200, h(ProcessesPage, { frame: frame(r, 'Processes', { current: 'processes' }), rows }));
}

/** A version of an offered process, or a page saying there is none (and null). */
async function version(r: Request, name: string, wanted: number | null): Promise<{ v: PublishedVersion; versions: number[]; latest: number; description: string } | null> {
  const offered = (await processList(r)).find((p) => p.name === name);
  const versions = offered ? await r.app.service.processVersions(name) : [];
  const n = wanted ?? offered?.version ?? 0;
  const v = offered && versions.includes(n) ? await r.app.service.processVersion(name, n) : null;
  if (!offered || !v) {
    sendPage(
      r.res,
      404,
      h(
        MessagePage,
        { frame: frame(r, 'Process', { current: 'processes' }), title: 'No such process' },
        h('p', null, offered ? `${name} has no version ${n} that this board can read.` : `No published process is named ${name}.`),
      ),
    );
    return null;
  }
  return { v, versions, latest: offered.version, description: offered.description };
}

function versionParam(raw: string | null | undefined): number | null {
  return raw && /^[1-9]\d{0,8}$/.test(raw) ? Number(raw) : null;
}

interface Shown {
  posted?: Posted;
  issues?: readonly string[];
  addRow?: string;
  problem?: { title: string; text: string; issues: string[] };
  status?: number;
}

async function showProcess(r: Request, name: string, wanted: number | null, s: Shown = {}): Promise<void> {
  const got = await version(r, name, wanted);
  if (!got) return;
  const { v } = got;
  const posted = s.posted ?? new Map<string, string[]>();
  sendPage(
    r.res,
    s.status ?? 200,
    h(ProcessPage, {
      frame: frame(r, `${processTitle(v.process)} v${v.version}`, { current: 'processes' }),
      name,
      title: processTitle(v.process),
      description: got.description,
      version: v.version,
      latest: got.latest,
      versions: got.versions,
      body: v.process.body,
      fields: webFields(v.process.frontmatter.inputs as Record<string, unknown> | undefined),
      start: inScope(r.actor, name)
        ? {
            ctx: {
              prefix: 'inputs',
              posted,
              issues: issuesByField(s.issues ?? []),
              people: r.app.service.board.manifest.people,
              timeZone: r.app.service.board.manifest.notifications.timeZone,
              ...(s.addRow ? { addRow: s.addRow } : {}),
            },
            requestId: first(posted, 'requestId') ?? randomUUID(),
            test: first(posted, 'mode') === 'test',
          }
        : null,
      ...(s.problem ? { problem: s.problem } : {}),
    }),
  );
}

export async function processPage(r: Request, name: string): Promise<void> {
  return showProcess(r, name, versionParam(r.url.searchParams.get('version')));
}

export async function processMap(r: Request, name: string, n: string): Promise<void> {
  const got = await version(r, name, versionParam(n));
  if (!got) return;
  sendSvg(r.res, await processMapSvg(got.v, { lanes: { groups: r.app.service.board.manifest.groups }, linkTo: processHref }));
}

/** A version's map at full size, in a box that scrolls and zooms. */
export async function processMapPage(r: Request, name: string, n: string): Promise<void> {
  const got = await version(r, name, versionParam(n));
  if (!got) return;
  const layout = await processMapLayout(got.v, { lanes: { groups: r.app.service.board.manifest.groups } });
  sendPage(
    r.res,
    200,
    h(MapPage, {
      frame: frame(r, `Map of ${name} v${got.v.version}`, { current: 'processes' }),
      title: `Map of ${processTitle(got.v.process)}, version ${got.v.version}`,
      back: { href: `/processes/${name}?version=${got.v.version}`, text: processTitle(got.v.process) },
      image: `/processes/${name}/v${got.v.version}/map.svg`,
      width: layout.width,
      height: layout.height,
      alt: `Map of ${name} version ${got.v.version}: its steps and who does each`,
      links: linkedProcesses(layout.graph).map((l) => ({
        href: processHref(l.process),
        text: humanize(l.process),
        from: l.node.kind === 'end' ? `when it ends ${l.node.title}` : `from “${l.node.title}”`,
      })),
    }),
  );
}

export async function startPost(r: Request, name: string, form: PostedForm): Promise<void> {
  const p = form.fields;
  const wanted = versionParam(first(p, 'version'));
  const addRow = first(p, '_add');
  // "Add a row" without the script: the same form again, one row longer; nothing is started.
  if (addRow !== undefined) return showProcess(r, name, wanted, { posted: p, addRow });
  const got = await version(r, name, wanted);
  if (!got) return;
  const inputs = valuesFrom(webFields(got.v.process.frontmatter.inputs as Record<string, unknown> | undefined), p, 'inputs', r.app.service.board.manifest.notifications.timeZone);
  const res = await call(r, 'start_run', {
    process: name,
    version: got.v.version,
    inputs,
    ...(first(p, 'mode') === 'test' ? { mode: 'test' } : {}),
    requestId: first(p, 'requestId') || randomUUID(),
  });
  if (res.ok) return redirect(r.res, `/runs/${res.data.run.id}?started=1`);
  const { code, message, issues = [] } = res.error;
  if (code === 'not_accepted' || code === 'invalid') {
    return showProcess(r, name, got.v.version, {
      posted: p,
      issues: issues.length ? issues : [message],
      status: 422,
      // The service's sentence names the process by its id; a person reads its title (issue 42: machine words).
      problem: { title: 'Not started: please fix what is marked', text: issues.length ? `What was entered does not fit ${processTitle(got.v.process)}, version ${got.v.version}.` : message, issues },
    });
  }
  sendPage(
    r.res,
    statusFor(code),
    h(
      MessagePage,
      { frame: frame(r, 'Not started', { current: 'processes' }), title: 'Not started' },
      h('p', null, message),
      issues.length
        ? h(
            'ul',
            null,
            issues.map((i) => h('li', null, i)),
          )
        : null,
    ),
  );
}
