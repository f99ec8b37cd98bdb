/**
 * The protocol's vocabulary of what a server offers: the fourteen tool names,
 * the profiles, and an offer (which of them a board serves), which decides
 * what a process may use at publication.
 */

export const PROFILES = ['parallel-1', 'check-1', 'flow-1', 'fields-1'] as const;
export type Profile = (typeof PROFILES)[number];

export const TOOLS = ['describe', 'list_processes', 'start_run', 'get_run', 'get_work', 'claim', 'renew', 'upload', 'submit', 'escalate', 'decide', 'cancel', 'send_event', 'list_runs'] as const;
export type Tool = (typeof TOOLS)[number];

/** Whether a name off the wire is one of the fourteen tools. */
export function isTool(name: string): name is Tool {
  return (TOOLS as readonly string[]).includes(name);
}

export interface Offer {
  profiles: ReadonlySet<string>;
  tools: ReadonlySet<string>;
}

/** Everything workboard implements. */
export const FULL_OFFER: Offer = { profiles: new Set(PROFILES), tools: new Set(TOOLS) };

/** Parse a `--profiles` value: a comma-separated list, `none`, or `all`. Unknown names are returned as problems. */
export function parseProfiles(spec: string): { profiles: Set<string>; unknown: string[] } {
  const names = spec
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
  if (names.length === 1 && names[0] === 'all') return { profiles: new Set(PROFILES), unknown: [] };
  if (names.length === 1 && names[0] === 'none') return { profiles: new Set(), unknown: [] };
  const known = new Set<string>(PROFILES);
  return { profiles: new Set(names.filter((n) => known.has(n))), unknown: names.filter((n) => !known.has(n)) };
}
