// Lint: typescript-eslint's recommended rules, no import cycles, and the boundaries the layout stands for.
import js from '@eslint/js';
import { createTypeScriptImportResolver } from 'eslint-import-resolver-typescript';
import { importX } from 'eslint-plugin-import-x';
import prettierConfig from 'eslint-config-prettier';
import globals from 'globals';
import tseslint from 'typescript-eslint';

const appImports = { group: ['**/app/**'], message: 'nothing under src/ but src/app, src/cli and src/main.ts imports from src/app.' };

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'clients/python/**', 'coverage/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  importX.flatConfigs.typescript,
  // Layout is Prettier's: no lint rule argues with it.
  prettierConfig,
  {
    settings: { 'import-x/resolver-next': [createTypeScriptImportResolver({ project: './tsconfig.json' })] },
    languageOptions: { globals: globals.node },
    rules: {
      'import-x/no-cycle': ['error', { ignoreExternal: true }],
      // A leading underscore marks what a destructuring leaves out on purpose.
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', destructuredArrayIgnorePattern: '^_', ignoreRestSiblings: true },
      ],
      // Input validation matches control characters on purpose, to refuse them.
      'no-control-regex': 'off',
    },
  },
  {
    // src/app assembles the service; nothing below it points back up (an injection token lives beside what it names).
    files: ['src/**/*.ts'],
    ignores: ['src/app/**', 'src/main.ts', 'src/cli/**'],
    rules: { 'no-restricted-imports': ['error', { patterns: [appImports] }] },
  },
  {
    // The event contract stands on its own: a stored shape never depends on domain code.
    files: ['src/events/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [appImports, { group: ['**/modules/**'], message: 'src/events imports nothing from src/modules: move the stored type under src/events.' }],
        },
      ],
    },
  },
  {
    // Read models fold events onto their own rows: nothing of a capability's decider, commands or queries, so a rule the
    // two sides share sits under src/events, beside the stored shape it reads.
    files: ['src/projections/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            appImports,
            {
              group: ['**/modules/**'],
              message: 'src/projections imports nothing from src/modules: fold onto the row, and move a shared rule under src/events.',
            },
          ],
        },
      ],
    },
  },
  {
    files: ['src/console/public/**/*.js'],
    languageOptions: { globals: globals.browser },
  },
  {
    // Tests read JSON answers whose shape the assertions check.
    files: ['test/**/*.ts', 'bench/**/*.ts'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
);
