/**
 * How big each thing on a map is and which lines of text it shows: cards,
 * waits, ends, decision diamonds, bars, and the label on a line. Pure; the
 * layout places these boxes and the drawing writes these lines.
 */
import type { MapNode } from './model.js';
import { textWidth, wrap } from './text.js';

export const FONT = { tag: 10, title: 13, text: 11, badge: 10, label: 11 } as const;
export const LINE = { tag: 13, title: 16, text: 14, badge: 14, label: 14 } as const;
export const PAD = 10;
const CARD_W = 220;
const WAIT_W = 170;
const LABEL_W = 150;

export interface NodeLines {
  tag: string;
  title: string[];
  text: string[];
  badges: string[];
  problems: string[];
  /** Words were left out of the text: the tooltip holds all of it. */
  cut: boolean;
}

export interface Shape {
  width: number;
  height: number;
  lines: NodeLines;
}

const none: NodeLines = { tag: '', title: [], text: [], badges: [], problems: [], cut: false };

export function shapeOf(n: MapNode): Shape {
  const inner = (w: number) => w - 2 * PAD;
  switch (n.kind) {
    case 'start':
      return { width: 44, height: 44, lines: { ...none, title: ['Start'] } };
    case 'decision':
      return { width: 40, height: 40, lines: none };
    case 'fork':
    case 'join':
      return { width: 12, height: 72, lines: { ...none, title: [n.title] } };
    case 'end': {
      const title = wrap(`End: ${n.title}`, 150, FONT.title, 2);
      const problems = n.problems.flatMap((p) => wrap(`⚠ ${p}`, 150, FONT.badge, 3).lines);
      const w = Math.max(96, ...title.lines.map((l) => textWidth(l, FONT.title) + 2 * PAD + 12), ...problems.map((l) => textWidth(l, FONT.badge) + 2 * PAD));
      return { width: Math.ceil(w), height: 12 + title.lines.length * LINE.title + problems.length * LINE.badge + 10, lines: { ...none, title: title.lines, problems } };
    }
    default: {
      const w = n.kind === 'wait' || n.kind === 'missing' ? WAIT_W : CARD_W;
      const textW = inner(w) - (n.kind === 'wait' ? 22 : 0);
      const title = wrap(n.title, textW, FONT.title, 2);
      const text = wrap(n.text.replace(/\s+/g, ' '), textW, FONT.text, n.kind === 'wait' ? 3 : 4);
      const badges = n.badges.flatMap((b) => wrap(b, inner(w) - 8, FONT.badge, 2).lines);
      const problems = n.problems.flatMap((p) => wrap(`⚠ ${p}`, inner(w), FONT.badge, 3).lines);
      const lines: NodeLines = { tag: n.tag, title: title.lines, text: text.lines, badges, problems, cut: title.cut || text.cut };
      const height = 8 + LINE.tag + title.lines.length * LINE.title + text.lines.length * LINE.text + (badges.length ? 6 + badges.length * LINE.badge : 0) + problems.length * LINE.badge + 10;
      return { width: w, height, lines };
    }
  }
}

/** The label of a route as a small box on its line. */
export function labelShape(label: string): { width: number; height: number; lines: string[] } {
  const { lines } = wrap(label, LABEL_W - 12, FONT.label, 3);
  return { width: Math.ceil(Math.max(...lines.map((l) => textWidth(l, FONT.label))) + 12), height: lines.length * LINE.label + 6, lines };
}
