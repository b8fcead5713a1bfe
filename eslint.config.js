// Lint: type-aware rules plus the layering of STYLE.md section 3, enforced by import paths.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

const STYLE_LAYERS = 'Breaks the layering of STYLE.md section 3.';
const layer = (files, group) => ({
  files,
  rules: {
    'no-restricted-imports': ['error', { patterns: [{ group, message: STYLE_LAYERS }] }],
  },
});

/** What the pure domain may not import. */
const DOMAIN = [
  '**/instrumentation/*',
  '**/http/*',
  '**/stomp/*',
  '**/actors/*',
  '**/db/*',
  '**/protocol/*',
  '**/schemas/*',
  'uWebSockets.js',
  'piscina',
  'postgres',
  'pino',
  'node:worker_threads',
];

/** The domain's block for one folder of domain/metrics, plus what that folder may not import. */
const metricsLayer = (folder, group) => ({
  files: [`src/domain/metrics/${folder}/**`],
  rules: {
    'no-restricted-imports': [
      'error',
      {
        patterns: [
          { group: DOMAIN, message: STYLE_LAYERS },
          {
            group,
            message: 'Breaks the layering of domain/metrics: state <- windows <- snapshot.',
          },
        ],
      },
    ],
  },
});

export default tseslint.config(
  {
    ignores: [
      'node_modules/**',
      '.vigil/**',
      '.tap/**',
      '.scratch/**',
      'coverage/**',
      'dist/**',
      'eslint.config.js',
      'workers/register-tsx.mjs',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/consistent-type-imports': 'error',
      '@typescript-eslint/explicit-module-boundary-types': 'error',
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', ignoreRestSiblings: true },
      ],
      'no-restricted-properties': [
        'error',
        {
          object: 'process',
          property: 'env',
          message: 'Read configuration through src/config.ts.',
        },
        { object: 'process', property: 'exit', message: 'Only src/main.ts may exit the process.' },
      ],
    },
  },
  {
    files: ['src/config.ts', 'src/main.ts', 'test/**', 'bench/**', 'src/build-if-changed.ts'],
    rules: { 'no-restricted-properties': 'off' },
  },
  {
    // tap tracks its subtests itself: `t.test(...)` need not be awaited, nor callbacks await.
    files: ['test/**'],
    rules: {
      '@typescript-eslint/no-floating-promises': 'off',
      '@typescript-eslint/require-await': 'off',
      '@typescript-eslint/explicit-module-boundary-types': 'off',
      // Test helpers hand out plain closures, which tests destructure.
      '@typescript-eslint/unbound-method': 'off',
    },
  },
  // One block per folder, each with its complete list (flat config replaces, not merges, options).
  layer(['src/domain/**'], DOMAIN),
  // Inside the metrics: state/ (what is held, recorded on the hot path) <- windows/ (the values
  // rules read) <- snapshot/ (spec 2.10) <- aggregator.ts, which alone joins them.
  metricsLayer('state', ['**/windows/*', '**/snapshot/*', '**/aggregator.ts']),
  metricsLayer('windows', ['**/snapshot/*', '**/aggregator.ts']),
  metricsLayer('snapshot', ['**/aggregator.ts']),
  layer(
    ['src/protocol/**', 'src/schemas/**'],
    [
      '**/http/*',
      '**/stomp/*',
      '**/actors/*',
      '**/db/*',
      'uWebSockets.js',
      'piscina',
      'postgres',
      'node:worker_threads',
    ],
  ),
  layer(
    ['src/db/**'],
    ['**/http/*', '**/stomp/*', '**/actors/*', 'uWebSockets.js', 'piscina', 'node:worker_threads'],
  ),
  layer(
    ['workers/**'],
    ['**/src/http/*', '**/src/stomp/*', '**/src/actors/*', 'uWebSockets.js', 'piscina'],
  ),
  layer(['src/http/**', 'src/stomp/**'], ['**/db/*', 'piscina', 'postgres', 'node:worker_threads']),
  layer(['src/actors/**'], ['uWebSockets.js', '**/http/*', '**/stomp/*']),
  // The dashboard page runs in the browser: what the pure domain may import, minus all of Node.
  layer(['src/dashboard/web/**'], [...DOMAIN, 'node:*', '**/auth/*']),
);
