/**
 * What every validation section shares: readers of the raw frontmatter
 * values, the draft a step is checked as until the whole file passes, and
 * where in the file an edge of a draft is written.
 */
import type { IssueList, PathSegment } from '../../core/issues.js';
import type { Edge } from '../graph.js';
import type { Step } from '../model.js';

export type Obj = Record<string, unknown>;

export const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
export const isNum = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);
export const blank = (v: unknown) => typeof v !== 'string' || v.trim() === '';
export const own = (o: Obj, k: string) => Object.hasOwn(o, k);
export const list = (items: readonly string[]) => items.join(', ');

export function unknownKeys(issues: IssueList, obj: Obj, allowed: readonly string[], path: PathSegment[]): void {
  for (const k of Object.keys(obj)) if (!allowed.includes(k)) issues.add([...path, k], 'unknown key');
}

/** A step as validation builds it: the model step, where it sits in the file, and the map it came from. */
export interface StepDraft {
  step: Step;
  index: number;
  /** Whether the file named `next` (as opposed to the following-step default). */
  explicitNext: boolean;
  raw: Obj;
  /** An entry that is no step (not a map, no kind key, two kind keys): it carries only the edges it names. */
  shadow: boolean;
}

/** The id an entry without a usable one is checked under: never a valid step id, so nothing can name it. */
export const standInId = (index: number) => `#${index}`;

/** Whether a draft's id is a stand-in rather than one the file gave. */
export const isStandIn = (id: string) => id.startsWith('#');

/** Where in the file the key that makes an edge sits. */
export function edgePath(d: StepDraft, e: Edge): PathSegment[] {
  const p: PathSegment[] = ['steps', d.index, e.key];
  if (e.index === undefined) return p;
  if (e.key !== 'next' || typeof (d.raw.next as unknown[])[e.index] === 'string') return [...p, e.index];
  return [...p, e.index, 'to'];
}
