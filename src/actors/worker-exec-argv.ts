/**
 * @module execArgv for the service's worker threads: the parent's flags plus the tsx preload,
 * without which a thread cannot load a .ts entry on Node 20.
 */
const PRELOAD = new URL('../../workers/register-tsx.mjs', import.meta.url).href;

export const workerExecArgv = (): string[] => [...process.execArgv, '--import', PRELOAD];
