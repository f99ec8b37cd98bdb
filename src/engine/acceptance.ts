/**
 * When a submission completes a step (docs/processes.md "How a run moves"). Every issue is returned at
 * once, in the words of the tool contracts (`output.cleared: expected boolean`).
 */
import { formatPath } from '../core/issues.js';
import type { Step } from '../process/model.js';
import { checkValues, type KnownPeople } from '../process/values.js';
import type { EvidenceRecord } from '../protocol/completions.js';

export interface Submission {
  output?: unknown;
  evidence?: { kind: string; ref: string }[];
  summary?: string;
  next?: string;
  reason?: string;
}

/** What the service found for each `file` evidence ref: its recorded hash, or why it does not verify. */
export type FileCheck = (ref: string) => { ok: true; sha256: string } | { ok: false; problem: string };

export const SUMMARY_MAX = 2000;

export function accept(def: Step, sub: Submission, opts: { summaryRequired: boolean; checkFile: FileCheck; people?: KnownPeople }): { issues: string[]; evidence: EvidenceRecord[] } {
  const issues: string[] = [];
  if (sub.summary === undefined || sub.summary.trim() === '') {
    if (opts.summaryRequired) issues.push('summary: missing');
  } else if (sub.summary.length > SUMMARY_MAX) issues.push(`summary: longer than ${SUMMARY_MAX} characters`);

  checkValues(def.output ?? {}, sub.output ?? {}, ['output'], (path, message) => issues.push(`${formatPath(path)}: ${message}`), opts.people);

  const evidence: EvidenceRecord[] = [];
  for (const item of sub.evidence ?? []) {
    if (item.kind === 'file') {
      const f = opts.checkFile(item.ref);
      if (f.ok) evidence.push({ kind: 'file', ref: item.ref, sha256: f.sha256 });
      else issues.push(`evidence ${item.ref}: ${f.problem}`);
    } else evidence.push({ kind: 'link', ref: item.ref });
  }
  for (const kind of def.evidence ?? []) {
    if (!(sub.evidence ?? []).some((e) => e.kind === kind)) issues.push(`evidence: ${kind} required`);
  }

  if (Array.isArray(def.next)) {
    const allowed = def.next.map((r) => r.to);
    if (sub.next === undefined || sub.next === '') issues.push(`next: required, one of ${allowed.join(', ')}`);
    else if (!allowed.includes(sub.next)) issues.push(`next: "${sub.next}" is not one of ${allowed.join(', ')}`);
    if (sub.reason === undefined || sub.reason.trim() === '') issues.push('reason: required');
  } else {
    if (sub.next !== undefined) issues.push(`next: not allowed; this step always continues at ${def.next ?? 'the end'}`);
    if (sub.reason !== undefined) issues.push('reason: not allowed; this step has no choice of route');
  }
  return { issues, evidence };
}
