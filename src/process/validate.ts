/**
 * Validate a parsed PROCESS.md frontmatter against spec §2 and the
 * publication rules of the parallel-1 and check-1 profiles. Pure.
 *
 * Every problem is collected; nothing stops at the first. Paths are segment
 * lists turned into `steps[2].next[1].to` and located in the source later.
 */
import { IssueList, type PathSegment } from '../core/issues.js';
import {
  DURATION_PATTERN,
  EVIDENCE_KINDS,
  FIELD_NAME_PATTERN,
  FIELD_TYPES,
  JOIN,
  NAME_PATTERN,
  ROLE_PATTERN,
  STEP_ID_PATTERN,
  STEP_KINDS,
  forwardTargets,
  type CheckQuestion,
  type EvidenceKind,
  type FieldSpec,
  type FieldType,
  type Fields,
  type Process,
  type Route,
  type Scalar,
  type Step,
  type StepKind,
} from './model.js';
import type { Offer } from './profiles.js';
import { hasType, expectedText } from './values.js';

type Obj = Record<string, unknown>;

const TOP_KEYS = ['name', 'description', 'inputs', 'requires', 'steps'];

/** The optional keys each kind allows, beside `id` and the kind key. */
const KIND_KEYS: Record<StepKind, readonly string[]> = {
  agent: ['output', 'evidence', 'next', 'due', 'check', 'advisory'],
  task: ['person', 'output', 'evidence', 'next', 'due', 'check', 'advisory'],
  approve: ['person', 'next', 'on_reject', 'due'],
  wait: ['next'],
  wait_until: ['next'],
  wait_for: ['next', 'timeout', 'on_timeout'],
  finish: [],
  parallel: ['next'],
};
const STEP_KEYS = new Set<string>(['id', ...STEP_KINDS, ...Object.values(KIND_KEYS).flat()]);
const FIELD_KEYS = ['type', 'description', 'optional', 'one_of', 'items'];
const QUESTION_KEYS = ['ask', 'pass', 'fail', 'one_of', 'unsure', 'levels', 'confidence'];

const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const isNum = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);
const blank = (v: unknown) => typeof v !== 'string' || v.trim() === '';
const own = (o: Obj, k: string) => Object.hasOwn(o, k);
const list = (items: readonly string[]) => items.join(', ');

export interface ValidationResult {
  /** Present only when there are no issues. */
  process?: Process;
  issues: IssueList;
}

export function validateProcess(data: unknown, body: string, offer: Offer): ValidationResult {
  return new Validator(offer).run(data, body);
}

interface StepDraft {
  step: Step;
  index: number;
  /** Whether the file named `next` (as opposed to the following-step default). */
  explicitNext: boolean;
  raw: Obj;
}

class Validator {
  private readonly issues = new IssueList();
  constructor(private readonly offer: Offer) {}

  private add(path: PathSegment[], message: string) {
    this.issues.add(path, message);
  }

  run(data: unknown, body: string): ValidationResult {
    if (!isObj(data)) {
      this.add([], 'frontmatter must be a YAML map with name, description and steps');
      return { issues: this.issues };
    }
    this.unknownKeys(data, TOP_KEYS, []);

    const name = data.name;
    if (!own(data, 'name')) this.add(['name'], 'required');
    else if (typeof name !== 'string') this.add(['name'], 'expected string');
    else if (name.length > 64 || !NAME_PATTERN.test(name))
      this.add(['name'], 'must be 1–64 lowercase letters or digits in words joined by single hyphens, e.g. supplier-onboarding');

    if (!own(data, 'description')) this.add(['description'], 'required');
    else if (typeof data.description !== 'string') this.add(['description'], 'expected string');
    else if (data.description.trim() === '') this.add(['description'], 'must not be empty');

    const inputs = own(data, 'inputs') ? this.fields(data.inputs, ['inputs']) : {};
    const requires = own(data, 'requires') ? this.requires(data.requires) : undefined;

    const drafts = this.steps(data.steps, own(data, 'steps'));
    if (drafts) this.graph(drafts, inputs);

    if (this.issues.size > 0 || !drafts || typeof name !== 'string' || typeof data.description !== 'string') {
      return { issues: this.issues };
    }
    const process: Process = {
      name,
      description: data.description,
      inputs,
      steps: drafts.map((d) => d.step),
      frontmatter: data,
      body,
    };
    if (requires) process.requires = requires;
    return { process, issues: this.issues };
  }

