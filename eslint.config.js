import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import globals from 'globals';

/** A package is used through its public entry (`@nodenet/<pkg>`), never through its sources. */
const publicEntryOnly = {
  patterns: [
    {
      regex: '^(\\.\\./)+([\\w.-]+/)*src(/|$)',
      message:
        "Import the package through its public entry ('@nodenet/<pkg>'); if a test needs an internal, export it from that package's src/index.ts.",
    },
    {
      // One declared second entry: the agent's host plan, pure code without the agent's I/O (its
      // netlink native addon), for the plugin (packages/agent/src/host-plan/index.ts).
      regex: '^@nodenet/(?!agent/host-plan$)[\\w-]+/',
      message:
        "Import '@nodenet/<pkg>' itself, not a path inside it (the one second entry: '@nodenet/agent/host-plan').",
    },
  ],
};

export default tseslint.config(
  { ignores: ['**/dist/**', '**/node_modules/**', 'crds/**', 'coverage/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  // The type-checked recommendations for what ships and what drives it (sources, the test kit,
  // benchmarks, the demo): no `any` flowing into typed code, no object stringified as
  // "[object Object]" into a message, no assertion the types already make, no async without await.
  // Tests are left out: they assert on parsed JSON (`any`) by design. Kept whole, no rule turned off.
  ...tseslint.configs.recommendedTypeChecked.map((c) => ({
    ...c,
    files: ['packages/*/src/**/*.ts', 'bench/**/*.ts', 'demo/**/*.ts'],
  })),
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'no-console': 'off',
      'no-restricted-imports': ['error', publicEntryOnly],
    },
  },
  {
    // Tests write values the types forbid (the validation corpora) and walk parsed YAML and JSON:
    // `any` is allowed there, in the open, rather than through disable comments.
    files: ['packages/*/test/**/*.ts', 'test/**/*.ts'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
  {
    // A package's own tests may reach an internal of that package (`../src/…`, one level up from
    // test/), so the public entry need not re-export what only those tests use. Any other source
    // path, and every other package's sources, stay behind the public entries.
    files: ['packages/*/test/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: '^(?!\\.\\./src/)(\\.\\./)+([\\w.-]+/)*src(/|$)',
              message:
                "Import another package through its public entry ('@nodenet/<pkg>'); a test may import only its own package's '../src/…'.",
            },
            ...publicEntryOnly.patterns.slice(1),
          ],
        },
      ],
    },
  },
  {
    // Type-aware rules: both binaries are long-running and event-driven, so a promise nobody awaits
    // or catches, or one handed to a callback that ignores it, is a lost error or an unhandled rejection.
    files: ['**/*.ts'],
    languageOptions: {
      parserOptions: {
        // Explicit projects rather than projectService: tests, benchmarks and the demo are typed by
        // tsconfig.test.json, which projectService would not find (it looks for tsconfig.json).
        project: ['./packages/*/tsconfig.json', './tsconfig.test.json'],
        tsconfigRootDir: import.meta.dirname,
      },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/await-thenable': 'error',
    },
  },
  {
    // One concept per module: a source past 400 lines holds more than one; split it by concern.
    files: ['packages/*/src/**/*.ts', 'demo/**/*.ts'],
    rules: { 'max-lines': ['error', { max: 400 }] },
  },
  {
    // Limits that shape the code (issue #29), for every package's sources, the test kit, the
    // benchmarks and the demo: a decision with more than 25 paths, a function longer than a screen,
    // or more than four positional parameters (pass one options object instead) is split; a switch
    // over a union names every member, so a new kind, state or report is a lint error at each
    // switch that must handle it.
    files: ['packages/*/src/**/*.ts', 'bench/**/*.ts', 'demo/**/*.ts'],
    rules: {
      complexity: ['error', 25],
      'max-lines-per-function': ['error', { max: 80, skipBlankLines: true, skipComments: true }],
      'max-params': ['error', 4],
      '@typescript-eslint/switch-exhaustiveness-check': 'error',
    },
  },
  // Folder faces (a folder with an index.ts is imported from outside only through it), import
  // circles and the layers' direction are dependency-cruiser's (.dependency-cruiser.mjs, `npm run lint`).
  {
    // The dashboard's page (packages/cli/page): plain browser JavaScript, no build step.
    files: ['packages/cli/page/**/*.js'],
    languageOptions: { globals: globals.browser, sourceType: 'module' },
  },
);
