/**
 * The board's words on a page: people by their declared names, times in
 * words with the exact time on hover, values as src/words formats them
 * (links open in a new tab, warnings marked by a sign and a word, never by
 * colour alone). The people and the moment the page is rendered at come
 * from the frame, through a context, so every part reads them alike.
 */
import { createContext, type ComponentChildren } from 'preact';
import { useContext } from 'preact/hooks';
import type { FieldSpec } from '../../process/model.js';
import { exactTime, formatValue, personName, relativeTime, type PersonLike } from '../../words/index.js';

export interface PageWords {
  people: readonly PersonLike[];
  /** When the page is rendered (ISO), so "in 2 days" is said from then. */
  now: string;
  /** The board's zone (WORK.md `notifications.timeZone`): exact times read as its emails and the CLI say them. */
  timeZone?: string;
}

export const WordsContext = createContext<PageWords>({ people: [], now: new Date(0).toISOString() });

export const usePageWords = (): PageWords => useContext(WordsContext);

/** Without a board zone (a page outside the frame), exact times are said in UTC. */
const NO_ZONE = 'UTC';

export function WordsProvider({ words, children }: { words: PageWords | undefined; children: ComponentChildren }) {
  return words ? <WordsContext.Provider value={words}>{children}</WordsContext.Provider> : <>{children}</>;
}

/** A person by name; the email on hover. */
export function Person({ email }: { email: string | null | undefined }) {
  const { people } = usePageWords();
  if (!email) return <span class="muted">–</span>;
  const name = personName(people, email);
  return name === email ? <span>{email}</span> : <span title={email}>{name}</span>;
}

/**
 * A moment in words ("in 2 days"), the exact time in the board's zone as its title, as the email and the CLI
 * say it; `data-zone` lets the script add the viewer's own time when their zone is another.
 */
export function When({ at }: { at: string | null | undefined }) {
  const { now, timeZone } = usePageWords();
  if (!at) return <span>–</span>;
  const zone = timeZone ?? NO_ZONE;
  return (
    <time datetime={at} title={exactTime(at, zone)} data-exact="" data-zone={zone}>
      {relativeTime(at, new Date(now))}
    </time>
  );
}

/** A link that opens in a new tab and tells the page's reader it does. */
export function OutLink({ href, children }: { href: string; children: ComponentChildren }) {
  if (href.startsWith('mailto:')) return <a href={href}>{children}</a>;
  return (
    <a href={href} target="_blank" rel="noopener noreferrer">
      {children}
      <span class="visually-hidden"> (opens in a new tab)</span>
    </a>
  );
}

/** The mark a warning carries: a sign and a word, for eyes and screen readers alike. */
export function WarnMark() {
  return (
    <span class="warn-mark">
      <span aria-hidden="true">⚠ </span>
      <span class="visually-hidden">Warning: </span>
    </span>
  );
}

/** A value through its field's declaration: units, Yes/No, names, links; a warning marked. */
export function FieldValue({ field, value }: { field?: FieldSpec | undefined; value: unknown }) {
  const { people, timeZone } = usePageWords();
  // A declared person reads by name, the email kept on hover.
  if (typeof value === 'string' && personName(people, value) !== value) return <Person email={value} />;
  const v = formatValue(field, value, { people, timeZone: timeZone ?? NO_ZONE });
  const text = v.href ? <OutLink href={v.href}>{v.text}</OutLink> : <>{v.text}</>;
  return v.warning ? (
    <span class="warning">
      <WarnMark />
      {text}
    </span>
  ) : (
    <span>{text}</span>
  );
}
