/**
 * Internal faults, each kept with an incident id in `.work/incidents.jsonl`
 * (coordinator state, never committed), so an operator can find what an agent
 * was told and `doctor` can show what keeps failing.
 */
import { randomBytes } from 'node:crypto';
import type { WorkState } from '../board/state.js';
import { INCIDENTS_FILE } from '../board/layout.js';

export { INCIDENTS_FILE };

/** How long `doctor` reports an incident: long enough to be seen, never for ever. */
export const INCIDENT_SHOWN_MS = 24 * 3600_000;

export interface Incident {
  id: string;
  ts: string;
  tool: string;
  message: string;
  stack?: string;
}

/** Record a fault; its id is returned even when the record itself cannot be written (a read-only disk). */
export function recordIncident(state: WorkState, tool: string, error: unknown, now: Date): string {
  const id = `i-${now.getTime().toString(36)}-${randomBytes(3).toString('hex')}`;
  const e = error instanceof Error ? error : new Error(String(error));
  const line: Incident = { id, ts: now.toISOString(), tool, message: e.message, ...(e.stack ? { stack: e.stack } : {}) };
  try {
    state.append(INCIDENTS_FILE, JSON.stringify(line));
  } catch {
    // the agent is still told the id; the record is lost with the disk
  }
  return id;
}

/** Incidents recorded since `since`, oldest first; lines that do not parse are skipped. */
export async function incidentsSince(state: WorkState, since: Date): Promise<Incident[]> {
  const text = (await state.readText(INCIDENTS_FILE).catch(() => null)) ?? '';
  const out: Incident[] = [];
  for (const l of text.split('\n')) {
    try {
      const v = JSON.parse(l) as Incident;
      if (typeof v.id === 'string' && typeof v.ts === 'string' && v.ts >= since.toISOString()) out.push(v);
    } catch {
      // a torn or foreign line
    }
  }
  return out;
}
