/**
 * Text on a map: an estimate of how wide a line is in the map's sans-serif
 * font, and wrapping into lines that break only between words. Pure.
 */

/** Average advance of a character, in em, for a system sans-serif; generous so text fits its box. */
const EM_PER_CHAR = 0.58;
const WIDE = /[MWmw@%]/g;

export function textWidth(s: string, fontSize: number): number {
  const wide = s.match(WIDE)?.length ?? 0;
  return (s.length * EM_PER_CHAR + wide * 0.3) * fontSize;
}

export interface Wrapped {
  lines: string[];
  /** Whether words were left out (the full text then belongs in a tooltip). */
  cut: boolean;
}

/**
 * Words of `text` in lines no wider than `width`, at most `maxLines`; when the
 * text is longer, the last line ends with an ellipsis after a whole word. A
 * single word wider than a line stands alone on its line.
 */
export function wrap(text: string, width: number, fontSize: number, maxLines: number): Wrapped {
  const words = text.split(/\s+/).filter((w) => w !== '');
  const lines: string[] = [];
  let line = '';
  for (const w of words) {
    const next = line === '' ? w : `${line} ${w}`;
    if (line !== '' && textWidth(next, fontSize) > width) {
      lines.push(line);
      line = w;
    } else line = next;
  }
  if (line !== '') lines.push(line);
  if (lines.length <= maxLines) return { lines, cut: false };
  const kept = lines.slice(0, maxLines);
  let last = kept[maxLines - 1]!;
  while (last.includes(' ') && textWidth(`${last} …`, fontSize) > width) last = last.slice(0, last.lastIndexOf(' '));
  kept[maxLines - 1] = `${last} …`;
  return { lines: kept, cut: true };
}
