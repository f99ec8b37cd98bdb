/**
 * The real import graph of src/, read with TypeScript's own import scanner, so
 * `import type`, `export … from` and `import()` all count: for each file (a
 * path relative to src/), the files of src/ it imports, the bare packages it
 * imports, and its text. Shared by the architecture tests.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const SRC = path.join(ROOT, 'src');

export interface SrcFile {
  /** Files of src/ imported, relative to src/. */
  imports: Set<string>;
  /** Bare module names imported (packages, `node:` built-ins). */
  packages: Set<string>;
  text: string;
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) return sourceFiles(p);
    return /\.tsx?$/.test(e.name) && !e.name.endsWith('.d.ts') ? [p] : [];
  });
}

/** Every file of src/ with what it imports; `unresolved` names relative imports that match no file. */
export function readSrc(): { files: Map<string, SrcFile>; unresolved: string[] } {
  const files = new Map<string, SrcFile>();
  const unresolved: string[] = [];
  for (const file of sourceFiles(SRC)) {
    const from = path.relative(SRC, file);
    const text = readFileSync(file, 'utf8');
    const imports = new Set<string>();
    const packages = new Set<string>();
    for (const { fileName } of ts.preProcessFile(text, true, true).importedFiles) {
      if (!fileName.startsWith('.')) {
        packages.add(fileName);
        continue;
      }
      const target = path.join(path.dirname(file), fileName);
      const found = [target.replace(/\.js$/, '.ts'), target.replace(/\.js$/, '.tsx')].find((p) => existsSync(p));
      if (found) imports.add(path.relative(SRC, found));
      else unresolved.push(`${from} imports ${fileName}`);
    }
    files.set(from, { imports, packages, text });
  }
  return { files, unresolved };
}
