/**
 * Plain calls to the service under test that the metrics and rules benches share: batch seeding
 * with a few connections, reading the snapshot's summary, and waiting until it shows a count.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { log, type LoadScenario } from './run-load.ts';
import { num } from '../report/print-table.ts';
import { batchBody, type BenchEvent } from './event-mix.ts';
import { keyedFetch } from './client-key.ts';

/** How often a batch may be retried after a 5xx (nothing of it was stored). */
const RETRIES = 5;

export interface SeedResult {
  readonly seconds: number;
  readonly retried: number;
}

/** POSTs `total` events from `next` in batches of `batch` over `connections` concurrent requests. */
export async function seedBatches(
  url: string,
  total: number,
  batch: number,
  connections: number,
  next: () => BenchEvent,
): Promise<SeedResult> {
  const batches = Math.ceil(total / batch);
  const started = performance.now();
  let index = 0;
  let stored = 0;
  let reported = 0;
  let retried = 0;
  const post = async (count: number): Promise<void> => {
    const body = batchBody(next, count);
    for (let attempt = 0; ; attempt++) {
      const response = await keyedFetch(`${url}/api/v1/events/batch`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body,
      });
      const text = await response.text();
      if (response.status >= 500 && attempt < RETRIES) {
        retried++;
        await sleep(200);
        continue;
      }
      const accepted = /"accepted":(\d+)/.exec(text)?.[1];
      if (response.status !== 202 || Number(accepted) !== count) {
        throw new Error(
          `batch: status ${response.status}, accepted ${accepted}: ${text.slice(0, 300)}`,
        );
      }
      return;
    }
  };
  const connection = async (): Promise<void> => {
    for (let i = index++; i < batches; i = index++) {
      const count = Math.min(batch, total - i * batch);
      await post(count);
      stored += count;
      if (stored - reported >= 200_000) {
        reported = stored;
        const rate = stored / ((performance.now() - started) / 1000);
        log(`seeded ${num(stored)} events (${num(rate)} events/s)`);
      }
    }
  };
  await Promise.all(Array.from({ length: connections }, connection));
  return { seconds: (performance.now() - started) / 1000, retried };
}

export interface SnapshotSummary {
  readonly totalEvents: number;
  readonly uniqueUsers: number;
  readonly uniqueEventTypes: number;
  readonly uniqueSources: number;
}

export async function readSummary(url: string): Promise<SnapshotSummary> {
  const response = await keyedFetch(`${url}/api/v1/metrics`);
  if (response.status !== 200) throw new Error(`GET /api/v1/metrics: status ${response.status}`);
  const snapshot = (await response.json()) as { summary: SnapshotSummary };
  return snapshot.summary;
}

/** Polls the snapshot until totalEvents reaches `count` (the actor lags by up to its refresh). */
export async function waitForTotal(
  url: string,
  count: number,
  timeoutMs: number,
): Promise<SnapshotSummary> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const summary = await readSummary(url);
    if (summary.totalEvents >= count || Date.now() > deadline) return summary;
    await sleep(250);
  }
}

/** The GET /api/v1/metrics answer check for runLoad: JSON with a numeric summary.totalEvents. */
export function verifySnapshot(body: string): string | null {
  const snapshot = JSON.parse(body) as { summary?: { totalEvents?: unknown } };
  return typeof snapshot.summary?.totalEvents === 'number' ? null : 'no summary.totalEvents';
}

/** GET /api/v1/metrics through autocannon at c connections, each answer checked as a snapshot. */
export const metricsGetScenario = (name: string, baseUrl: string, c: number): LoadScenario => ({
  name,
  baseUrl,
  requests: [{ method: 'GET', path: '/api/v1/metrics' }],
  connections: c,
  pipelining: 1,
  expectedStatus: 200,
  verify: verifySnapshot,
});

/** POSTs each rule body in turn (201 expected) and answers the new rules' ids. */
export async function createRules(url: string, bodies: readonly string[]): Promise<number[]> {
  const ids: number[] = [];
  for (const [i, body] of bodies.entries()) {
    const response = await keyedFetch(`${url}/api/v1/rules`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body,
    });
    const answer = (await response.json()) as { id?: number };
    if (response.status !== 201 || answer.id === undefined)
      throw new Error(`rule ${i}: status ${response.status} ${JSON.stringify(answer)}`);
    ids.push(answer.id);
  }
  return ids;
}
