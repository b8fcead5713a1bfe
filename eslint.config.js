// Lint: type-aware rules plus the folder layers (issue 31; STYLE.md section 3), enforced by import paths.
//
// The layers, bottom to top. A folder (or root file) may import what sits in a layer below its own,
// never what sits in its own layer or above. `npm run lint:cycles` adds a check that no two folders
// import each other (test/architecture/folder-graph.ts); docs/code-map.md shows the same order.
//
//   1  src/domain/*.ts            the pure domain's words (events, ids, keys, severity); domain/ is pure
//   2  src/domain/cluster  src/domain/event-search
//   3  src/domain/metrics         state/ <- windows/ <- snapshot/ <- aggregator.ts inside it
//   4  src/domain/silences
//   5  src/domain/rules           rules, their kinds (rules/kinds/<kind>/ + kinds/registry.ts) and alerts
//                                 (rules/alerts/: an alert carries its rule's explanation, the engine
//                                 drives its lifecycle: the two use each other)
//   6  src/domain/contact-points
//   7  src/*.ts: log, errors, config, timers, version, secret-file, startup-timings, build-if-changed
//   8  src/telemetry             histograms, tick and thread stats, thread name/priority/heap, tick timer
//   9  src/protocol  src/schemas  messages between threads (protocol/storage/ by area); request shapes
//  10  src/nats                  the cluster's transport: NATS link, batch payload, instance identity
//  11  src/db                    all SQL; runs in the storage and reads workers
//  12  src/metrics-actor         the metrics actor thread's parts beside its entry: checkpoints
//  13  workers/                  thread entry points, and workers/storage/ (the storage worker's ops)
//  14  src/actors                the front's faces of the other threads
//  15  src/notify
//  16  src/alerting
//  17  src/cluster               the front's side of several instances: leadership, watches
//  18  src/auth
//  19  src/http
//  20  src/stomp  src/dashboard  src/request-gate.ts
//  21  src/instrumentation       the Prometheus exposition: reads actors, http, stomp, notify, cluster
//  22  src/components            each part's start, pushing its stop on the one stop stack
//  23  src/service.ts            the composition root
//  24  src/main.ts
//
// Beside the order: the front (actors and above) reaches the database only through actors/ (no db/
// import); only http/, stomp/ and dashboard/ touch uWebSockets.js; the browser's dashboard/web/ imports
// only the domain. bench/ imports from test/ only test/support/shared.ts, and test/ nothing of bench/.
import path from 'node:path';
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

/** Bottom to top, as drawn above. `x/*.ts`: the files directly in x; `x`: all of folder x. */
export const LAYERS = [
  ['src/domain/*.ts'],
  ['src/domain/cluster', 'src/domain/event-search'],
  ['src/domain/metrics'],
  ['src/domain/silences'],
  ['src/domain/rules'],
  ['src/domain/contact-points'],
  [
    'src/log.ts',
    'src/errors.ts',
    'src/config.ts',
    'src/timers.ts',
    'src/version.ts',
    'src/secret-file.ts',
    'src/startup-timings.ts',
    'src/build-if-changed.ts',
  ],
  ['src/telemetry'],
  ['src/protocol', 'src/schemas'],
  ['src/nats'],
  ['src/db'],
  ['src/metrics-actor'],
  ['workers'],
  ['src/actors'],
  ['src/notify'],
  ['src/alerting'],
  ['src/cluster'],
  ['src/auth'],
  ['src/http'],
  ['src/stomp', 'src/dashboard', 'src/request-gate.ts'],
  ['src/instrumentation'],
  ['src/components'],
  ['src/service.ts'],
  ['src/main.ts'],
];
const UNITS = LAYERS.flat();
const layerOf = (unit) => LAYERS.findIndex((layer) => layer.includes(unit));

/** The front thread's folders: they reach the database through actors/ only. */
const FRONT = [
  ...['src/actors', 'src/notify', 'src/alerting', 'src/cluster', 'src/auth'],
  ...['src/http', 'src/stomp', 'src/dashboard', 'src/instrumentation'],
];
const PURE = ['uWebSockets.js', 'piscina', 'postgres', 'pino', 'node:worker_threads'];
/** Packages a folder may not import, beyond the layers. */
const PACKAGES = {
  'src/protocol': ['uWebSockets.js', 'piscina', 'postgres', 'node:worker_threads'],
  'src/schemas': ['uWebSockets.js', 'piscina', 'postgres', 'node:worker_threads'],
  'src/telemetry': ['uWebSockets.js', 'piscina', 'postgres'],
  'src/nats': ['uWebSockets.js', 'piscina', 'postgres'],
  'src/db': ['uWebSockets.js', 'piscina', 'node:worker_threads'],
  workers: ['uWebSockets.js', 'piscina'],
  'src/actors': ['uWebSockets.js'],
  'src/notify': ['uWebSockets.js', 'piscina', 'postgres', 'node:worker_threads'],
  'src/alerting': ['uWebSockets.js', 'piscina', 'postgres', 'node:worker_threads'],
  'src/cluster': ['uWebSockets.js', 'piscina', 'postgres', 'node:worker_threads'],
  'src/auth': ['uWebSockets.js', 'piscina', 'postgres', 'node:worker_threads'],
  'src/http': ['piscina', 'postgres', 'node:worker_threads'],
  'src/stomp': ['piscina', 'postgres', 'node:worker_threads'],
  'src/dashboard': ['piscina', 'postgres', 'node:worker_threads'],
  'src/instrumentation': ['uWebSockets.js', 'piscina', 'postgres', 'node:worker_threads'],
};
const packagesOf = (unit) => (unit.startsWith('src/domain/') ? PURE : (PACKAGES[unit] ?? []));