  private unknownKeys(obj: Obj, allowed: readonly string[], path: PathSegment[]) {
    for (const k of Object.keys(obj)) if (!allowed.includes(k)) this.add([...path, k], 'unknown key');
  }

  // ---- fields (§2.3) -------------------------------------------------------

  private fields(value: unknown, path: PathSegment[]): Fields {
    const out: Fields = {};
    if (value === null) return out;
    if (!isObj(value)) {
      this.add(path, 'expected a map of field names to types');
      return out;
    }
    for (const [name, def] of Object.entries(value)) {
      if (!FIELD_NAME_PATTERN.test(name)) {
        this.add([...path, name], 'field name must start with a letter and use only letters, digits, _ or - (at most 64)');
      }
      const spec = this.field(def, [...path, name], false);
      if (spec) Object.defineProperty(out, name, { value: spec, enumerable: true, writable: true, configurable: true });
    }
    return out;
  }

  private field(def: unknown, path: PathSegment[], inItems: boolean): FieldSpec | undefined {
    if (typeof def === 'string') {
      const type = this.type(def, path);
      return type ? { type, optional: false } : undefined;
    }
    if (!isObj(def)) {
      this.add(path, `expected a type name (${list(FIELD_TYPES)}) or a field object with type`);
      return undefined;
    }
    this.unknownKeys(def, FIELD_KEYS, path);
    let type: FieldType | undefined;
    if (!own(def, 'type')) this.add([...path, 'type'], 'required');
    else if (typeof def.type !== 'string') this.add([...path, 'type'], 'expected string');
    else type = this.type(def.type, [...path, 'type']);

    const spec: FieldSpec = { type: type ?? 'string', optional: false };
    if (own(def, 'description')) {
      if (typeof def.description !== 'string') this.add([...path, 'description'], 'expected string');
      else spec.description = def.description;
    }
    if (own(def, 'optional')) {
      if (inItems) this.add([...path, 'optional'], 'not allowed on list items');
      else if (typeof def.optional !== 'boolean') this.add([...path, 'optional'], 'expected true or false');
      else spec.optional = def.optional;
    }
    if (own(def, 'one_of')) {
      const values = def.one_of;
      if (type === 'list' || type === 'object') this.add([...path, 'one_of'], `not allowed on a ${type} field`);
      else if (!Array.isArray(values) || values.length === 0) this.add([...path, 'one_of'], 'expected a list of one or more values');
      else {
        const seen = new Set<unknown>();
        values.forEach((v, i) => {
          if (type && !hasType(type, v)) this.add([...path, 'one_of', i], `${expectedText(type)}, the field's type`);
          else if (seen.has(v)) this.add([...path, 'one_of', i], `${JSON.stringify(v)} listed twice`);
          seen.add(v);
        });
        spec.oneOf = values as Scalar[];
      }
    }
    if (own(def, 'items')) {
      if (type !== undefined && type !== 'list') this.add([...path, 'items'], `only allowed on a list field, not ${type}`);
      const items = this.field(def.items, [...path, 'items'], true);
      if (items) spec.items = items;
    }
    return type ? spec : undefined;
  }

  private type(name: string, path: PathSegment[]): FieldType | undefined {
    if ((FIELD_TYPES as readonly string[]).includes(name)) return name as FieldType;
    this.add(path, `unknown type "${name}"; expected one of ${list(FIELD_TYPES)}`);
    return undefined;
  }

  // ---- requires (§2.1) ----------------------------------------------------

  private requires(value: unknown): { systems: string[] } | undefined {
    if (!isObj(value)) {
      this.add(['requires'], 'expected a map with systems');
      return undefined;
    }
    this.unknownKeys(value, ['systems'], ['requires']);
    if (!own(value, 'systems')) {
      this.add(['requires', 'systems'], 'required');
      return undefined;
    }
    const systems = value.systems;
    if (!Array.isArray(systems) || systems.length === 0) {
      this.add(['requires', 'systems'], 'expected a list of one or more system names');
      return undefined;
    }
    const seen = new Set<string>();
    systems.forEach((s, i) => {
      if (typeof s !== 'string' || s.length > 64 || !NAME_PATTERN.test(s))
        this.add(['requires', 'systems', i], 'must be a name like salesforce or google-drive (lowercase, digits, single hyphens)');
      else if (seen.has(s)) this.add(['requires', 'systems', i], `"${s}" listed twice`);
      else seen.add(s);
    });
    return { systems: systems.filter((s): s is string => typeof s === 'string') };
  }

