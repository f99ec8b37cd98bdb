// Lint (CONTRIBUTING.md, "Lint and format"): typescript-eslint's type-aware
// recommended rules over src/ and test/, with the promise and assertion rules
// as errors. `!` is a warning in src/, capped by MAX_WARNINGS in
// scripts/check.mjs (what `npm run lint` and `npm test` run, over the same
// program as the typecheck) so the count can only fall. Tests read JSON answers as `any`
// on purpose (test/support/svc-harness.ts's Data), so the rules about `any`
// and `!` are off there.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import globals from 'globals';

const unusedVars = ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', destructuredArrayIgnorePattern: '^_', ignoreRestSiblings: true, caughtErrors: 'none' }];

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'coverage/**'] },
  { linterOptions: { reportUnusedDisableDirectives: 'error' } },
  js.configs.recommended,
  {
    files: ['**/*.ts', '**/*.tsx'],
    extends: [tseslint.configs.recommendedTypeChecked],
    languageOptions: {
      parserOptions: { project: './tsconfig.test.json', tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/await-thenable': 'error',
      '@typescript-eslint/no-unnecessary-type-assertion': 'error',
      '@typescript-eslint/no-non-null-assertion': 'warn',
      '@typescript-eslint/no-unused-vars': unusedVars,
      '@typescript-eslint/prefer-promise-reject-errors': ['error', { allowThrowingAny: true, allowThrowingUnknown: true }],
      // An async function that does not await still fits an interface that returns a promise.
      '@typescript-eslint/require-await': 'off',
    },
  },
  {
    // Generated from schemas/tools/ and schemas/results/ by scripts/tool-types.mjs.
    files: ['src/protocol/tool-args.ts', 'src/protocol/tool-results.ts'],
    rules: { '@typescript-eslint/no-redundant-type-constituents': 'off', '@typescript-eslint/no-empty-object-type': 'off' },
  },
  {
    files: ['test/**/*.ts'],
    rules: {
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      '@typescript-eslint/no-non-null-assertion': 'off',
      '@typescript-eslint/no-redundant-type-constituents': 'off',
      // expect(obj.method) and spies pass methods by reference.
      '@typescript-eslint/unbound-method': 'off',
      // Expected terminal output is written as it looks, runs of spaces and all.
      'no-regex-spaces': 'off',
    },
  },
  {
    // Calls that must not compile, each under a @ts-expect-error (test/protocol/typed-call.test.ts).
    files: ['test/protocol/typed-call/calls.ts'],
    rules: { '@typescript-eslint/no-unnecessary-type-assertion': 'off' },
  },
  {
    files: ['**/*.mjs', '**/*.js'],
    languageOptions: { globals: { ...globals.node } },
    rules: { 'no-unused-vars': unusedVars },
  },
  {
    files: ['src/web/assets/**/*.js'],
    languageOptions: { globals: { ...globals.browser } },
  },
);
