/**
 * How big each thing on a map is and which lines of text it shows: cards,
 * waits, ends, decision diamonds, bars, and the label on a line. Every width
 * is measured with the map's font; a card grows (up to a limit) to fit its
 * title's longest word, and shows the whole title. Pure; the layout places
 * these boxes and the drawing writes these lines.
 */
import type { Weight } from './font.js';
import type { MapNode } from './model.js';
import { textWidth, wrap } from './text.js';

export const FONT = { tag: 10, title: 13, text: 11, badge: 10, label: 11 } as const;
export const LINE = { tag: 13, title: 16, text: 14, badge: 14, label: 14 } as const;
/** Titles are bold, everything else regular: the drawing and the measuring agree on this. */
export const TITLE_WEIGHT: Weight = 'bold';
export const PAD = 10;
/** Room a wait's clock takes left of its text. */
export const CLOCK_INDENT = 22;
const CARD_W = 220;
const NARROW_W = 190;
const WAIT_W = 180;
const END_W = 96;
const MAX_W = 300;
const LABEL_W = 150;
const NARROW_LABEL_W = 116;

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

/** A box's width: at least `min`, wide enough for the longest word of `title` beside `room` px, at most MAX_W. */
function widthFor(title: string, min: number, room: number): number {
  const longest = Math.max(0, ...title.split(/\s+/).map((w) => textWidth(w, FONT.title, TITLE_WEIGHT)));
  return Math.ceil(Math.min(MAX_W, Math.max(min, longest + room)));
}

/** `narrow`: top to bottom, where lanes are columns, cards start narrower so more lanes fit a screen. */
export function shapeOf(n: MapNode, narrow = false): Shape {
  switch (n.kind) {
    case 'start':
      return { width: 44, height: 44, lines: { ...none, title: ['Start'] } };
    case 'decision':
      return { width: 40, height: 40, lines: none };
    case 'fork':
    case 'join':
      return { width: 12, height: 72, lines: { ...none, title: [n.title] } };
    case 'end': {
      const label = `End: ${n.title}`;
      const w = Math.ceil(Math.min(MAX_W, Math.max(END_W, textWidth(label, FONT.title, TITLE_WEIGHT) + 2 * PAD + 12)));
      const title = wrap(label, w - 2 * PAD - 12, FONT.title, Infinity, TITLE_WEIGHT);
      const problems = n.problems.flatMap((p) => wrap(`⚠ ${p}`, w - 2 * PAD, FONT.badge, 3).lines);
      return { width: w, height: 12 + title.lines.length * LINE.title + problems.length * LINE.badge + 10, lines: { ...none, title: title.lines, problems } };
    }
    default: {
      const wait = n.kind === 'wait';
      const indent = wait ? CLOCK_INDENT : 0;
      const w = widthFor(n.title, wait || n.kind === 'missing' ? WAIT_W : narrow ? NARROW_W : CARD_W, 2 * PAD + indent);
      const textW = w - 2 * PAD - indent;
      const title = wrap(n.title, textW, FONT.title, Infinity, TITLE_WEIGHT);
      // A wait's text says what it waits for and for how long: short, and shown whole.
      const text = wrap(n.text.replace(/\s+/g, ' '), textW, FONT.text, wait ? Infinity : 4);
      const badges = n.badges.flatMap((b) => wrap(b, w - 2 * PAD - 8, FONT.badge, 2).lines);
      const problems = n.problems.flatMap((p) => wrap(`⚠ ${p}`, w - 2 * PAD, FONT.badge, 3).lines);
      const lines: NodeLines = { tag: n.tag, title: title.lines, text: text.lines, badges, problems, cut: title.cut || text.cut };
      const height = 8 + LINE.tag + title.lines.length * LINE.title + text.lines.length * LINE.text + (badges.length ? 6 + badges.length * LINE.badge : 0) + problems.length * LINE.badge + 10;
      return { width: w, height, lines };
    }
  }
}

/** The label of a route as a small box on its line; `narrow` (top to bottom, labels side by side across a lane) wraps sooner. */
export function labelShape(label: string, narrow = false): { width: number; height: number; lines: string[] } {
  const { lines } = wrap(label, (narrow ? NARROW_LABEL_W : LABEL_W) - 12, FONT.label, narrow ? 4 : 3);
  return { width: Math.ceil(Math.max(...lines.map((l) => textWidth(l, FONT.label))) + 12), height: lines.length * LINE.label + 6, lines };
}

/** A lane's name (bold) and who it is (muted) as lines `width` px wide, and the height they take. */
export function laneHeadShape(lane: { label: string; detail: string }, width: number): { name: string[]; detail: string[]; height: number } {
  const name = wrap(lane.label, width - 2 * PAD, 13, 2, TITLE_WEIGHT).lines;
  const detail = wrap(lane.detail, width - 2 * PAD, 11, 3).lines;
  return { name, detail, height: 10 + name.length * LANE_LINE.name + detail.length * LANE_LINE.detail + 8 };
}
export const LANE_LINE = { name: 17, detail: 14 } as const;