  // ---- steps (§2.2) -------------------------------------------------------

  private steps(value: unknown, present: boolean): StepDraft[] | undefined {
    if (!present) {
      this.add(['steps'], 'required');
      return undefined;
    }
    if (!Array.isArray(value)) {
      this.add(['steps'], 'expected a list of steps');
      return undefined;
    }
    if (value.length === 0) {
      this.add(['steps'], 'needs at least one step');
      return undefined;
    }
    const drafts: StepDraft[] = [];
    const firstIndex = new Map<string, number>();
    value.forEach((raw, index) => {
      const path: PathSegment[] = ['steps', index];
      if (!isObj(raw)) {
        this.add(path, 'expected a step: a map with id and one kind key');
        return;
      }
      for (const k of Object.keys(raw)) if (!STEP_KEYS.has(k)) this.add([...path, k], 'unknown key');
      let id = '';
      if (!own(raw, 'id')) this.add([...path, 'id'], 'required');
      else if (typeof raw.id !== 'string' || !STEP_ID_PATTERN.test(raw.id))
        this.add([...path, 'id'], 'must match ^[a-z][a-z0-9_-]{0,63}$: a lowercase letter, then letters, digits, _ or -');
      else {
        id = raw.id;
        const prev = firstIndex.get(id);
        if (prev !== undefined) this.add([...path, 'id'], `duplicate step id "${id}" (also steps[${prev}])`);
        else firstIndex.set(id, index);
      }
      const kinds = STEP_KINDS.filter((k) => own(raw, k));
      if (kinds.length === 0) {
        this.add(path, `needs one kind key: ${list(STEP_KINDS)}`);
        return;
      }
      if (kinds.length > 1) {
        this.add(path, `has ${kinds.length} kind keys (${list(kinds)}); a step has exactly one`);
        return;
      }
      const kind = kinds[0] as StepKind;
      const allowed = KIND_KEYS[kind];
      for (const k of Object.keys(raw)) {
        if (k === 'id' || k === kind || !STEP_KEYS.has(k) || allowed.includes(k)) continue;
        this.add([...path, k], `not allowed on ${kind === 'approve' || kind === 'agent' ? 'an' : 'a'} ${kind} step`);
      }
      if (id === '') return;
      drafts.push({ step: this.step(raw, kind, id, path), index, explicitNext: own(raw, 'next'), raw });
    });
    return drafts.length === value.length ? drafts : undefined;
  }

