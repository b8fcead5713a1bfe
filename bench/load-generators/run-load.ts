/**
 * Load with autocannon's programmatic API: verify one request, warm up, then N timed rounds; per
 * round req/s, p50/p99 (µs-resolution histogram), non-2xx and errors, summarised by medians. Every
 * request carries the bench's API key; a run stops at the first 401 or 403 (client-key.ts).
 */
import autocannon from 'autocannon';
import * as hdr from 'hdr-histogram-js';
import { JSON_KEY_HEADERS, KEY_HEADERS, keyRefused, keyRefusedError } from './client-key.ts';

export interface LoadRequest {
  readonly method: 'GET' | 'POST';
  readonly path: string;
  /** A JSON body (sent with Content-Type: application/json). */
  readonly body?: string;
}

export interface LoadScenario {
  readonly name: string;
  readonly baseUrl: string;
  /** Sent in turn by every connection; the first one is also the verified request. */
  readonly requests: readonly LoadRequest[];
  readonly connections: number;
  readonly pipelining: number;
  readonly expectedStatus: number;
  /** Checks the verified request's answer body; returns what is wrong, or null. */
  readonly verify?: (body: string) => string | null;
  /** Sees every answer: the verified request's, the warm-up's and the rounds'. */
  readonly onAnswer?: (status: number, body: string) => void;
  /**
   * autocannon replaces each `[<id>]` in a body with a fresh random id on every request (a unique
   * field per request, such as an idempotency key); the verified request sends the tag as is.
   */
  readonly idReplacement?: boolean;
}

export interface LoadOptions {
  readonly rounds: number;
  readonly durationSec: number;
  readonly warmupSec: number;
  /**
   * After a run that left requests unanswered, wait this long before the next: autocannon closes
   * its sockets at the end of a run, but the server finishes what it had started (an event page
   * holds its key's read slot until then), so the next run's connections would find those slots
   * taken and measure 429s that no client of theirs caused. 0 (the default): no wait.
   */
  readonly settleMs?: number;
}

export interface RoundStats {
  readonly reqPerSec: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly non2xx: number;
  readonly errors: number;
}

export interface LoadSummary {
  readonly name: string;
  readonly connections: number;
  readonly pipelining: number;
  readonly rounds: readonly RoundStats[];
  /** Medians over the rounds. */
  readonly reqPerSec: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  /** Sums over the rounds. */
  readonly non2xx: number;
  readonly errors: number;
  /** 2xx answers over verification, warm-up and rounds. */
  readonly total2xx: number;
  /**
   * Requests sent but never answered: autocannon closes its sockets at the end of a run with one
   * request in flight per connection. The server may well have processed them.
   */
  readonly totalUnanswered: number;
}

interface RunStats extends RoundStats {
  readonly ok: number;
  readonly unanswered: number;
}

export const median = (values: readonly number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  if (sorted.length === 0) return Number.NaN;
  return sorted.length % 2 === 1
    ? (sorted[mid] as number)
    : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
};

/** A request's headers: the key, and the content type when it has a body. */
const headersOf = (request: LoadRequest): Record<string, string> => ({
  ...(request.body === undefined ? KEY_HEADERS : JSON_KEY_HEADERS),
});

async function verifyOne(scenario: LoadScenario): Promise<void> {
  const first = scenario.requests[0];
  if (first === undefined) throw new Error(`${scenario.name}: no request to send`);
  const response = await fetch(scenario.baseUrl + first.path, {
    method: first.method,
    headers: headersOf(first),
    ...(first.body === undefined ? {} : { body: first.body }),
  });
  const body = await response.text();
  if (keyRefused(response.status)) {
    throw keyRefusedError(`${scenario.name}: ${first.method} ${first.path}`, response.status, body);
  }
  scenario.onAnswer?.(response.status, body);
  const problem =
    response.status !== scenario.expectedStatus
      ? `status ${response.status}, expected ${scenario.expectedStatus}`
      : (scenario.verify?.(body) ?? null);
  if (problem !== null) {
    throw new Error(
      `${scenario.name}: ${first.method} ${first.path} answered wrongly: ${problem}\n${body.slice(0, 500)}`,
    );
  }
}

