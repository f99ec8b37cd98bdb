/**
 * A draft PROCESS.md as a map: the same parse and validation as `validate`,
 * and, when validation refuses the file, the steps it could still read, so
 * the map shows the problems where they are. Pure.
 */
import type { Issue } from '../core/issues.js';
import { IssueList } from '../core/issues.js';
import { loadProcess } from '../process/load.js';
import type { Process } from '../process/model.js';
import { parseMarkdown } from '../core/markdown.js';
import { draftSteps } from '../process/validate/steps.js';
import type { Offer } from '../protocol/offer.js';

export interface Draft {
  process: Process;
  /** What validation found, as `validate` prints it. */
  issues: Issue[];
  /** The same, with `steps[i]` counting the steps drawn. */
  problems: Issue[];
}

export function loadDraft(text: string, offer: Offer): Draft {
  const loaded = loadProcess(text, offer);
  if (loaded.ok) return { process: loaded.process, issues: [], problems: [] };
  const parsed = parseMarkdown(text);
  const data = parsed.ok && typeof parsed.value.data === 'object' && parsed.value.data !== null ? (parsed.value.data as Record<string, unknown>) : {};
  const drafted = Object.hasOwn(data, 'steps') ? draftSteps(new IssueList(), offer, data.steps, true) : undefined;
  // Entries that are no step at all are left off the map; their problems are listed above it.
  const drafts = (drafted?.drafts ?? []).filter((d) => !d.shadow);
  const steps = drafts.map((d) => d.step);
  // As validation does: a step that names no next goes on to the following one.
  steps.forEach((s, i) => {
    if (s.next === null && s.kind !== 'finish' && steps[i + 1]) s.next = steps[i + 1]!.id;
  });
  // The map numbers steps as drawn; an issue's `steps[i]` is the file's entry i.
  const drawnAt = new Map(drafts.map((d, i) => [d.index, i]));
  const problems = loaded.issues.map((p) => {
    const m = /^steps\[(\d+)\]/.exec(p.path);
    if (!m) return p;
    const at = drawnAt.get(Number(m[1]));
    return at === undefined ? { ...p, path: '', message: `${p.path}: ${p.message}` } : { ...p, path: `steps[${at}]${p.path.slice(m[0].length)}` };
  });
  const str = (v: unknown) => (typeof v === 'string' ? v : '');
  return {
    process: { name: str(data.name) || 'draft', description: str(data.description), inputs: {}, steps, frontmatter: data, body: parsed.ok ? parsed.value.body : '' },
    issues: loaded.issues,
    problems,
  };
}
