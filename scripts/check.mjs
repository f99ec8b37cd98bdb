// The typecheck and the lint over one TypeScript program: `tsc -p
// tsconfig.test.json` and typescript-eslint's type-aware rules each build the
// program of src/ and test/ and type-check all of it, most of either's time.
// Built once here, the type checker's answers serve both (CONTRIBUTING.md,
// "Lint and format"). `--types` or `--lint` runs one of the two; with neither,
// both. Exits 1 on a type error, a lint error, or more lint warnings than
// MAX_WARNINGS.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ESLint } from 'eslint';
import ts from 'typescript';

/** The `!` warnings src/ still has: the cap only falls (eslint.config.js). */
const MAX_WARNINGS = 210;

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const only = process.argv.slice(2);
const types = only.length === 0 || only.includes('--types');
const lint = only.length === 0 || only.includes('--lint');

let failed = false;
const parsed = ts.getParsedCommandLineOfConfigFile(path.join(root, 'tsconfig.test.json'), {}, { ...ts.sys, onUnRecoverableConfigFileDiagnostic: (d) => report([d]) });
if (!parsed) process.exit(1);
const program = ts.createProgram({ rootNames: parsed.fileNames, options: parsed.options, projectReferences: parsed.projectReferences, configFileParsingDiagnostics: parsed.errors });

function report(diagnostics) {
  if (diagnostics.length === 0) return;
  const host = { getCanonicalFileName: (f) => f, getCurrentDirectory: () => root, getNewLine: () => '\n' };
  const text = process.stdout.isTTY ? ts.formatDiagnosticsWithColorAndContext(diagnostics, host) : ts.formatDiagnostics(diagnostics, host);
  process.stdout.write(`${text}\n`);
  failed ||= diagnostics.some((d) => d.category === ts.DiagnosticCategory.Error);
}

if (types) {
  const diagnostics = ts.getPreEmitDiagnostics(program);
  report(diagnostics);
  if (diagnostics.length > 0) process.stdout.write(`typecheck: ${diagnostics.length} problem${diagnostics.length === 1 ? '' : 's'}\n`);
}

if (lint) {
  // The config's own `project` names the same tsconfig; `programs` hands over the one built above instead.
  const eslint = new ESLint({ cwd: root, overrideConfig: [{ files: ['**/*.ts', '**/*.tsx'], languageOptions: { parserOptions: { programs: [program] } } }] });
  const results = await eslint.lintFiles(['.']);
  const errors = results.reduce((n, r) => n + r.errorCount + r.fatalErrorCount, 0);
  const warnings = results.reduce((n, r) => n + r.warningCount, 0);
  const text = await (await eslint.loadFormatter('stylish')).format(results);
  if (text) process.stdout.write(text);
  if (errors > 0) failed = true;
  if (warnings > MAX_WARNINGS) {
    process.stdout.write(`lint: ${warnings} warnings, more than the ${MAX_WARNINGS} allowed: fix the new ones\n`);
    failed = true;
  }
}

process.exit(failed ? 1 : 0);
