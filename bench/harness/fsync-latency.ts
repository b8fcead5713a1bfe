/**
 * How long `fdatasync` takes on the database's own disk, measured by the bench in the same run:
 * what one COMMIT must wait for at least (the WAL flush), and so what bounds a closed loop of N
 * clients (N / t_fsync commits a second, were each its own flush).
 */
import { accessSync, closeSync, constants, fdatasyncSync, mkdtempSync, openSync } from 'node:fs';
import { rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { BenchService } from './bench-service.ts';

/** One WAL page, as PostgreSQL writes it. */
const PAGE = Buffer.alloc(8192, 0x5a);

export interface FsyncLatency {
  /** Where it was measured, and why there. */
  readonly directory: string;
  readonly where: string;
  readonly samples: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly meanMs: number;
}

const writable = (dir: string): boolean => {
  try {
    accessSync(dir, constants.W_OK);
    return true;
  } catch {
    return false;
  }
};

/**
 * The database's data directory: the embedded one's, or `SHOW data_directory` when this process
 * may write there (PostgreSQL on this machine); else a fresh directory where the bench puts an
 * embedded database (the temporary directory), said so in `where`.
 */
async function databaseDirectory(
  service: BenchService,
): Promise<{ directory: string; where: string; scratch: boolean }> {
  if (service.pgDataDir !== null) {
    return { directory: service.pgDataDir, where: 'the embedded PostgreSQL', scratch: false };
  }
  const shown = await service.sql<{ data_directory: string }[]>`SHOW data_directory`.then(
    (rows) => rows[0]?.data_directory ?? null,
    () => null,
  );
  if (shown !== null && writable(shown)) {
    return { directory: shown, where: "DATABASE_URL's data_directory", scratch: false };
  }
  const why = shown === null ? 'not shown to this role' : `${shown} not writable here`;
  return {
    directory: mkdtempSync(path.join(tmpdir(), 'vigil-fsync-')),
    where: `the embedded database's place (DATABASE_URL's data_directory ${why})`,
    scratch: true,
  };
}

const at = (sorted: readonly number[], percentile: number): number =>
  sorted[Math.min(sorted.length - 1, Math.floor((percentile / 100) * sorted.length))] ?? NaN;

/** `samples` times: one page written at the file's start, then fdatasync; each timed. */
export async function measureFsync(service: BenchService, samples: number): Promise<FsyncLatency> {
  const { directory, where, scratch } = await databaseDirectory(service);
  const file = path.join(directory, `vigil-bench-fsync-${process.pid}.tmp`);
  const fd = openSync(file, 'w');
  const times: number[] = [];
  try {
    // The first flush allocates the file's block: not what a WAL segment reused in place costs.
    writeSync(fd, PAGE, 0, PAGE.length, 0);
    fdatasyncSync(fd);
    for (let i = 0; i < samples; i++) {
      // As pg_test_fsync times it: the write and its flush.
      const started = performance.now();
      writeSync(fd, PAGE, 0, PAGE.length, 0);
      fdatasyncSync(fd);
      times.push(performance.now() - started);
    }
  } finally {
    closeSync(fd);
    rmSync(scratch ? directory : file, { recursive: true, force: true });
  }
  const sorted = [...times].sort((a, b) => a - b);
  return {
    directory,
    where,
    samples,
    p50Ms: at(sorted, 50),
    p99Ms: at(sorted, 99),
    meanMs: times.reduce((sum, t) => sum + t, 0) / Math.max(1, times.length),
  };
}
