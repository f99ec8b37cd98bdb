/** Plain text out of a line of markdown, and cutting text to a length a title can hold. Pure. */

/** One line of markdown as plain text: links by their words, no emphasis, code ticks or heading marks. */
export function plainText(md: string): string {
  return md
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/`([^`]*)`/g, '$1')
    .replace(/(\*\*|__|\*|_)(\S(?:.*?\S)?)\1/g, '$2')
    .replace(/^\s*(#{1,6}|[-*+]|\d+[.)])\s+/gm, '')
    .replace(/\s+/g, ' ')
    .trim();
}

/** The text's first sentence, without its closing period: up to the first ". ", "! ", "? " or the end. */
export function firstSentence(text: string): string {
  const flat = plainText(text.split(/\n\s*\n/)[0] ?? '');
  const m = /^(.+?[.!?])(\s|$)/.exec(flat);
  return (m ? m[1]! : flat).replace(/\.$/, '');
}

/** Cut at a word so the text fits `max` characters, with "…" when cut. */
export function cutAtWord(text: string, max = 70): string {
  if (text.length <= max) return text;
  const head = text.slice(0, max - 1);
  // A word that ends exactly at the cut is whole; otherwise the cut goes back to the last space.
  const space = text[max - 1] === ' ' ? head.length : head.lastIndexOf(' ');
  return `${(space > max / 2 ? head.slice(0, space) : head).replace(/[\s,;:.-]+$/, '')}…`;
}

/** First letter in capitals, the rest as written. */
export const capitalized = (s: string): string => s.charAt(0).toUpperCase() + s.slice(1);
