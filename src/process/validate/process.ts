/**
 * Validate a parsed PROCESS.md frontmatter against docs/processes.md "The rules we enforce" and the
 * publication rules of the parallel-1, check-1 and flow-1 profiles. Pure. This file
 * holds the entry point and the top-level keys (docs/processes.md "The file"); each other section of
 * the rules has its own file beside it.
 *
 * Every problem is collected; nothing stops at the first. Paths are segment
 * lists turned into `steps[2].next[1].to` and located in the source later.
 */
import { IssueList } from '../../core/issues.js';
import { NAME_PATTERN, type Process } from '../model.js';
import type { Offer } from '../../protocol/offer.js';
import { checkFields } from './fields.js';
import { checkFlowKeys } from './flow-keys.js';
import { isObj, own, unknownKeys } from './raw.js';
import { checkReferences } from './references.js';
import { draftSteps } from './steps.js';
import { checkLinkPaths } from './subprocess.js';

const TOP_KEYS = ['name', 'description', 'inputs', 'requires', 'steps', 'flow'];

export interface ValidationResult {
  /** Present only when there are no issues. */
  process?: Process;
  issues: IssueList;
}

export function validateProcess(data: unknown, body: string, offer: Offer): ValidationResult {
  const issues = new IssueList();
  if (!isObj(data)) {
    issues.add([], 'frontmatter must be a YAML map with name, description and steps');
    return { issues };
  }
  unknownKeys(issues, data, TOP_KEYS, []);

  const name = data.name;
  if (!own(data, 'name')) issues.add(['name'], 'required');
  else if (typeof name !== 'string') issues.add(['name'], 'expected string');
  else if (name.length > 64 || !NAME_PATTERN.test(name)) issues.add(['name'], 'must be 1–64 lowercase letters or digits in words joined by single hyphens, e.g. supplier-onboarding');

  if (!own(data, 'description')) issues.add(['description'], 'required');
  else if (typeof data.description !== 'string') issues.add(['description'], 'expected string');
  else if (data.description.trim() === '') issues.add(['description'], 'must not be empty');

  const inputs = own(data, 'inputs') ? checkFields(issues, data.inputs, ['inputs'], offer) : {};
  const requires = own(data, 'requires') ? checkRequires(issues, data.requires) : undefined;
  const flow = own(data, 'flow') ? checkFlowKeys(issues, data.flow, inputs, offer) : undefined;

  // References and reachability are checked even when some steps are broken, so every problem shows at once.
  const drafted = draftSteps(issues, offer, data.steps, own(data, 'steps'));
  if (drafted) checkReferences(issues, drafted.drafts, inputs);
  if (drafted?.complete) {
    const steps = drafted.drafts.map((d) => d.step);
    checkLinkPaths(issues, { inputs, steps, ...(flow ? { flow } : {}) }, (id) => drafted.drafts.find((d) => d.step.id === id)?.index ?? 0);
    const outcomes = new Set(['failed', 'rejected', ...steps.filter((s) => s.kind === 'finish').map((s) => s.value)]);
    flow?.followOn?.forEach((rule, i) => {
      for (const w of rule.when) if (!outcomes.has(w)) issues.add(['flow', 'follow_on', i, 'when'], `"${w}" is no outcome of this process (${[...outcomes].join(', ')})`);
    });
  }

  if (issues.size > 0 || !drafted?.complete || typeof name !== 'string' || typeof data.description !== 'string') {
    return { issues };
  }
  const drafts = drafted.drafts;
  const process: Process = {
    name,
    description: data.description,
    inputs,
    steps: drafts.map((d) => d.step),
    frontmatter: data,
    body,
  };
  if (requires) process.requires = requires;
  if (flow) process.flow = flow;
  return { process, issues };
}

function checkRequires(issues: IssueList, value: unknown): { systems: string[] } | undefined {
  if (!isObj(value)) {
    issues.add(['requires'], 'expected a map with systems');
    return undefined;
  }
  unknownKeys(issues, value, ['systems'], ['requires']);
  if (!own(value, 'systems')) {
    issues.add(['requires', 'systems'], 'required');
    return undefined;
  }
  const systems = value.systems;
  if (!Array.isArray(systems) || systems.length === 0) {
    issues.add(['requires', 'systems'], 'expected a list of one or more system names');
    return undefined;
  }
  const seen = new Set<string>();
  systems.forEach((s, i) => {
    if (typeof s !== 'string' || s.length > 64 || !NAME_PATTERN.test(s)) issues.add(['requires', 'systems', i], 'must be a name like salesforce or google-drive (lowercase, digits, single hyphens)');
    else if (seen.has(s)) issues.add(['requires', 'systems', i], `"${s}" listed twice`);
    else seen.add(s);
  });
  return { systems: systems.filter((s): s is string => typeof s === 'string') };
}