  private step(raw: Obj, kind: StepKind, id: string, path: PathSegment[]): Step {
    const step: Step = { id, kind, value: '', next: null };
    const kp = [...path, kind];
    const v = raw[kind];
    switch (kind) {
      case 'agent':
      case 'task':
      case 'approve':
        if (typeof v !== 'string') this.add(kp, 'expected text: the instructions');
        else if (v.trim() === '') this.add(kp, 'instructions must not be empty');
        else step.value = v;
        break;
      case 'wait':
        step.value = this.duration(v, kp) ?? '';
        break;
      case 'wait_until':
        if (typeof v !== 'string' || v === '') this.add(kp, 'expected a path such as inputs.startDate');
        else step.value = v;
        break;
      case 'wait_for':
        if (typeof v !== 'string' || !STEP_ID_PATTERN.test(v))
          this.add(kp, 'event name must match ^[a-z][a-z0-9_-]{0,63}$');
        else step.value = v;
        break;
      case 'finish':
        if (typeof v !== 'string' || !STEP_ID_PATTERN.test(v))
          this.add(kp, 'outcome must be a short word matching ^[a-z][a-z0-9_-]{0,63}$, e.g. onboarded');
        else step.value = v;
        break;
      case 'parallel':
        step.branches = this.branchList(v, kp);
        break;
    }
    if ((kind === 'task' || kind === 'approve') && !own(raw, 'person')) this.add([...path, 'person'], `required on ${kind === 'approve' ? 'an approve' : 'a task'} step`);
    if (own(raw, 'person') && KIND_KEYS[kind].includes('person')) {
      if (typeof raw.person !== 'string' || raw.person === '') this.add([...path, 'person'], 'expected a role name, initiator, or a path');
      else step.person = raw.person;
    }
    if (own(raw, 'output') && KIND_KEYS[kind].includes('output')) step.output = this.fields(raw.output, [...path, 'output']);
    if (own(raw, 'evidence') && KIND_KEYS[kind].includes('evidence')) step.evidence = this.evidence(raw.evidence, [...path, 'evidence']);
    if (own(raw, 'next') && kind !== 'finish') step.next = this.next(raw.next, kind, [...path, 'next']);
    for (const [key, prop] of [
      ['on_reject', 'onReject'],
      ['on_timeout', 'onTimeout'],
    ] as const) {
      if (!own(raw, key) || !KIND_KEYS[kind].includes(key)) continue;
      if (typeof raw[key] !== 'string' || raw[key] === '') this.add([...path, key], 'expected a step id');
      else step[prop] = raw[key] as string;
    }
    for (const key of ['due', 'timeout'] as const) {
      if (!own(raw, key) || !KIND_KEYS[kind].includes(key)) continue;
      const d = this.duration(raw[key], [...path, key]);
      if (d !== undefined) step[key] = d;
    }
    if (kind === 'wait_for' && own(raw, 'on_timeout') && !own(raw, 'timeout'))
      this.add([...path, 'on_timeout'], 'needs timeout: on_timeout is where the run goes when the timeout passes');
    if (own(raw, 'check') && KIND_KEYS[kind].includes('check')) {
      if (!this.offer.profiles.has('check-1')) this.add([...path, 'check'], 'needs profile check-1, not enabled');
      step.check = this.check(raw.check, [...path, 'check']);
    }
    if (own(raw, 'advisory') && KIND_KEYS[kind].includes('advisory')) {
      if (typeof raw.advisory !== 'boolean') this.add([...path, 'advisory'], 'expected true or false');
      else if (!own(raw, 'check')) this.add([...path, 'advisory'], 'allowed only beside check');
      else step.advisory = raw.advisory;
    }
    if (kind === 'parallel' && !this.offer.profiles.has('parallel-1')) this.add(kp, 'needs profile parallel-1, not enabled');
    if (step.evidence?.includes('file') && !this.offer.tools.has('upload'))
      this.add([...path, 'evidence'], 'needs tool upload, not offered');
    if (kind === 'wait_for' && !this.offer.tools.has('send_event')) this.add(kp, 'needs tool send_event, not offered');
    return step;
  }

  private duration(v: unknown, path: PathSegment[]): string | undefined {
    if (typeof v === 'string' && DURATION_PATTERN.test(v)) return v;
    this.add(path, 'expected a duration: a whole number followed by m, h or d, e.g. 30m, 4h, 3d');
    return undefined;
  }

  private evidence(v: unknown, path: PathSegment[]): EvidenceKind[] {
    if (!Array.isArray(v)) {
      this.add(path, 'expected a list of evidence kinds: file, link');
      return [];
    }
    const out: EvidenceKind[] = [];
    v.forEach((k, i) => {
      if (k !== 'file' && k !== 'link') this.add([...path, i], `must be ${list(EVIDENCE_KINDS)}`);
      else if (out.includes(k)) this.add([...path, i], `"${k}" listed twice`);
      else out.push(k);
    });
    return out;
  }

  private next(v: unknown, kind: StepKind, path: PathSegment[]): string | Route[] | null {
    if (typeof v === 'string') {
      if (v === '') this.add(path, 'expected a step id');
      return v;
    }
    if (!Array.isArray(v)) {
      this.add(path, 'expected a step id or a list of routes');
      return null;
    }
    if (kind !== 'agent' && kind !== 'task') {
      this.add(path, 'a list of routes is allowed only on agent and task steps; use one step id');
      return null;
    }
    if (v.length < 2) this.add(path, 'a list of routes needs two or more; for one, name the step id');
    const routes: Route[] = [];
    v.forEach((r, i) => {
      if (typeof r === 'string') {
        if (r === '') this.add([...path, i], 'expected a step id');
        routes.push({ to: r });
        return;
      }
      if (!isObj(r)) {
        this.add([...path, i], 'expected a step id or { to, when }');
        return;
      }
      this.unknownKeys(r, ['to', 'when'], [...path, i]);
      if (!own(r, 'to')) this.add([...path, i, 'to'], 'required');
      else if (typeof r.to !== 'string' || r.to === '') this.add([...path, i, 'to'], 'expected a step id');
      const route: Route = { to: typeof r.to === 'string' ? r.to : '' };
      if (own(r, 'when')) {
        if (blank(r.when)) this.add([...path, i, 'when'], 'expected non-empty text');
        else route.when = r.when as string;
      }
      routes.push(route);
    });
    const seen = new Map<string, number>();
    routes.forEach((r, i) => {
      if (r.to === '') return;
      const prev = seen.get(r.to);
      if (prev !== undefined) this.add([...path, i], `route to "${r.to}" listed twice (also next[${prev}])`);
      else seen.set(r.to, i);
    });
    return routes;
  }

