/**
 * Processes: the published ones (list_processes) with their versions, and a
 * process's page: one version's map and text, its inputs, and the "start a
 * run" form generated from those inputs with the same field components as
 * the decide form.
 */
import { Layout, type Frame } from './layout.js';
import { Fields, type FieldContext } from './fields.js';
import { IssueList, Markdown, Notice } from './parts.js';
import type { WebField } from '../form-values.js';
import type { ProcessSummary } from '../views.js';

export interface ProcessRow {
  summary: ProcessSummary;
  versions: number[];
  /** The process's title in words (from its latest version), else its name humanised. */
  title: string;
}

const mapUrl = (name: string, v: number) => `/processes/${name}/v${v}/map.svg`;

export function ProcessesPage({ frame, rows }: { frame: Frame; rows: ProcessRow[] }) {
  return (
    <Layout frame={frame}>
      <h1>Processes</h1>
      {rows.length === 0 ? (
        <Notice kind="info" title="Nothing published yet">
          <p>
            A process appears here once it is published with <code>workboard publish</code>.
          </p>
        </Notice>
      ) : (
        <ol class="items">
          {rows.map(({ summary: s, versions, title }) => (
            <li key={s.name} class="item">
              <article aria-labelledby={`p-${s.name}`}>
                <h2 id={`p-${s.name}`}>
                  <a href={`/processes/${s.name}`}>{title}</a> <span class="kind">version {s.version}</span>
                </h2>
                {s.description ? <p class="desc">{s.description}</p> : null}
                <p class="meta">
                  Versions:{' '}
                  {versions.map((v, i) => (
                    <span key={v}>
                      {i > 0 ? ', ' : null}
                      <a href={`/processes/${s.name}?version=${v}`} aria-label={`v${v} of ${s.name}`}>
                        v{v}
                      </a>
                    </span>
                  ))}
                  {' · '}
                  <a href={`/processes/${s.name}#start-h`}>Start a run</a>
                </p>
              </article>
            </li>
          ))}
        </ol>
      )}
    </Layout>
  );
}

export interface ProcessPageProps {
  frame: Frame;
  name: string;
  /** The process's title in words. */
  title: string;
  description: string;
  version: number;
  latest: number;
  versions: number[];
  body: string;
  fields: WebField[];
  /** The start form, when this person may start the process. */
  start: { ctx: FieldContext; requestId: string; test: boolean } | null;
  problem?: { title: string; text: string; issues: string[] };
}

function StartForm({ p }: { p: ProcessPageProps }) {
  const s = p.start!;
  const top = [...(s.ctx.issues.get('') ?? [])];
  return (
    <form method="post" action={`/processes/${p.name}/start`} class="decide" aria-labelledby="start-h">
      <h2 id="start-h">Start a run</h2>
      {p.problem ? (
        <Notice kind="error" title={p.problem.title}>
          <p>{p.problem.text}</p>
        </Notice>
      ) : null}
      <IssueList list={top} />
      <input type="hidden" name="csrf" value={p.frame.me!.csrf} />
      <input type="hidden" name="requestId" value={s.requestId} />
      <input type="hidden" name="version" value={String(p.version)} />
      {p.fields.length > 0 ? (
        <fieldset class="group">
          <legend>Inputs of version {p.version}</legend>
          <Fields fields={p.fields} ctx={s.ctx} />
        </fieldset>
      ) : (
        <p class="muted">This process takes no inputs.</p>
      )}
      <label class="kept">
        <input type="checkbox" name="mode" value="test" checked={s.test} /> A test run: marked as one everywhere, and no notification is sent for it
      </label>
      <div class="buttons">
        <button type="submit" class="primary">
          Start a run of version {p.version}
        </button>
      </div>
    </form>
  );
}

export function ProcessPage(p: ProcessPageProps) {
  return (
    <Layout frame={p.frame}>
      <p class="crumbs">
        <a href="/processes">Processes</a> › {p.title}
      </p>
      <h1>{p.title}</h1>
      <p class="small-id">
        {p.name}, version {p.version}
      </p>
      {p.description ? <p class="desc">{p.description}</p> : null}
      {p.version !== p.latest ? (
        <Notice kind="warn" title={`An older version: the latest is v${p.latest}`}>
          <p>
            <a href={`/processes/${p.name}`}>See the latest version</a>
          </p>
        </Notice>
      ) : null}
      <nav aria-label="Versions" class="meta versions">
        Versions:{' '}
        {p.versions.map((v, i) => (
          <span key={v}>
            {i > 0 ? ', ' : null}
            <a href={`/processes/${p.name}?version=${v}`} aria-current={v === p.version ? 'page' : undefined}>
              v{v}
            </a>
          </span>
        ))}
      </nav>
      <div class="columns">
        <div class="col-main">
          {p.start ? (
            <StartForm p={p} />
          ) : (
            <Notice kind="info" title="You cannot start this process">
              <p>WORK.md does not let you start {p.title}.</p>
            </Notice>
          )}
        </div>
        <div class="col-side">
          <section aria-labelledby="map-h">
            <h2 id="map-h">Map</h2>
            <figure class="map">
              <a href={`/processes/${p.name}/v${p.version}/map`}>
                <img src={mapUrl(p.name, p.version)} alt={`Map of ${p.title} version ${p.version}: its steps and who does each`} />
              </a>
              <figcaption>
                <a href={`/processes/${p.name}/v${p.version}/map`}>Open the map full size</a>
              </figcaption>
            </figure>
          </section>
          <details class="body">
            <summary>About this process</summary>
            <Markdown text={p.body} />
          </details>
        </div>
      </div>
    </Layout>
  );
}
