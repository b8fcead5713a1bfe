// Supervision of the metrics actor in the real service (DESIGN 1): when its thread dies, requests
// waiting on it fail at once (500) instead of hanging, and a new actor serves the metrics it
// restored (issue 33: the last checkpoint and the stored events after it, or the stored events
// of the last hour when no checkpoint was written yet): the counts before the death, not zero.
//
// This file's process runs the service itself, so it watches the `Worker` class of
// node:worker_threads (a subclass that records the actor threads it creates, installed with
// module.syncBuiltinESMExports before the service starts one, and that can make the next starts
// fail). The test then ends the real actor thread: `terminate()`, a crash by an uncaught
// exception, or requests swallowed before the thread is terminated. The restart back-off timer
// is injected (a manual one), so its delays are checked and fired, never waited out.
import { syncBuiltinESMExports } from 'node:module';
import workerThreads, { Worker, type WorkerOptions } from 'node:worker_threads';
import t from 'tap';
import { ManualTimers } from '../support/manual-timers.ts';
import { startTestService } from '../support/service.ts';
import { until } from '../stomp/helpers.ts';
import { getMetrics, postJson, resetMetrics, waitForMetrics } from './helpers.ts';

interface Actor {
  readonly worker: Worker;
  readonly metricsChannel: string;
  /** Resolves when the thread posted `ready`: it listens to the storage workers from then on. */
  readonly ready: Promise<void>;
  readonly exited: Promise<number>;
}

const actors: Actor[] = [];
const ACTOR_FILE = '/workers/metrics-actor.worker.ts';

/**
 * How the next actor threads fail to start, one entry each: `throw` (the Worker constructor
 * throws, as when no thread can be created) or `crash` (the thread dies before it is ready).
 */
const failingStarts: ('throw' | 'crash')[] = [];

class WatchedWorker extends Worker {
  constructor(filename: string | URL, options?: WorkerOptions) {
    const isActor = String(filename).endsWith(ACTOR_FILE);
    const failure = isActor ? failingStarts.shift() : undefined;
    if (failure === 'throw') throw new Error('simulated: a new thread cannot be started');
    if (failure === 'crash') {
      super('throw new Error("simulated: the thread dies at start-up")', { eval: true });
      return;
    }
    super(filename, options);
    if (isActor) {
      const data = options?.workerData as { metricsChannel?: unknown } | undefined;
      if (typeof data?.metricsChannel !== 'string') throw new Error('no metricsChannel');
      const ready = new Promise<void>((resolve) => {
        const onMessage = (notice: { type?: unknown }): void => {
          if (notice.type !== 'ready') return;
          this.off('message', onMessage);
          resolve();
        };
        this.on('message', onMessage);
      });
      const exited = new Promise<number>((resolve) => this.once('exit', resolve));
      actors.push({ worker: this, metricsChannel: data.metricsChannel, ready, exited });
    }
  }
}
(workerThreads as { Worker: typeof Worker }).Worker = WatchedWorker;
syncBuiltinESMExports();

/** The service's restart back-off timer: it runs only when the test advances it. */
const restartTimers = new ManualTimers();
const svc = await startTestService(t, { METRICS_REFRESH_MS: '50' }, { hooks: { restartTimers } });

const current = (): Actor => {
  const actor = actors.at(-1);
  if (actor === undefined) throw new Error('the service started no metrics actor');
  return actor;
};

/** When the actor serving the snapshot now restored its metrics (each actor's own). */
const servedRestoredAt = async (): Promise<string | undefined> =>
  (await getMetrics(svc)).restoredFrom?.restoredAt;

/**
 * Waits until the `count`-th actor is ready, then until the served snapshot is its own (the dead
 * actor's last one is served until then), and answers it: it must count `total` events, those
 * counted before the death.
 */
async function waitForActor(count: number, before: string | undefined, total: number) {
  await until(() => actors.length >= count, `actor number ${count}`);
  await current().ready;
  const s = await waitForMetrics(
    svc,
    (s) => s.restoredFrom?.restoredAt !== before,
    'the new actor',
  );
  if (s.summary.totalEvents !== total)
    throw new Error(`the new actor counts ${s.summary.totalEvents} events, not ${total}`);
  return s;
}

const RULE = {
  name: 'supervised',
  ruleType: 'THRESHOLD',
  ruleConfig: { metric: 'totalEvents', operator: 'GREATER_THAN', threshold: 1, windowMinutes: 5 },
  severity: 'LOW',
};

/** Stores `n` events and waits until the actor counts them. */
async function countEvents(n: number, eventType: string): Promise<void> {
  await postJson(
    svc,
    '/api/v1/events/batch',
    Array.from({ length: n }, () => ({ eventType, source: 'supervision' })),
    202,
  );
  await waitForMetrics(svc, (s) => s.eventsByType[eventType] === n, `${n} ${eventType} counted`);
}

interface Assert {
  equal(found: unknown, wanted: unknown, message: string): boolean;
  match(found: unknown, pattern: unknown, message: string): boolean;
}