const escape = (text) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const dotted = (relative) => (relative.startsWith('.') ? relative : `./${relative}`);
/** An import specifier, written in a file of folder `dir`, that reaches `unit`. */
const reaching = (dir, unit) => {
  if (unit.endsWith('/*.ts')) {
    return `^${escape(dotted(path.posix.relative(dir, unit.slice(0, -5))))}/[^/]+$`;
  }
  const relative = escape(dotted(path.posix.relative(dir, unit)));
  return unit.endsWith('.ts') ? `^${relative}$` : `^${relative}/`;
};

/**
 * The no-restricted-imports options of the files of `unit` in folder `dir`: the units of its own
 * layer and above, the extra units and the packages. A relative import means another folder from
 * each depth, so each depth of a folder gets its own block (flat config replaces, not merges,
 * a rule's options: a later block must repeat the earlier one's list).
 */
const restrictions = (unit, dir, forbidden, extra = []) => [
  'error',
  {
    patterns: [
      ...forbidden.map((other) => ({
        regex: reaching(dir, other),
        caseSensitive: true,
        message: `${unit} may not import ${other}: the layers at the top of eslint.config.js.`,
      })),
      ...(packagesOf(unit).length > 0
        ? [
            {
              group: packagesOf(unit),
              message: `${unit} may not import this package (eslint.config.js).`,
            },
          ]
        : []),
      ...extra,
    ],
  },
];

const above = (unit) =>
  UNITS.filter((other) => other !== unit && layerOf(other) >= layerOf(unit)).concat(
    FRONT.includes(unit) ? ['src/db'] : [],
  );

/** Deepest folder nesting the blocks cover below a unit (src/domain/rules/kinds/<kind>/x/ is 3). */
const DEPTH = 4;
const layerBlocks = UNITS.flatMap((unit) => {
  if (unit.endsWith('.ts')) {
    const dir = path.posix.dirname(unit);
    return [
      { files: [unit], rules: { 'no-restricted-imports': restrictions(unit, dir, above(unit)) } },
    ];
  }
  return Array.from({ length: DEPTH + 1 }, (_, depth) => {
    const dir = unit + '/sub'.repeat(depth);
    return {
      files: [`${unit}/${'*/'.repeat(depth)}*.ts`],
      rules: { 'no-restricted-imports': restrictions(unit, dir, above(unit)) },
    };
  });
});

/** Inside the metrics: state/ <- windows/ <- snapshot/ <- aggregator.ts, which alone joins them. */
const metricsLayer = (folder, group) => ({
  files: [`src/domain/metrics/${folder}/*.ts`],
  rules: {
    'no-restricted-imports': restrictions(
      'src/domain/metrics',
      `src/domain/metrics/${folder}`,
      above('src/domain/metrics'),
      [{ group, message: 'Breaks the layering of domain/metrics: state <- windows <- snapshot.' }],
    ),
  },
});

/** The dashboard page runs in the browser: the domain only, and nothing of Node. */
const browserBlocks = Array.from({ length: 2 }, (_, depth) => {
  const dir = 'src/dashboard/web' + '/sub'.repeat(depth);
  return {
    files: [`${dir.replaceAll('/sub', '/*')}/*.ts`],
    rules: {
      'no-restricted-imports': restrictions(
        'src/dashboard/web',
        dir,
        UNITS.filter((unit) => !unit.startsWith('src/domain/') && unit !== 'src/dashboard'),
        [{ group: [...PURE, 'node:*'], message: 'The dashboard page runs in the browser.' }],
      ),
    },
  };
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
      // Compiled by its test against types generated then (test/openapi/openapi-tools.test.ts).
      'test/fixtures/openapi-client/**',
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
  // The folder layers (top of this file): one block per folder and depth, each with its full list.
  ...layerBlocks,
  metricsLayer('state', ['**/windows/*', '**/snapshot/*', '**/aggregator.ts']),
  metricsLayer('windows', ['**/snapshot/*', '**/aggregator.ts']),
  metricsLayer('snapshot', ['**/aggregator.ts']),
  ...browserBlocks,
  {
    files: ['bench/**'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: '^(\\.\\./)+test/(?!support/shared\\.ts$)',
              caseSensitive: true,
              message: 'bench/ imports test helpers only through test/support/shared.ts.',
            },
          ],
        },
      ],
    },
  },
  {
    files: ['test/**'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: '^(\\.\\./)+bench/',
              caseSensitive: true,
              message:
                'test/ imports nothing of bench/: shared helpers live in test/support/shared.ts.',
            },
          ],
        },
      ],
    },
  },
);
