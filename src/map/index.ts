/**
 * The map renderer's public face: a published version (or a draft) as an SVG
 * map, a run drawn on its version's map, and the same map (or run) as
 * Mermaid. The CLI and the web app import only from here.
 */
import type { Issue } from '../core/issues.js';
import type { Process } from '../process/model.js';
import { layoutMap, type Direction, type MapLayout } from './layout.js';
import { toMermaid } from './mermaid.js';
import { mapGraph } from './model.js';
import { runMarks, type RunMapView } from './run.js';
import { drawSvg } from './svg.js';

export { linkedProcesses, mapGraph, type MapGraph } from './model.js';
export { toMermaid } from './mermaid.js';
export type { RunMapView } from './run.js';
export type { Direction, MapLayout } from './layout.js';

/** What the map needs of a published version (board `PublishedVersion` and engine `Pinned` both fit). */
export interface MapSource {
  process: Process;
  /** Role → group, as published; absent for a draft. */
  roles?: Record<string, string>;
  version?: number;
}

export interface MapOptions {
  /** The board's groups (WORK.md `groups`), so a role's lane shows its group and member count. */
  lanes?: { groups: Record<string, readonly string[]> };
  /** Problems validation found in a draft, marked on the map. */
  problems?: readonly Issue[];
  /** A line beside the name; defaults to "version N", or "draft" without roles. */
  subtitle?: string;
  /** Which way the steps flow; by default left to right unless that would draw a strip. */
  direction?: Direction;
  /** flow-1: where a step that starts runs of another process links to; no links without it. */
  linkTo?: (process: string) => string;
}

const HEADER = 60;
/** A run map names its current step under the heading. */
const NOW_LINE = 17;

function graphOf(pinned: MapSource, opts: MapOptions) {
  return mapGraph(pinned.process, { ...(pinned.roles ? { roles: pinned.roles } : {}), ...(opts.lanes ? { groups: opts.lanes.groups } : {}) }, opts.problems ?? []);
}

async function layoutOf(pinned: MapSource, opts: MapOptions, extraTop: number): Promise<MapLayout> {
  const g = graphOf(pinned, opts);
  return layoutMap(g, HEADER + extraTop + 16 * g.problems.length, opts.direction);
}

/** The laid-out map, for checks and for callers that draw it themselves. */
export async function processMapLayout(pinned: MapSource, opts: MapOptions = {}): Promise<MapLayout> {
  return layoutOf(pinned, opts, 0);
}

const subtitle = (pinned: MapSource, opts: MapOptions) => opts.subtitle ?? (pinned.version !== undefined ? `version ${pinned.version}` : pinned.roles ? undefined : 'draft');

export async function processMapSvg(pinned: MapSource, opts: MapOptions = {}): Promise<string> {
  const sub = subtitle(pinned, opts);
  return drawSvg(await processMapLayout(pinned, opts), { ...(sub ? { subtitle: sub } : {}), ...(opts.linkTo ? { linkTo: opts.linkTo } : {}) });
}

export async function runMapSvg(pinned: MapSource, runView: RunMapView, opts: MapOptions = {}): Promise<string> {
  const layout = await layoutOf(pinned, opts, NOW_LINE);
  const sub = subtitle(pinned, opts);
  return drawSvg(layout, { marks: runMarks(layout.graph, runView), ...(sub ? { subtitle: sub } : {}), ...(opts.linkTo ? { linkTo: opts.linkTo } : {}) });
}

/** A run on its map as Mermaid: each step's state as a class, and the lines it has taken drawn bold, as the SVG does. */
export function runMermaid(pinned: MapSource, runView: RunMapView, opts: MapOptions = {}): string {
  const g = graphOf(pinned, opts);
  const marks = runMarks(g, runView);
  return toMermaid(g, Object.fromEntries(runView.steps.map((s) => [s.id, s.state])), marks.taken);
}
