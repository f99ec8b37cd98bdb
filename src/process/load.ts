/** From PROCESS.md text to a validated process with its hash, or every issue with its place. */
import type { Issue } from '../core/issues.js';
import { processHash } from './hash.js';
import type { Process } from './model.js';
import { locateIssues, parseMarkdown } from '../core/markdown.js';
import type { Offer } from '../protocol/offer.js';
import { validateProcess } from './validate/process.js';

export type LoadedProcess = { ok: true; process: Process; hash: string } | { ok: false; issues: Issue[] };

export function loadProcess(text: string, offer: Offer): LoadedProcess {
  const parsed = parseMarkdown(text);
  if (!parsed.ok) return parsed;
  const { data, body, locate } = parsed.value;
  const result = validateProcess(data, body, offer);
  if (!result.process) return { ok: false, issues: locateIssues(result.issues.items, locate) };
  return { ok: true, process: result.process, hash: processHash(result.process.frontmatter, body) };
}
