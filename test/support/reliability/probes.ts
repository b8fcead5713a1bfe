/**
 * Observing a running service from outside: periodic samples (RSS from /proc, the health route's
 * status and latency) with timestamps, and small statistics over them.
 */
import { HEALTH, type ServerProcess } from '../service-process.ts';

export interface Sample<T> {
  readonly at: number;
  readonly value: T;
}

export interface Sampler<T> {
  readonly samples: readonly Sample<T>[];
  stop(): Promise<readonly Sample<T>[]>;
}

/** Calls `take` every `intervalMs` (never two at once) until stopped. */
export function startSampler<T>(intervalMs: number, take: () => Promise<T> | T): Sampler<T> {
  const samples: Sample<T>[] = [];
  let stopped = false;
  const run = (async () => {
    while (!stopped) {
      const started = Date.now();
      samples.push({ at: started, value: await take() });
      const wait = intervalMs - (Date.now() - started);
      if (wait > 0 && !stopped) await new Promise((resolve) => setTimeout(resolve, wait));
    }
  })();
  return {
    samples,
    stop: async () => {
      stopped = true;
      await run;
      return samples;
    },
  };
}

export interface HealthProbe {
  /** HTTP status, or 0 when there was no answer (refused, reset, timeout). */
  readonly status: number;
  readonly ms: number;
  readonly body: string;
}

/** One GET of the health route with a client timeout. */
export async function probeHealth(url: string, timeoutMs = 10_000): Promise<HealthProbe> {
  const t0 = performance.now();
  try {
    const res = await fetch(url + HEALTH, { signal: AbortSignal.timeout(timeoutMs) });
    const body = await res.text();
    return { status: res.status, ms: performance.now() - t0, body };
  } catch (error) {
    return { status: 0, ms: performance.now() - t0, body: (error as Error).message };
  }
}

export const rssSampler = (proc: ServerProcess, intervalMs: number): Sampler<number | null> =>
  startSampler(intervalMs, () => proc.rssKiB());

/** Nearest-rank percentile of `values` (0 for none). */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.max(1, Math.ceil((p / 100) * sorted.length));
  return sorted[rank - 1] as number;
}

export const mib = (kib: number | null): string => (kib === null ? '–' : (kib / 1024).toFixed(0));

/** The values of samples taken in [from, to). */
export function between<T>(samples: readonly Sample<T>[], from: number, to: number): T[] {
  return samples.filter((s) => s.at >= from && s.at < to).map((s) => s.value);
}

export const maxOf = (values: readonly (number | null)[]): number | null => {
  const numbers = values.filter((v): v is number => v !== null);
  return numbers.length === 0 ? null : Math.max(...numbers);
};

export const minOf = (values: readonly (number | null)[]): number | null => {
  const numbers = values.filter((v): v is number => v !== null);
  return numbers.length === 0 ? null : Math.min(...numbers);
};
