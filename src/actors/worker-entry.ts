/**
 * @module Where the service's worker threads start, in both ways the service runs: compiled
 * (`npm start`, the image: dist/, .js, plain node) and from source through tsx (tests, benches:
 * .ts). An entry takes this module's own extension, so each mode starts threads from its own files.
 */
const FROM_SOURCE = import.meta.url.endsWith('.ts');
const EXTENSION = FROM_SOURCE ? '.ts' : '.js';
const TSX_PRELOAD = new URL('../../workers/register-tsx.mjs', import.meta.url).href;

/** workers/<name>.worker.ts or .js, next to this module's tree. */
export const workerEntry = (
  name: 'storage' | 'reads' | 'metrics-actor' | 'backtest' | 'cluster',
): URL => new URL(`../../workers/${name}.worker${EXTENSION}`, import.meta.url);

/**
 * The parent's flags, plus (from source) the tsx preload: Node 20 does not carry the main
 * thread's `--import tsx` hooks into worker threads, and without them a .ts entry cannot load.
 */
export const workerExecArgv = (): string[] =>
  FROM_SOURCE ? [...process.execArgv, '--import', TSX_PRELOAD] : [...process.execArgv];
