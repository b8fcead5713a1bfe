/**
 * Lines every metrics / rules bench prints: the machine note that goes next to every table (load
 * generators and service share the cores), and stdout output helpers.
 */
import { cpus, loadavg } from 'node:os';
import type { Config } from '../../src/config.ts';
import { num } from './print-table.ts';

export const out = (line = ''): void => void process.stdout.write(`${line}\n`);

export const loadAverage = (): string =>
  loadavg()
    .map((l) => num(l, 2))
    .join(' / ');

/** Printed under every table. */
export function machineNote(loadAtStart: string): string {
  return (
    `Note: ${cpus().length} cores shared by the load generators (this process and its load children) ` +
    `and the service (front, storage workers, metrics actor, PostgreSQL); load average 1/5/15 min ` +
    `at the start of the run ${loadAtStart}, now ${loadAverage()}.`
  );
}

export const errorText = (error: unknown): string =>
  error instanceof Error ? error.message : String(error);

/** The service settings the figures depend on, and the bench's whole run time. */
export const serviceNote = (config: Config, startedAt: number): string =>
  `Service: STORAGE_WORKERS=${config.STORAGE_WORKERS} METRICS_REFRESH_MS=${config.METRICS_REFRESH_MS} ` +
  `METRICS_BROADCAST_MS=${config.METRICS_BROADCAST_MS} RULE_EVALUATION_MS=${config.RULE_EVALUATION_MS}; ` +
  `total bench time ${num((Date.now() - startedAt) / 1000)} s.`;