/** The new actor is a full one: it counts new events (after `total`), resets and tests rules. */
async function expectServing(t: Assert, eventType: string, total: number): Promise<void> {
  await countEvents(2, eventType);
  const s = await getMetrics(svc);
  t.equal(s.summary.totalEvents, total + 2, 'counting on from what it restored');
  await resetMetrics(svc);
  t.equal((await getMetrics(svc)).summary.totalEvents, 0, 'reset answers');
  const result = await postJson(svc, '/api/v1/rules/test', RULE, 200);
  t.match(result, { success: true, compilationStatus: 'SUCCESS' }, 'rule test answers');
}

void t.test('the service started one actor, which counts', async (t) => {
  t.equal(actors.length, 1);
  await current().ready;
  await countEvents(3, 'before.any');
});

void t.test('terminated actor: a new one serves the metrics it restored', async (t) => {
  const dead = current();
  const before = await servedRestoredAt();
  t.equal((await getMetrics(svc)).summary.totalEvents, 3);
  await dead.worker.terminate();
  const s = await waitForActor(2, before, 3);
  t.equal(s.eventsByType['before.any'], 3, 'the events before the death, counted once');
  t.not(current(), dead, 'a new thread');
  await expectServing(t, 'after.terminate', 3);
});

void t.test('crashed actor (uncaught exception): restarted, metrics restored', async (t) => {
  await countEvents(4, 'before.crash');
  const crashed = current();
  const before = await servedRestoredAt();
  // A message the storage workers never send: the actor's channel handler throws, uncaught.
  const channel = new BroadcastChannel(crashed.metricsChannel);
  channel.postMessage({ type: 'events-stored', events: null });
  channel.close();
  const code = await crashed.exited;
  t.not(code, 0, `the thread died (exit code ${code})`);
  await waitForActor(3, before, 4);
  await expectServing(t, 'after.crash', 4);
});

void t.test('requests waiting on a dying actor fail fast with 500', async (t) => {
  await countEvents(5, 'before.swallow');
  const dying = current();
  const before = await servedRestoredAt();
  const swallowed: unknown[] = [];
  // The thread dies with two requests sent to it and unanswered.
  dying.worker.postMessage = (value: unknown): void => {
    swallowed.push(value);
    if (swallowed.length === 2) void dying.worker.terminate();
  };
  // Bounded: a request left waiting on the dead thread would otherwise hang the test.
  const [reset, ruleTest] = await Promise.all([
    svc.request('/api/v1/metrics/reset', { method: 'POST', signal: AbortSignal.timeout(10_000) }),
    svc.request('/api/v1/rules/test', { json: RULE, signal: AbortSignal.timeout(10_000) }),
  ]);
  t.match(
    swallowed.map((m) => (m as { type: string }).type).sort(),
    ['reset', 'test-rule'],
    'both requests reached the actor',
  );
  for (const res of [reset, ruleTest]) {
    t.equal(res.status, 500);
    t.match(await res.json(), {
      status: 'error',
      code: 'INTERNAL',
      message: 'Metrics are unavailable: the metrics actor stopped',
    });
  }
  await waitForActor(4, before, 5);
  await expectServing(t, 'after.swallow', 5);
});

for (const failure of ['throw', 'crash'] as const) {
  void t.test(
    `restarts that fail (${failure}): requests fail fast, retries back off`,
    async (t) => {
      await countEvents(2, `before.${failure}`);
      const started = actors.length;
      const before = await servedRestoredAt();
      failingStarts.push(failure, failure, failure);
      await current().worker.terminate();
      // The first restart follows the death at once and fails; the next waits for its timer.
      const timerSet = (): boolean => restartTimers.pending().length > 0;
      await until(timerSet, 'a first failed restart');
      t.equal(failingStarts.length, 2, 'one start tried');
      const res = await svc.request('/api/v1/metrics/reset', {
        method: 'POST',
        signal: AbortSignal.timeout(10_000),
      });
      t.equal(res.status, 500, 'no running actor: 500');
      t.match(await res.json(), { status: 'error', code: 'INTERNAL' });
      t.equal(actors.length, started, 'answered before any new actor ran');
      const delays: number[] = [];
      for (let failed = 1; failed <= 3; failed++) {
        if (failed > 1) await until(timerSet, `timer ${failed}`);
        const pending = restartTimers.pending();
        t.equal(pending.length, 1, `one restart timer set after failure ${failed}`);
        const delay = pending[0] ?? 0;
        delays.push(delay);
        t.equal(failingStarts.length, 3 - failed, `no start tried before timer ${failed} fired`);
        restartTimers.advance(delay);
      }
      await waitForActor(started + 1, before, 2);
      t.equal(failingStarts.length, 0, 'every failed start was retried');
      t.same(restartTimers.pending(), [], 'no restart left waiting once an actor runs');
      t.same(delays, [500, 1_000, 2_000], 'the retries backed off: 500 ms, doubling per failure');
      await expectServing(t, `after.${failure}`, 2);
    },
  );
}
