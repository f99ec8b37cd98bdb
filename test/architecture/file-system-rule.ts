/**
 * The board is the only code that touches board files (docs/architecture.md "Layers"): outside
 * src/board/, no file imports board/fsutil or calls a store's `.abs(` (a
 * board path as a file-system path), and none imports a file-system module,
 * unless an allowlist names it with the reason (files that are not the
 * board's: a user's input, the package's own assets, git's temp files).
 * Pure: the architecture test applies it to src/.
 */
import type { SrcFile } from './src-graph.js';

/** Modules that read or write files: Node's, and the packages that wrap them. */
export const FILE_SYSTEM_MODULES = ['fs', 'fs/promises', 'node:fs', 'node:fs/promises', 'write-file-atomic', 'proper-lockfile', 'graceful-fs', 'fs-extra'];

const BOARD = /^board[\\/]/;
const FSUTIL = /^board[\\/]fsutil\.ts$/;
/** `x.abs(`, but not `Math.abs(`. */
const ABS_CALL = /(?<!\bMath)\.abs\s*\(/gm;

/**
 * Each breach, as "file: what": a file outside board/ importing board/fsutil,
 * calling `.abs(`, or importing a file-system module without an allowlist
 * entry; and each allowlist entry no file needs (gone, or no longer touching files).
 */
export function fileSystemBreaches(files: ReadonlyMap<string, SrcFile>, allowed: Readonly<Record<string, string>>): string[] {
  const out: string[] = [];
  for (const [file, f] of files) {
    if (BOARD.test(file)) continue;
    if ([...f.imports].some((i) => FSUTIL.test(i))) out.push(`${file}: imports board/fsutil`);
    const abs = [...f.text.matchAll(ABS_CALL)].map((m) => f.text.slice(0, m.index).split('\n').length);
    if (abs.length > 0) out.push(`${file}: calls .abs( (line ${abs.join(', ')})`);
    const modules = [...f.packages].filter((p) => FILE_SYSTEM_MODULES.includes(p));
    if (modules.length > 0 && !(file in allowed)) out.push(`${file}: imports ${modules.join(', ')}`);
  }
  for (const file of Object.keys(allowed)) {
    const f = files.get(file);
    if (!f || ![...f.packages].some((p) => FILE_SYSTEM_MODULES.includes(p))) out.push(`${file}: allowed to touch files but does not (remove it from the list)`);
  }
  return out.sort();
}
