/**
 * @module The public health check's database probe, shared: GET /api/v1/events/health needs no
 * key, so a flood of it must not become a flood of queries on ingest's connections. Callers that
 * ask while a probe is in flight wait for that one; an answer is reused for `maxAgeMs` after it
 * arrived. A database outage shows within `maxAgeMs` plus the probe's own timeout.
 */

/** null: the database answered; else why not (said to the caller). */
export type HealthAnswer = string | null;

export interface HealthCheckOptions {
  /** One probe of the database: null when it answered, else why not. Must not reject. */
  readonly probe: () => Promise<HealthAnswer>;
  readonly maxAgeMs: number;
  /** Monotonic milliseconds (injected by tests). */
  readonly now: () => number;
}

export interface HealthCheck {
  check(): Promise<HealthAnswer>;
}

export function createHealthCheck(options: HealthCheckOptions): HealthCheck {
  let inFlight: Promise<HealthAnswer> | null = null;
  let last: { readonly answer: HealthAnswer; readonly at: number } | null = null;
  return {
    check() {
      if (last !== null && options.now() - last.at < options.maxAgeMs)
        return Promise.resolve(last.answer);
      inFlight ??= options
        .probe()
        .catch((error: unknown) => (error instanceof Error ? error.message : 'probe failed'))
        .then((answer) => {
          last = { answer, at: options.now() };
          inFlight = null;
          return answer;
        });
      return inFlight;
    },
  };
}
