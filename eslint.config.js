import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import reactHooks from 'eslint-plugin-react-hooks';

export default tseslint.config(
  {
    ignores: [
      'dist/**',
      'data/**',
      'node_modules/**',
      'coverage/**',
      'web/dist/**',
      'web/src/api/schema.d.ts',
      'test-results/**',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  // The web application: the rules of hooks (and the React Compiler's checks) catch what types cannot.
  { files: ['web/src/**/*.{ts,tsx}'], ...reactHooks.configs.flat.recommended },
  // Stored HTML reaches the page only through SafeHtml (web/src/components/rich-text), which sanitises it again.
  {
    files: ['web/src/**/*.{ts,tsx}'],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector: "JSXAttribute[name.name='dangerouslySetInnerHTML']",
          message:
            'Show stored HTML with <SafeHtml> (components/rich-text/SafeHtml), which sanitises it again.',
        },
        {
          selector: 'AssignmentExpression > MemberExpression.left[property.name=/^(innerHTML|outerHTML)$/]',
          message:
            'Show stored HTML with <SafeHtml> (components/rich-text/SafeHtml), which sanitises it again.',
        },
        {
          selector: "MemberExpression[object.name='document'][property.name=/^(write|writeln)$/]",
          message:
            'Show stored HTML with <SafeHtml> (components/rich-text/SafeHtml), which sanitises it again.',
        },
        {
          selector: 'CallExpression[callee.property.name=/^(insertAdjacentHTML|createContextualFragment)$/]',
          message:
            'Show stored HTML with <SafeHtml> (components/rich-text/SafeHtml), which sanitises it again.',
        },
        // Every cache key is spelled once, in api/keys.ts: a key written out here could drift from its twin. A
        // key may only extend one of queryKeys' (`[...queryKeys.x(code), 'usage']`), with or without `as const`.
        ...['', ' > TSAsExpression', ' > TSSatisfiesExpression'].map((wrap) => ({
          selector:
            `Property[key.name='queryKey']${wrap} > ArrayExpression` +
            ":not([elements.0.type='SpreadElement'][elements.0.argument.callee.object.name='queryKeys'])",
          message: 'Take the cache key from queryKeys (api/keys.ts), or extend one of its keys.',
        })),
        {
          // One way to listen for keys (lib/keys.ts); a component's own onKeyDown is not a listener of the page.
          selector:
            "CallExpression[callee.property.name='addEventListener'][arguments.0.value=/^key(down|up|press)$/]",
          message:
            'Listen for keys with useKeyDown (lib/keys.ts), and guard bare keys with isSingleKeyShortcut.',
        },
      ],
    },
  },
  // One api.ts per feature (or page folder): a feature's calls to the server are in that one file (its pages use its functions).
  {
    files: ['web/src/features/**/*.{ts,tsx}'],
    // A page folder of its own (features/admin/<page>/, projects/settings/) keeps its calls in its own api.ts.
    ignores: ['web/src/features/**/api.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['**/api/client'],
              importNames: ['api', 'unwrap'],
              message: "Call the server from the feature's api.ts, and use its functions here.",
            },
          ],
        },
      ],
    },
  },
  // The build does not run the React Compiler, so "the compiler would skip this" (TanStack Virtual) is noise.
  { files: ['web/src/**/*.{ts,tsx}'], rules: { 'react-hooks/incompatible-library': 'off' } },
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'no-console': 'off',
    },
  },
  {
    // dependency-cruiser's configuration files are CommonJS.
    files: ['**/*.cjs'],
    languageOptions: { sourceType: 'commonjs', globals: { module: 'writable', require: 'readonly' } },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  {
    // Frozen migrations keep Kysely's recommended `Kysely<any>`: they must not change with today's table types.
    files: ['src/db/migrations/**'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
  {
    // Tests send deliberately wrong types; the benchmark drives the app from outside.
    files: ['**/*.test.ts', 'test/**', 'bench/**'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
);
