/**
 * Text on a map: how wide a line is, measured with the map's font (font.ts),
 * and wrapping into lines that break between words. A word wider than a line
 * is broken after a hyphen, underscore or slash where it can be, else between
 * letters, so no line is wider than its box. Pure over the font's metrics.
 */
import { advance, type Weight } from './font.js';

export function textWidth(s: string, fontSize: number, weight: Weight = 'regular'): number {
  return advance(s, fontSize, weight);
}

export interface Wrapped {
  lines: string[];
  /** Whether words were left out (the full text then belongs in a tooltip). */
  cut: boolean;
}

/** A word too wide for `width` in pieces that fit, broken at - _ / first. */
function pieces(word: string, width: number, fontSize: number, weight: Weight): string[] {
  const out: string[] = [];
  let rest = word;
  while (textWidth(rest, fontSize, weight) > width && rest.length > 1) {
    let cut = 1;
    while (cut < rest.length && textWidth(rest.slice(0, cut + 1), fontSize, weight) <= width) cut++;
    const soft = Math.max(...['-', '_', '/'].map((c) => rest.lastIndexOf(c, cut - 1)));
    if (soft > 0) cut = soft + 1;
    out.push(rest.slice(0, cut));
    rest = rest.slice(cut);
  }
  out.push(rest);
  return out;
}

/**
 * Words of `text` in lines no wider than `width`, at most `maxLines`; when the
 * text is longer, the last line ends with an ellipsis after a whole word.
 */
export function wrap(text: string, width: number, fontSize: number, maxLines: number, weight: Weight = 'regular'): Wrapped {
  const fits = (s: string) => textWidth(s, fontSize, weight) <= width;
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(/\s+/).filter((w) => w !== '')) {
    const parts = pieces(word, width, fontSize, weight);
    for (const [i, w] of parts.entries()) {
      const next = line === '' ? w : `${line} ${w}`;
      // A piece of a broken word starts its own line; whole words join the line when they fit.
      if (line !== '' && (i > 0 || !fits(next))) {
        lines.push(line);
        line = w;
      } else line = next;
    }
  }
  if (line !== '') lines.push(line);
  if (lines.length <= maxLines) return { lines, cut: false };
  const kept = lines.slice(0, maxLines);
  let last = kept[maxLines - 1]!;
  while (last.includes(' ') && !fits(`${last} …`)) last = last.slice(0, last.lastIndexOf(' '));
  // Only a piece of a word broken across lines can be too wide for its ellipsis.
  while (last.length > 1 && !fits(`${last} …`)) last = last.slice(0, -1);
  kept[maxLines - 1] = `${last} …`;
  return { lines: kept, cut: true };
}
