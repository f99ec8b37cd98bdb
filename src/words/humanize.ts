/**
 * Machine names made readable: keys, ids and role names as a person would
 * write them ("withinPolicy" → "Within policy", "plan_trip" → "Plan trip").
 * Pure.
 */

/** Short words that are read letter by letter, so they are written in capitals. */
const ACRONYMS = new Set(['api', 'cfo', 'ceo', 'cto', 'csv', 'eu', 'faq', 'hr', 'http', 'https', 'iban', 'id', 'ip', 'it', 'json', 'pdf', 'qa', 'sla', 'sms', 'uk', 'uri', 'url', 'us', 'vat', 'vpn']);

/** A word already written in capitals (two letters or more, digits allowed) is kept as written. */
const isCapitals = (w: string): boolean => /^[A-Z][A-Z0-9]+$/.test(w);

/** The words of a key: split at `_`, `-`, spaces and camelCase humps ("receiptURLText" → receipt, URL, Text). */
export function words(key: string): string[] {
  return key
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
    .split(/[\s_-]+/)
    .filter((w) => w !== '');
}

function word(w: string, first: boolean): string {
  if (isCapitals(w)) return w;
  const lower = w.toLowerCase();
  if (ACRONYMS.has(lower)) return lower.toUpperCase();
  return first ? lower.charAt(0).toUpperCase() + lower.slice(1) : lower;
}

/** "receiptUrl" → "Receipt URL", "ReleaseManager" → "Release manager", "QA lead" → "QA lead". */
export function humanize(key: string): string {
  return words(key)
    .map((w, i) => word(w, i === 0))
    .join(' ');
}
