/** The questions of a `check` (check-1 profile): yes/no, choice (`one_of`) and rubric (`levels`). */
import type { IssueList, PathSegment } from '../../core/issues.js';
import type { CheckQuestion } from '../model.js';
import { blank, isNum, isObj, list, own, unknownKeys } from './raw.js';

const QUESTION_KEYS = ['ask', 'pass', 'fail', 'one_of', 'unsure', 'levels', 'confidence'];

export function checkQuestions(issues: IssueList, v: unknown, path: PathSegment[]): CheckQuestion[] {
  if (typeof v === 'string') {
    if (v.trim() === '') issues.add(path, 'expected a yes/no question or a list of questions');
    return [{ kind: 'yes_no', ask: v }];
  }
  if (!Array.isArray(v) || v.length === 0) {
    issues.add(path, 'expected a yes/no question or a list of one or more questions');
    return [];
  }
  const out: CheckQuestion[] = [];
  v.forEach((q, i) => {
    const qp = [...path, i];
    if (!isObj(q)) {
      issues.add(qp, 'expected a question: a map with ask');
      return;
    }
    unknownKeys(issues, q, QUESTION_KEYS, qp);
    if (!own(q, 'ask')) issues.add([...qp, 'ask'], 'required');
    else if (blank(q.ask)) issues.add([...qp, 'ask'], 'expected non-empty text');
    const ask = typeof q.ask === 'string' ? q.ask : '';
    const probability = (key: string) => {
      if (!own(q, key)) return undefined;
      const p = q[key];
      if (!isNum(p) || p < 0 || p > 1) {
        issues.add([...qp, key], 'expected a number from 0 to 1');
        return undefined;
      }
      return p;
    };
    const notHere = (key: string, where: string) => {
      if (own(q, key)) issues.add([...qp, key], `only on ${where} questions`);
    };
    if (own(q, 'one_of') && own(q, 'levels')) {
      issues.add(qp, 'has both one_of and levels; a question is yes/no, a choice (one_of) or a rubric (levels)');
      return;
    }
    if (own(q, 'one_of')) {
      notHere('fail', 'yes/no');
      const names: string[] = [];
      if (!isObj(q.one_of) || Object.keys(q.one_of).length < 2) issues.add([...qp, 'one_of'], 'expected a map of two or more answer names to descriptions');
      else
        for (const [name, d] of Object.entries(q.one_of)) {
          if (blank(d)) issues.add([...qp, 'one_of', name], 'expected a description');
          names.push(name);
        }
      const answers = (key: 'pass' | 'unsure', required: boolean): string[] => {
        if (!own(q, key)) {
          if (required) issues.add([...qp, key], 'required: the answer names that pass');
          return [];
        }
        const a = q[key];
        if (!Array.isArray(a) || (required && a.length === 0)) {
          issues.add([...qp, key], `expected a list of answer names${required ? ' (one or more)' : ''}`);
          return [];
        }
        const got: string[] = [];
        a.forEach((n, j) => {
          if (typeof n !== 'string' || (names.length > 0 && !names.includes(n))) issues.add([...qp, key, j], `not an answer of one_of${names.length ? ` (${list(names)})` : ''}`);
          else if (got.includes(n)) issues.add([...qp, key, j], `"${n}" listed twice`);
          else got.push(n);
        });
        return got;
      };
      const pass = answers('pass', true);
      const unsure = answers('unsure', false);
      for (const n of unsure) if (pass.includes(n)) issues.add([...qp, 'unsure'], `"${n}" is also in pass`);
      const c = probability('confidence');
      out.push({ kind: 'choice', ask, oneOf: isObj(q.one_of) ? (q.one_of as Record<string, string>) : {}, pass, unsure, ...(c !== undefined ? { confidence: c } : {}) });
      return;
    }
    if (own(q, 'levels')) {
      notHere('fail', 'yes/no');
      notHere('unsure', 'choice');
      const levels = q.levels;
      let n = 0;
      if (!Array.isArray(levels) || levels.length < 2 || levels.length > 10) issues.add([...qp, 'levels'], 'expected a list of 2 to 10 level descriptions, worst first');
      else {
        n = levels.length;
        levels.forEach((l, j) => {
          if (blank(l)) issues.add([...qp, 'levels', j], 'expected a description');
        });
      }
      let pass = 0;
      if (!own(q, 'pass')) issues.add([...qp, 'pass'], 'required: the lowest passing level, counted from 0');
      // Number.isInteger is false for every non-number, so isNum only narrows.
      else if (!isNum(q.pass) || !Number.isInteger(q.pass) || q.pass < 0 || (n > 0 && q.pass >= n))
        issues.add([...qp, 'pass'], `expected a level number from 0 to ${n > 0 ? n - 1 : 'the last level'}`);
      else pass = q.pass;
      const c = probability('confidence');
      out.push({ kind: 'rubric', ask, levels: Array.isArray(levels) ? (levels as string[]) : [], pass, ...(c !== undefined ? { confidence: c } : {}) });
      return;
    }
    notHere('unsure', 'choice');
    notHere('confidence', 'choice and rubric');
    const pass = probability('pass');
    const fail = probability('fail');
    if (pass !== undefined && fail !== undefined && fail > pass) issues.add([...qp, 'fail'], 'must not be above pass');
    out.push({ kind: 'yes_no', ask, ...(pass !== undefined ? { pass } : {}), ...(fail !== undefined ? { fail } : {}) });
  });
  return out;
}