function runOnce(scenario: LoadScenario, durationSec: number): Promise<RunStats> {
  // autocannon's own latency histogram has 1 ms resolution; this one keeps microseconds.
  const latency = hdr.build({ lowestDiscernibleValue: 1, highestTrackableValue: 60_000_000 });
  const onAnswer = scenario.onAnswer;
  const requests: autocannon.Request[] = scenario.requests.map((r) => ({
    method: r.method,
    path: r.path,
    headers: headersOf(r),
    ...(r.body === undefined ? {} : { body: r.body }),
    ...(onAnswer === undefined
      ? {}
      : { onResponse: (status: number, body: string) => onAnswer(status, body) }),
  }));
  // A refused key makes every answer a 401 or 403: stop at the first, measure nothing.
  let refused: number | null = null;
  return new Promise((resolve, reject) => {
    const instance = autocannon(
      {
        url: scenario.baseUrl,
        connections: scenario.connections,
        pipelining: scenario.pipelining,
        duration: durationSec,
        requests,
        timeout: 10,
        idReplacement: scenario.idReplacement === true,
      },
      (error, result) => {
        if (error !== null && error !== undefined) {
          reject(error instanceof Error ? error : new Error(String(error)));
          return;
        }
        if (refused !== null) {
          reject(keyRefusedError(`${scenario.name}: autocannon`, refused));
          return;
        }
        const answered =
          result['1xx'] + result['2xx'] + result['3xx'] + result['4xx'] + result['5xx'];
        resolve({
          reqPerSec: result.requests.average,
          p50Ms: latency.getValueAtPercentile(50) / 1000,
          p99Ms: latency.getValueAtPercentile(99) / 1000,
          non2xx: result.non2xx,
          errors: result.errors,
          ok: result['2xx'],
          unanswered: Math.max(0, result.requests.sent - answered),
        });
      },
    );
    instance.on(
      'response',
      (_client: unknown, status: number, _bytes: number, responseTimeMs: number) => {
        latency.recordValue(Math.max(1, Math.round(responseTimeMs * 1000)));
        if (refused === null && keyRefused(status)) {
          refused = status;
          instance.stop();
        }
      },
    );
  });
}

const settle = async (unanswered: number, options: LoadOptions): Promise<void> => {
  const ms = options.settleMs ?? 0;
  if (unanswered > 0 && ms > 0) await new Promise((resolve) => setTimeout(resolve, ms));
};

export async function runLoad(scenario: LoadScenario, options: LoadOptions): Promise<LoadSummary> {
  let total2xx = 0;
  const counting: LoadScenario = {
    ...scenario,
    onAnswer: (status, body) => {
      if (status >= 200 && status < 300) total2xx++;
      scenario.onAnswer?.(status, body);
    },
  };
  await verifyOne(counting);
  let totalUnanswered = 0;
  if (options.warmupSec > 0) {
    const warm = await runOnce(counting, options.warmupSec);
    totalUnanswered += warm.unanswered;
    await settle(warm.unanswered, options);
    log(
      `${scenario.name}: warm-up ${options.warmupSec}s: ${Math.round(warm.reqPerSec)} req/s, ` +
        `non-2xx ${warm.non2xx}, errors ${warm.errors}`,
    );
  }
  const rounds: RunStats[] = [];
  for (let i = 1; i <= options.rounds; i++) {
    const round = await runOnce(counting, options.durationSec);
    rounds.push(round);
    totalUnanswered += round.unanswered;
    await settle(round.unanswered, options);
    log(
      `${scenario.name}: round ${i}/${options.rounds}: ${Math.round(round.reqPerSec)} req/s, ` +
        `p50 ${round.p50Ms.toFixed(2)} ms, p99 ${round.p99Ms.toFixed(2)} ms, ` +
        `non-2xx ${round.non2xx}, errors ${round.errors}`,
    );
  }
  return {
    name: scenario.name,
    connections: scenario.connections,
    pipelining: scenario.pipelining,
    rounds: rounds.map(({ reqPerSec, p50Ms, p99Ms, non2xx, errors }) => ({
      reqPerSec,
      p50Ms,
      p99Ms,
      non2xx,
      errors,
    })),
    ...roundMedians(rounds),
    non2xx: rounds.reduce((sum, r) => sum + r.non2xx, 0),
    errors: rounds.reduce((sum, r) => sum + r.errors, 0),
    total2xx,
    totalUnanswered,
  };
}

/** The rounds' medians: the figures a bench table shows for a scenario. */
export const roundMedians = (
  rounds: readonly RoundStats[],
): Pick<LoadSummary, 'reqPerSec' | 'p50Ms' | 'p99Ms'> => ({
  reqPerSec: median(rounds.map((r) => r.reqPerSec)),
  p50Ms: median(rounds.map((r) => r.p50Ms)),
  p99Ms: median(rounds.map((r) => r.p99Ms)),
});

/** Progress lines go to stderr, so stdout holds only the tables. */
export function log(line: string): void {
  process.stderr.write(`${line}\n`);
}