  private branchList(v: unknown, path: PathSegment[]): string[] {
    if (!Array.isArray(v) || v.length < 2) {
      this.add(path, 'expected a list of two or more branch entry step ids');
      return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];
    }
    const out: string[] = [];
    v.forEach((e, i) => {
      if (typeof e !== 'string' || e === '') this.add([...path, i], 'expected a step id');
      else if (out.includes(e)) this.add([...path, i], `"${e}" listed twice`);
      else out.push(e);
    });
    return out;
  }

  // ---- check-1 ------------------------------------------------------------

  private check(v: unknown, path: PathSegment[]): CheckQuestion[] {
    if (typeof v === 'string') {
      if (v.trim() === '') this.add(path, 'expected a yes/no question or a list of questions');
      return [{ kind: 'yes_no', ask: v }];
    }
    if (!Array.isArray(v) || v.length === 0) {
      this.add(path, 'expected a yes/no question or a list of one or more questions');
      return [];
    }
    const out: CheckQuestion[] = [];
    v.forEach((q, i) => {
      const qp = [...path, i];
      if (!isObj(q)) {
        this.add(qp, 'expected a question: a map with ask');
        return;
      }
      this.unknownKeys(q, QUESTION_KEYS, qp);
      if (!own(q, 'ask')) this.add([...qp, 'ask'], 'required');
      else if (blank(q.ask)) this.add([...qp, 'ask'], 'expected non-empty text');
      const ask = typeof q.ask === 'string' ? q.ask : '';
      const probability = (key: string) => {
        if (!own(q, key)) return undefined;
        const p = q[key];
        if (!isNum(p) || p < 0 || p > 1) {
          this.add([...qp, key], 'expected a number from 0 to 1');
          return undefined;
        }
        return p;
      };
      const notHere = (key: string, where: string) => {
        if (own(q, key)) this.add([...qp, key], `only on ${where} questions`);
      };
      if (own(q, 'one_of') && own(q, 'levels')) {
        this.add(qp, 'has both one_of and levels; a question is yes/no, a choice (one_of) or a rubric (levels)');
        return;
      }
      if (own(q, 'one_of')) {
        notHere('fail', 'yes/no');
        const names: string[] = [];
        if (!isObj(q.one_of) || Object.keys(q.one_of).length < 2) this.add([...qp, 'one_of'], 'expected a map of two or more answer names to descriptions');
        else
          for (const [name, d] of Object.entries(q.one_of)) {
            if (blank(d)) this.add([...qp, 'one_of', name], 'expected a description');
            names.push(name);
          }
        const answers = (key: 'pass' | 'unsure', required: boolean): string[] => {
          if (!own(q, key)) {
            if (required) this.add([...qp, key], 'required: the answer names that pass');
            return [];
          }
          const a = q[key];
          if (!Array.isArray(a) || (required && a.length === 0)) {
            this.add([...qp, key], `expected a list of answer names${required ? ' (one or more)' : ''}`);
            return [];
          }
          const got: string[] = [];
          a.forEach((n, j) => {
            if (typeof n !== 'string' || (names.length > 0 && !names.includes(n)))
              this.add([...qp, key, j], `not an answer of one_of${names.length ? ` (${list(names)})` : ''}`);
            else if (got.includes(n)) this.add([...qp, key, j], `"${n}" listed twice`);
            else got.push(n);
          });
          return got;
        };
        const pass = answers('pass', true);
        const unsure = answers('unsure', false);
        for (const n of unsure) if (pass.includes(n)) this.add([...qp, 'unsure'], `"${n}" is also in pass`);
        const c = probability('confidence');
        out.push({ kind: 'choice', ask, oneOf: isObj(q.one_of) ? (q.one_of as Record<string, string>) : {}, pass, unsure, ...(c !== undefined ? { confidence: c } : {}) });
        return;
      }
      if (own(q, 'levels')) {
        notHere('fail', 'yes/no');
        notHere('unsure', 'choice');
        const levels = q.levels;
        let n = 0;
        if (!Array.isArray(levels) || levels.length < 2 || levels.length > 10) this.add([...qp, 'levels'], 'expected a list of 2 to 10 level descriptions, worst first');
        else {
          n = levels.length;
          levels.forEach((l, j) => {
            if (blank(l)) this.add([...qp, 'levels', j], 'expected a description');
          });
        }
        let pass = 0;
        if (!own(q, 'pass')) this.add([...qp, 'pass'], 'required: the lowest passing level, counted from 0');
        else if (!Number.isInteger(q.pass) || (q.pass as number) < 0 || (n > 0 && (q.pass as number) >= n))
          this.add([...qp, 'pass'], `expected a level number from 0 to ${n > 0 ? n - 1 : 'the last level'}`);
        else pass = q.pass as number;
        const c = probability('confidence');
        out.push({ kind: 'rubric', ask, levels: Array.isArray(levels) ? (levels as string[]) : [], pass, ...(c !== undefined ? { confidence: c } : {}) });
        return;
      }
      notHere('unsure', 'choice');
      notHere('confidence', 'choice and rubric');
      const pass = probability('pass');
      const fail = probability('fail');
      if (pass !== undefined && fail !== undefined && fail > pass) this.add([...qp, 'fail'], 'must not be above pass');
      out.push({ kind: 'yes_no', ask, ...(pass !== undefined ? { pass } : {}), ...(fail !== undefined ? { fail } : {}) });
    });
    return out;
  }

  // ---- the graph: references, defaults, reachability, cycles, branches ----

  private graph(drafts: StepDraft[], inputs: Fields) {
    const byId = new Map(drafts.map((d) => [d.step.id, d]));
    const usesParallel = drafts.some((d) => d.step.kind === 'parallel');
    const branchOf = usesParallel ? this.branches(drafts, byId) : new Map<string, string>();
    const exists = (id: string) => byId.has(id);
    const target = (id: string, path: PathSegment[], from: StepDraft, joinable: boolean) => {
      if (id === '') return;
      if (usesParallel && id === JOIN) {
        if (!joinable || !branchOf.has(from.step.id)) this.add(path, 'join is allowed only inside a parallel branch');
        return;
      }
      if (!exists(id)) this.add(path, `no step "${id}"`);
    };

    drafts.forEach((d, i) => {
      const { step } = d;
      const p: PathSegment[] = ['steps', d.index];
      if (usesParallel && step.id === JOIN) this.add([...p, 'id'], '"join" is reserved when a process uses parallel');
      // Resolve the default next: the following step, except where it must be explicit.
      if (step.kind !== 'finish' && !d.explicitNext) {
        if (branchOf.has(step.id)) this.add([...p, 'next'], 'required inside a parallel branch (next: join ends the branch)');
        else if (i === drafts.length - 1) this.add([...p, 'next'], 'required on the last step unless it is a finish');
        else {
          step.next = drafts[i + 1]!.step.id;
          if (branchOf.has(step.next))
            this.add([...p, 'next'], `required: the following step "${step.next}" is inside a parallel branch`);
        }
      }
      if (d.explicitNext) {
        if (typeof step.next === 'string') target(step.next, [...p, 'next'], d, true);
        else if (Array.isArray(step.next))
          step.next.forEach((r, j) => target(r.to, typeof (d.raw.next as unknown[])[j] === 'string' ? [...p, 'next', j] : [...p, 'next', j, 'to'], d, true));
      }
      if (step.onReject !== undefined) target(step.onReject, [...p, 'on_reject'], d, false);
      if (step.onTimeout !== undefined) target(step.onTimeout, [...p, 'on_timeout'], d, true);
      if (step.branches) step.branches.forEach((b, j) => { if (!exists(b)) this.add([...p, 'parallel', j], `no step "${b}"`); });
      if (step.person !== undefined) this.personRef(step.person, [...p, 'person'], inputs, byId);
      if (step.kind === 'wait_until' && step.value !== '') this.dataPath(step.value, 'datetime', [...p, 'wait_until'], inputs, byId);
    });

    this.reachability(drafts, byId);
    this.cycles(drafts, byId);
  }

  private personRef(v: string, path: PathSegment[], inputs: Fields, byId: Map<string, StepDraft>) {
    if (v === 'initiator') return;
    if (v.includes('.')) this.dataPath(v, 'person', path, inputs, byId);
    else if (!ROLE_PATTERN.test(v)) this.add(path, 'expected a role name (lowercase letters, digits, _ or -), initiator, or a path inputs.<field> or steps.<id>.output.<field>');
  }

  /** `inputs.<field>` or `steps.<id>.output.<field>`, naming a declared field of the given type. */
  private dataPath(v: string, type: FieldType, path: PathSegment[], inputs: Fields, byId: Map<string, StepDraft>) {
    const parts = v.split('.');
    let fields: Fields | undefined;
    let field: string | undefined;
    if (parts.length === 2 && parts[0] === 'inputs') {
      fields = inputs;
      field = parts[1];
    } else if (parts.length === 4 && parts[0] === 'steps' && parts[2] === 'output') {
      const d = byId.get(parts[1]!);
      if (!d) {
        this.add(path, `"${v}" names no step "${parts[1]}"`);
        return;
      }
      fields = d.step.output ?? {};
      field = parts[3];
    } else {
      this.add(path, `"${v}" is not a path; expected inputs.<field> or steps.<id>.output.<field>`);
      return;
    }
    const spec = field !== undefined && Object.hasOwn(fields, field) ? fields[field] : undefined;
    if (!spec) this.add(path, `"${v}" names no declared field`);
    else if (spec.type !== type) this.add(path, `"${v}" is a ${spec.type} field; expected a ${type} field`);
  }

  private reachability(drafts: StepDraft[], byId: Map<string, StepDraft>) {
    const first = drafts[0];
    if (!first) return;
    const seen = new Set<string>([first.step.id]);
    const queue = [first.step];
    while (queue.length > 0) {
      const s = queue.shift()!;
      const targets = [...forwardTargets(s), ...(s.onReject ? [s.onReject] : []), ...(s.branches ?? [])];
      for (const t of targets) {
        const d = byId.get(t);
        if (d && !seen.has(t)) {
          seen.add(t);
          queue.push(d.step);
        }
      }
    }
    for (const d of drafts) if (!seen.has(d.step.id)) this.add(['steps', d.index], `step "${d.step.id}" is not reachable from the first step`);
  }

  /** Following next and on_timeout only, no step is visited twice (join and parallel edges exempt). */
  private cycles(drafts: StepDraft[], byId: Map<string, StepDraft>) {
    const state = new Map<string, 'open' | 'done'>();
    const stack: string[] = [];
    const depth = new Map<string, number>();
    const reported = new Set<string>();
    // Depth-first with an explicit stack, not recursion: a long chain of steps must not overflow the call stack.
    const frames: { d: StepDraft; edges: [string, PathSegment[]][]; next: number }[] = [];
    const open = (d: StepDraft) => {
      state.set(d.step.id, 'open');
      depth.set(d.step.id, stack.length);
      stack.push(d.step.id);
      frames.push({ d, edges: this.edges(d), next: 0 });
    };
    for (const start of drafts) {
      if (state.has(start.step.id)) continue;
      open(start);
      while (frames.length > 0) {
        const frame = frames[frames.length - 1]!;
        const edge = frame.edges[frame.next++];
        if (edge === undefined) {
          frames.pop();
          stack.pop();
          state.set(frame.d.step.id, 'done');
          continue;
        }
        const [to, path] = edge;
        const t = byId.get(to);
        if (!t) continue;
        const st = state.get(to);
        if (st === 'open') {
          // A long loop is shortened in the message, so a file cannot make the issue text grow with the square of its size.
          const from = depth.get(to)!;
          const size = stack.length - from;
          const ids = size <= 12 ? stack.slice(from) : [...stack.slice(from, from + 5), `… ${size - 8} more …`, ...stack.slice(-3)];
          const loop = [...ids, to].join(' → ');
          if (!reported.has(loop)) {
            reported.add(loop);
            this.add(path, `goes back to "${to}" (${loop}); only on_reject may go back`);
          }
        } else if (st === undefined) open(t);
      }
    }
  }

  /** Forward edges of a step with the path of the key that makes each one. */
  private edges(d: StepDraft): [string, PathSegment[]][] {
    const p: PathSegment[] = ['steps', d.index];
    const out: [string, PathSegment[]][] = [];
    const { step } = d;
    if (typeof step.next === 'string') out.push([step.next, [...p, 'next']]);
    else if (Array.isArray(step.next))
      step.next.forEach((r, j) => out.push([r.to, typeof (d.raw.next as unknown[])[j] === 'string' ? [...p, 'next', j] : [...p, 'next', j, 'to']]));
    if (step.onTimeout !== undefined) out.push([step.onTimeout, [...p, 'on_timeout']]);
    return out.filter(([t]) => t !== JOIN);
  }

  // ---- parallel-1 §2 ------------------------------------------------------

  /** Compute every branch and check the profile's publication rules. Returns step id → parallel step id. */
  private branches(drafts: StepDraft[], byId: Map<string, StepDraft>): Map<string, string> {
    const branchOf = new Map<string, string>();
    const entryOf = new Map<string, string>();
    const rawTargets = (d: StepDraft): [string, PathSegment[]][] => {
      const p: PathSegment[] = ['steps', d.index];
      const out: [string, PathSegment[]][] = [];
      const n = d.raw.next;
      if (typeof n === 'string') out.push([n, [...p, 'next']]);
      else if (Array.isArray(n) && (d.step.kind === 'agent' || d.step.kind === 'task'))
        n.forEach((r, j) => {
          if (typeof r === 'string') out.push([r, [...p, 'next', j]]);
          else if (isObj(r) && typeof r.to === 'string') out.push([r.to, [...p, 'next', j, 'to']]);
        });
      if (typeof d.raw.on_timeout === 'string' && d.step.kind === 'wait_for') out.push([d.raw.on_timeout, [...p, 'on_timeout']]);
      return out;
    };

    for (const par of drafts.filter((d) => d.step.kind === 'parallel')) {
      for (const entry of par.step.branches ?? []) {
        const start = byId.get(entry);
        if (!start) continue;
        const queue = [start];
        const members = new Set<string>();
        while (queue.length > 0) {
          const d = queue.shift()!;
          const id = d.step.id;
          if (members.has(id)) continue;
          const other = branchOf.get(id);
          if (other !== undefined && entryOf.get(id) !== entry) {
            this.add(['steps', d.index], `step "${id}" is in two branches (entered at "${entryOf.get(id)}" and "${entry}")`);
            continue;
          }
          members.add(id);
          branchOf.set(id, par.step.id);
          entryOf.set(id, entry);
          if (d.step.kind === 'parallel') {
            this.add(['steps', d.index, 'parallel'], 'a branch cannot contain a parallel step (no nesting in parallel-1)');
            continue;
          }
          for (const [to, path] of rawTargets(d)) {
            if (to === JOIN) continue;
            const t = byId.get(to);
            if (!t) continue;
            if (t.step.kind === 'finish') this.add(path, `a branch cannot route to a finish ("${to}"); end it with next: join`);
            else if (t.step.kind === 'parallel' && to === par.step.id) this.add(path, `a branch cannot route to its parallel step "${to}"`);
            else queue.push(t);
          }
        }
      }
    }
    // on_reject inside a branch stays in it; nothing outside routes into a branch.
    for (const d of drafts) {
      const p: PathSegment[] = ['steps', d.index];
      const mine = entryOf.get(d.step.id);
      if (d.step.onReject !== undefined && entryOf.has(d.step.onReject)) {
        if (mine === undefined) this.add([...p, 'on_reject'], `cannot return into a parallel branch ("${d.step.onReject}"); return to the parallel step to run every branch again`);
        else if (entryOf.get(d.step.onReject) !== mine) this.add([...p, 'on_reject'], `must return to a step in its own branch, not "${d.step.onReject}"`);
      } else if (d.step.onReject !== undefined && mine !== undefined && byId.has(d.step.onReject)) {
        this.add([...p, 'on_reject'], `must return to a step in its own branch, not "${d.step.onReject}"`);
      }
      if (mine !== undefined) continue;
      for (const [to, path] of rawTargets(d)) {
        if (entryOf.has(to)) this.add(path, `routes into parallel branch step "${to}" from outside its branch`);
      }
    }
    return branchOf;
  }
}
