/**
 * The words a person reads: process, step and field names, people by name,
 * values with their units, times in words, a run's name and findings, and
 * clauses joined into sentences. Used by the web app, the CLI and
 * notifications alike; the protocol's answers never go through here. Pure:
 * no files, no clock, no board.
 */
export { humanize } from './humanize.js';
export { inList, inSentence } from './sentence.js';
export { isLinkField, linkHref, webHref } from './links.js';
export { personName, type PersonLike } from './people.js';
export { dateWords, exactTime, isTimeZone, relativeTime } from './time.js';
export { instantOf, zoneWords } from './wall-clock.js';
export { cutAtWord, firstSentence } from './text.js';
export { fieldLabel, processTitle, stepTitle, stepTitleOf } from './titles.js';
export { formatValue, unitOf, type ValueText, type WordsContext } from './values.js';
export { refusalWords } from './refusals.js';
export { stepStateWord } from './step-state.js';
export { findings, runTitle, TITLE_SEPARATOR, type Finding } from './runs.js';
export { columnTitle, levelWords, waiterWords, type ViewWords } from './views.js';
