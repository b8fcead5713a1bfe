/**
 * Overload: autocannon offers far more than the service can store (many connections, batches of
 * events), step by step; per step we record accepted events, 503s (and whether each carried
 * Retry-After), the latency of accepted requests and the service's RSS.
 */
import autocannon from 'autocannon';
import * as hdr from 'hdr-histogram-js';
import { eventBody } from './ingest-load.ts';
import { maxOf, minOf, rssSampler } from './probes.ts';
import type { ServerProcess } from '../service-process.ts';
import { keyHeaders } from '../keys.ts';

export interface OverloadStep {
  readonly connections: number;
  /** Events per request: 1 posts to /events, more to /events/batch. */
  readonly batchSize: number;
  readonly seconds: number;
}

export interface OverloadStepResult extends OverloadStep {
  /** Events that may be waiting at once: connections x batch size. */
  readonly offeredInFlight: number;
  readonly requests: number;
  readonly acceptedEventsPerSec: number;
  readonly acceptedRequests: number;
  readonly acceptedEvents: number;
  readonly overloaded: number;
  readonly overloadedWithRetryAfter: number;
  readonly other: ReadonlyMap<string, number>;
  readonly errors: number;
  /** Latency of accepted (202) requests, ms. */
  readonly p50: number;
  readonly p99: number;
  readonly max: number;
  readonly rssMinKiB: number | null;
  readonly rssMaxKiB: number | null;
}

const codeOf = (body: string): string => {
  try {
    const code = (JSON.parse(body) as { code?: unknown }).code;
    return typeof code === 'string' ? code : '?';
  } catch {
    return '?';
  }
};

const acceptedIn = (body: string, batch: boolean): number => {
  if (!batch) return 1;
  try {
    const accepted = (JSON.parse(body) as { accepted?: unknown }).accepted;
    return typeof accepted === 'number' ? accepted : 0;
  } catch {
    return 0;
  }
};

export async function runOverloadStep(
  proc: ServerProcess,
  tag: string,
  step: OverloadStep,
): Promise<OverloadStepResult> {
  const batch = step.batchSize > 1;
  const events = Array.from({ length: step.batchSize }, (_, i) => eventBody(tag, i));
  const body = JSON.stringify(batch ? events : events[0]);
  const latency = hdr.build({ lowestDiscernibleValue: 1, highestTrackableValue: 600_000_000 });
  let acceptedRequests = 0;
  let acceptedEvents = 0;
  let overloaded = 0;
  let overloadedWithRetryAfter = 0;
  let max = 0;
  const other = new Map<string, number>();
  const rss = rssSampler(proc, 1000);
  const result = await new Promise<autocannon.Result>((resolve, reject) => {
    const instance = autocannon(
      {
        url: proc.url,
        connections: step.connections,
        duration: step.seconds,
        timeout: 60,
        requests: [
          {
            method: 'POST',
            path: batch ? '/api/v1/events/batch' : '/api/v1/events',
            headers: { 'content-type': 'application/json', ...keyHeaders() },
            body,
            onResponse: (status, text, _context, headers) => {
              if (status === 202) {
                acceptedRequests++;
                acceptedEvents += acceptedIn(text, batch);
              } else if (status === 503 && codeOf(text) === 'OVERLOADED') {
                overloaded++;
                const names = Object.keys(headers ?? {}).map((name) => name.toLowerCase());
                if (names.includes('retry-after')) overloadedWithRetryAfter++;
              } else {
                const key = `${status} ${codeOf(text)}`;
                other.set(key, (other.get(key) ?? 0) + 1);
              }
            },
          },
        ],
      },
      (error, res) => {
        if (error !== null && error !== undefined)
          reject(error instanceof Error ? error : new Error(String(error)));
        else resolve(res);
      },
    );
    instance.on('response', (_client: unknown, status: number, _bytes: number, ms: number) => {
      if (status !== 202) return;
      latency.recordValue(Math.max(1, Math.round(ms * 1000)));
      max = Math.max(max, ms);
    });
  });
  const samples = (await rss.stop()).map((s) => s.value);
  return {
    ...step,
    offeredInFlight: step.connections * step.batchSize,
    requests: result.requests.total,
    acceptedEventsPerSec: acceptedEvents / step.seconds,
    acceptedRequests,
    acceptedEvents,
    overloaded,
    overloadedWithRetryAfter,
    other,
    errors: result.errors,
    p50: latency.totalCount === 0 ? 0 : latency.getValueAtPercentile(50) / 1000,
    p99: latency.totalCount === 0 ? 0 : latency.getValueAtPercentile(99) / 1000,
    max,
    rssMinKiB: minOf(samples),
    rssMaxKiB: maxOf(samples),
  };
}
