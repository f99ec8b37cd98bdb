/**
 * Saved views (docs/operators.md "Saved views"): WORK.md's `views:`, each a
 * filter over the board's runs, a grouping and a layout, read from the
 * frontmatter and checked for what its schema cannot say. The first view is
 * the default. Pure: the rules of which run a view shows are in view-filter.ts.
 */
import type { Issue } from '../core/issues.js';
import { PRIORITY_LEVELS } from '../process/model.js';
import type { RunRecord } from './types.js';

export const VIEW_LAYOUTS = ['list', 'board'] as const;
/** What a board layout's columns are: a run's state, its level, who it waits for, its process, its parent run. */
export const VIEW_GROUPS = ['state', 'priority', 'waitingFor', 'process', 'parent'] as const;
export const VIEW_STATES = ['active', 'waiting', 'ended', 'cancelled'] as const;

export type ViewLayout = (typeof VIEW_LAYOUTS)[number];
export type ViewGroup = (typeof VIEW_GROUPS)[number];

export interface ViewFilter {
  process?: string[];
  state?: RunRecord['state'][];
  /** true: only runs waiting for other runs; false: only runs that are not. */
  blocked?: boolean;
  /** Levels, 10 low to 40 urgent. */
  priority?: number[];
  overdue?: boolean;
  /** A person's email or a group's name: runs with a step open for them. */
  assignee?: string;
  /** A run id: only the runs started as its children. */
  parent?: string;
  mode?: RunRecord['mode'];
}

export interface SavedView {
  id: string;
  title: string;
  filter: ViewFilter;
  /** Absent: a board layout has columns by state, a list is not grouped. */
  groupBy: ViewGroup | null;
  layout: ViewLayout;
}

interface RawView {
  id: string;
  title: string;
  filter?: { process?: string[]; state?: RunRecord['state'][]; blocked?: boolean; priority?: string[]; overdue?: boolean; assignee?: string; parent?: string; mode?: RunRecord['mode'] };
  groupBy?: ViewGroup;
  layout?: ViewLayout;
}

const levelOf = (word: string): number => (Object.hasOwn(PRIORITY_LEVELS, word) ? PRIORITY_LEVELS[word as keyof typeof PRIORITY_LEVELS] : 0);

/** The views of a WORK.md whose frontmatter passed its schema (work.schema.json holds their shape). */
export function viewsFrom(data: { views?: unknown }): SavedView[] {
  const raw = Array.isArray(data.views) ? (data.views as RawView[]) : [];
  return raw.map((v) => {
    const f = v.filter ?? {};
    const filter: ViewFilter = {};
    const { process, state, priority } = f;
    if (process) filter.process = process;
    if (state) filter.state = state;
    if (f.blocked !== undefined) filter.blocked = f.blocked;
    if (priority) filter.priority = priority.map(levelOf);
    if (f.overdue !== undefined) filter.overdue = f.overdue;
    if (f.assignee !== undefined) filter.assignee = f.assignee;
    if (f.parent !== undefined) filter.parent = f.parent;
    if (f.mode !== undefined) filter.mode = f.mode;
    return { id: v.id, title: v.title, filter, groupBy: v.groupBy ?? null, layout: v.layout ?? 'list' };
  });
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * What WORK.md's schema cannot tell of its views: an id given twice, and an
 * assignee who is neither a declared person nor a group. Each problem with its
 * place (`views[2].filter.assignee`), all at once.
 */
export function viewIssues(data: Record<string, unknown>): Issue[] {
  if (!Array.isArray(data.views)) return [];
  const people = new Set((Array.isArray(data.people) ? data.people : []).filter(isRecord).map((p) => String(p.email)));
  const groups = new Set([...Object.keys(isRecord(data.groups) ? data.groups : {}), 'operators']);
  const issues: Issue[] = [];
  const seen = new Map<string, number>();
  data.views.forEach((v: unknown, i) => {
    if (!isRecord(v)) return;
    if (typeof v.id === 'string') {
      const first = seen.get(v.id);
      if (first !== undefined) issues.push({ path: `views[${i}].id`, message: `"${v.id}" is already the id of views[${first}]; each view needs its own id` });
      else seen.set(v.id, i);
    }
    const a = isRecord(v.filter) ? v.filter.assignee : undefined;
    if (typeof a === 'string' && !people.has(a) && !groups.has(a))
      issues.push({ path: `views[${i}].filter.assignee`, message: `"${a}" is neither a person (people:) nor a group (groups:) of this board` });
  });
  return issues;
}
