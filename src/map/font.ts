/**
 * The map's font: Liberation Sans (SIL Open Font License, fonts/OFL.txt),
 * bundled so every map is measured with the metrics it is drawn with. It
 * has Arial's advance widths, so Arimo, Arial and Helvetica stand in for it
 * where it is not installed. The files are read, and opentype.js loaded, on
 * the first width asked for: a serve whose pages draw no map starts without
 * them. `fonts/` sits beside this module in src/ and in dist/ (the build
 * copies it), and the bundle rewrites import.meta.url to dist's address.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Font } from 'opentype.js/dist/opentype.mjs';

const require = createRequire(import.meta.url);

export const FONT_FAMILY = "'Liberation Sans', Arimo, Arial, Helvetica, sans-serif";

export type Weight = 'regular' | 'bold';

const FILES: Record<Weight, string> = { regular: 'LiberationSans-Regular.ttf', bold: 'LiberationSans-Bold.ttf' };

/** A face's advance widths in em, per character, filled as characters are met. */
interface Face {
  font: Font;
  em: Map<string, number>;
}

const faces = new Map<Weight, Face>();

function face(weight: Weight): Face {
  let f = faces.get(weight);
  if (!f) {
    const { parse } = require('opentype.js') as typeof import('opentype.js/dist/opentype.mjs');
    const bytes = readFileSync(new URL(`./fonts/${FILES[weight]}`, import.meta.url));
    f = { font: parse(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength), { lowMemory: true }), em: new Map() };
    faces.set(weight, f);
  }
  return f;
}

/**
 * How wide `s` is at `fontSize` px. Kerning is left out: in this font it only
 * draws pairs closer, so the sum of advances is what the text needs at most.
 */
export function advance(s: string, fontSize: number, weight: Weight = 'regular'): number {
  const f = face(weight);
  let em = 0;
  for (const c of s) {
    let w = f.em.get(c);
    if (w === undefined) {
      // A character the font lacks (⚠, ✓) is drawn from another font: a whole em leaves room for it.
      const g = f.font.charToGlyph(c);
      w = g.index === 0 ? 1 : (g.advanceWidth ?? f.font.unitsPerEm) / f.font.unitsPerEm;
      f.em.set(c, w);
    }
    em += w;
  }
  return em * fontSize;
}
