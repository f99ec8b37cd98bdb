/**
 * What a process, a step and a field are called for people: from the words
 * the author already wrote (the body's heading, a step's instructions, a
 * field's description), else the machine name humanised. Pure.
 */
import type { FieldSpec, Process, Step } from '../process/model.js';
import { humanize } from './humanize.js';
import { capitalized, cutAtWord, firstSentence, plainText } from './text.js';

/** The PROCESS.md body's first heading (outside code fences), else the humanised name. */
export function processTitle(process: Pick<Process, 'name' | 'body'>): string {
  let fenced = false;
  for (const line of process.body.split('\n')) {
    if (/^\s*(```|~~~)/.test(line)) fenced = !fenced;
    const m = fenced ? null : /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (m && plainText(m[1]!) !== '') return plainText(m[1]!);
  }
  return humanize(process.name);
}

/** Kinds whose value is the instructions a person or agent reads. */
const TEXT_KINDS = new Set(['agent', 'task', 'approve']);

/** The first sentence of the step's instructions, cut at a word near 70 characters; else the humanised id. */
export function stepTitle(step: Pick<Step, 'id' | 'kind' | 'value'>): string {
  const sentence = TEXT_KINDS.has(step.kind) ? firstSentence(step.value) : '';
  return sentence !== '' ? cutAtWord(capitalized(sentence)) : humanize(step.id);
}

/** A step's title by its id: from the process when it declares the step, else the id humanised. */
export function stepTitleOf(process: Pick<Process, 'steps'> | null | undefined, id: string): string {
  const step = process?.steps.find((s) => s.id === id);
  return step ? stepTitle(step) : humanize(id);
}

/** The field's description (its first sentence, no closing period), else the humanised key. */
export function fieldLabel(key: string, field?: Pick<FieldSpec, 'description'>): string {
  const sentence = field?.description ? firstSentence(field.description) : '';
  return sentence !== '' ? cutAtWord(capitalized(sentence)) : humanize(key);
}
