// opentype.js ships no types; the map reads only a glyph's advance width.
declare module 'opentype.js/dist/opentype.mjs' {
  export interface Glyph {
    /** 0 for .notdef: the font has no glyph for the character. */
    index: number;
    advanceWidth?: number;
  }
  export interface Font {
    unitsPerEm: number;
    charToGlyph(c: string): Glyph;
  }
  export function parse(buffer: ArrayBuffer, opts?: { lowMemory?: boolean }): Font;
}
