/**
 * Where the board's files live is said once, in src/board/layout.ts
 * (docs/architecture.md "The board on disk"). Outside it, no string of src/
 * spells a path under `.work/` (or the `locks/` and `journal/` folders in it),
 * no template builds one from `STATE_DIR` (`${STATE_DIR}/name`), and no
 * regular expression reads `runs/…` paths: layout.ts's runPathOf, isChainPath
 * and chainOfPath do. Comments may say anything. Pure: the architecture test
 * applies it to src/.
 */
import ts from 'typescript';

export const LAYOUT_FILE = 'board/layout.ts';

/** `.work` as a path or a segment of one, not inside a longer name (`example.work`, `.workers`). */
const WORK = /(?<![\w.-])\.work(?![\w-])/;
/** `.work/`'s folders named on their own. */
const STATE_FOLDER = /(?<![\w.-])(locks|journal)\//;
/** A regular expression over run paths: `runs\/`. */
const RUNS_REGEX = /runs\\\//;

/** Each place in one file's text where it spells a board path, as "what (line N)". */
export function layoutBreachesIn(text: string): string[] {
  const source = ts.createSourceFile('x.ts', text, ts.ScriptTarget.Latest, true);
  const out: string[] = [];
  const line = (n: ts.Node) => source.getLineAndCharacterOfPosition(n.getStart(source)).line + 1;
  const visit = (n: ts.Node): void => {
    if (ts.isStringLiteral(n) || ts.isNoSubstitutionTemplateLiteral(n) || ts.isTemplateHead(n) || ts.isTemplateMiddle(n) || ts.isTemplateTail(n)) {
      if (WORK.test(n.text)) out.push(`spells .work (line ${line(n)})`);
      else if (STATE_FOLDER.test(n.text)) out.push(`spells a .work/ folder (line ${line(n)})`);
    }
    if (ts.isTemplateSpan(n) && ts.isIdentifier(n.expression) && n.expression.text === 'STATE_DIR' && /^\/[\w.-]/.test(n.literal.text)) {
      out.push(`builds a path under STATE_DIR (line ${line(n)})`);
    }
    if (n.kind === ts.SyntaxKind.RegularExpressionLiteral && RUNS_REGEX.test(n.getText(source))) out.push(`reads runs/ paths with a regex of its own (line ${line(n)})`);
    ts.forEachChild(n, visit);
  };
  visit(source);
  return out;
}

/** Each breach in src/ (files by their path relative to src/), as "file: what (line N)"; layout.ts itself is where the paths belong. */
export function layoutBreaches(files: ReadonlyMap<string, { text: string }>): string[] {
  const out: string[] = [];
  for (const [file, f] of files) {
    if (file === LAYOUT_FILE) continue;
    for (const b of layoutBreachesIn(f.text)) out.push(`${file}: ${b}`);
  }
  return out.sort();
}
