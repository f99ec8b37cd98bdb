/**
 * Internal faults, each kept with an incident id in `.work/incidents.jsonl`
 * (coordinator state, never committed), so an operator can find what an agent
 * was told and `doctor` can show what keeps failing.
 */
import { randomBytes } from 'node:crypto';
import { promises as fs } from 'node:fs';
import type { BoardStore } from '../board/store.js';
import { STATE_DIR } from '../board/layout.js';

export const INCIDENTS_FILE = `${STATE_DIR}/incidents.jsonl`;

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
export async function recordIncident(store: BoardStore, tool: string, error: unknown, now: Date): Promise<string> {
  const id = `i-${now.getTime().toString(36)}-${randomBytes(3).toString('hex')}`;
  const e = error instanceof Error ? error : new Error(String(error));
  const line: Incident = { id, ts: now.toISOString(), tool, message: e.message, ...(e.stack ? { stack: e.stack } : {}) };
  await fs.appendFile(store.abs(INCIDENTS_FILE), `${JSON.stringify(line)}\n`).catch(() => undefined);
  return id;
}

/** Incidents recorded since `since`, oldest first; lines that do not parse are skipped. */
export async function incidentsSince(store: BoardStore, since: Date): Promise<Incident[]> {
  let text: string;
  try {
    text = await fs.readFile(store.abs(INCIDENTS_FILE), 'utf8');
  } catch {
    return [];
  }
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
