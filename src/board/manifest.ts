/** WORK.md: the board's name, settings, limits and people. Never a secret. */
import type { BoardDoc } from './store.js';

export interface Settings {
  leaseSeconds: number;
  lockStaleSeconds: number;
  runDataBytes: number;
  maxUploadBytes: number;
}

export const DEFAULT_SETTINGS: Settings = {
  leaseSeconds: 600,
  lockStaleSeconds: 30,
  runDataBytes: 256 * 1024,
  maxUploadBytes: 10 * 1024 * 1024,
};

export interface Manifest {
  name: string;
  title: string;
  description: string;
  settings: Settings;
  people: { email: string; name?: string }[];
  groups: Record<string, string[]>;
  operators: string[];
  agents: { id: string; description?: string }[];
  notify: { command: string; args: string[] } | null;
}

export function manifestFrom(doc: BoardDoc): Manifest {
  const d = doc.data as {
    name: string;
    title: string;
    description: string;
    coordination?: Partial<Pick<Settings, 'leaseSeconds' | 'lockStaleSeconds'>>;
    limits?: Partial<Pick<Settings, 'runDataBytes' | 'maxUploadBytes'>>;
    people?: { email: string; name?: string }[];
    groups?: Record<string, string[]>;
    operators?: string[];
    agents?: { id: string; description?: string }[];
    notify?: { command: string; args?: string[] };
  };
  return {
    name: d.name,
    title: d.title,
    description: d.description,
    settings: { ...DEFAULT_SETTINGS, ...(d.coordination ?? {}), ...(d.limits ?? {}) },
    people: d.people ?? [],
    groups: d.groups ?? {},
    operators: d.operators ?? [],
    agents: d.agents ?? [],
    notify: d.notify ? { command: d.notify.command, args: d.notify.args ?? [] } : null,
  };
}

/** The frontmatter of a new board's WORK.md. */
export function newManifestData(name: string, title: string, description: string): Record<string, unknown> {
  return {
    schema: 'workboard/v1',
    name,
    title,
    description,
    coordination: { leaseSeconds: DEFAULT_SETTINGS.leaseSeconds, lockStaleSeconds: DEFAULT_SETTINGS.lockStaleSeconds },
    limits: { runDataBytes: DEFAULT_SETTINGS.runDataBytes, maxUploadBytes: DEFAULT_SETTINGS.maxUploadBytes },
    people: [],
    groups: {},
    operators: [],
    agents: [],
  };
}
