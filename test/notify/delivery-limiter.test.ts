// The bound on outbound work (real sockets): against a receiver that holds every request open,
// N + 10 deliveries put N in flight and queue NOTIFY_QUEUE_MAX; the rest are dropped at once,
// recorded as failed deliveries and counted in a warning that is not repeated for every drop.
import t from 'tap';
import type { DeliveryResult } from '../../src/domain/rules/alerts/alert.ts';
import type { Logger } from '../../src/log.ts';
import { DROPPED_REASON, deliverAlert } from '../../src/notify/deliver.ts';
import { DROP_WARN_INTERVAL_MS, createDeliveryLimiter } from '../../src/notify/delivery-limiter.ts';
import { captureLog } from '../support/captured-log.ts';
import { alert, contactPoints, notifyOptions, startHttpReceiver } from './receivers.ts';

/** A logger whose warnings (and worse) the test reads, parsed. */
function capturedLog(): { log: Logger; lines: Record<string, unknown>[] } {
  const captured = captureLog('notify');
  return {
    log: captured.log,
    get lines() {
      return captured.lines
        .map((line) => JSON.parse(line) as Record<string, unknown>)
        .filter((line) => Number(line.level) >= 40);
    },
  };
}

/** Resolves once `condition` holds, checking after each turn of the event loop. */
async function until(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((resolve) => setImmediate(resolve));
}

t.test('N in flight, the queue capped, the overflow dropped and recorded', async (t) => {
  const concurrency = 4;
  const queueMax = 6;
  let open = 0;
  let maxOpen = 0;
  let release = (): void => {};
  const released = new Promise<void>((resolve) => (release = resolve));
  const receiver = await startHttpReceiver(t, async () => {
    maxOpen = Math.max(maxOpen, ++open);
    await released;
    open--;
    return { status: 200, body: 'ok' };
  });
  let clock = 0;
  const captured = capturedLog();
  const { log } = captured;
  const limiter = createDeliveryLimiter({ concurrency, queueMax }, { log, now: () => clock });
  const rule = { notificationChannels: ['webhook'], notificationConfig: null } as const;
  const points = contactPoints({ type: 'webhook', settings: { url: receiver.url } });
  const options = notifyOptions({ timeoutMs: 60_000, attempts: 1 });
  const deliver = (): Promise<DeliveryResult[]> =>
    deliverAlert(alert, rule, options, limiter, points);

  const deliveries = Array.from({ length: concurrency + 10 }, deliver);
  // Deliveries take their place in call order: the last four find the queue full.
  const dropped = await Promise.all(deliveries.slice(concurrency + queueMax));
  for (const results of dropped) {
    t.match(results, [{ channel: 'webhook', ok: false, attempts: 0, error: DROPPED_REASON }]);
  }
  await until(() => receiver.received.length === concurrency);
  t.same(limiter.stats(), { inFlight: concurrency, queued: queueMax, dropped: 4 });
  t.equal(captured.lines.length, 1, 'one warning for the four drops');
  t.match(captured.lines[0], {
    level: 40,
    droppedTotal: 1,
    droppedSinceLastWarning: 1,
    queueMax: 6,
  });

  // Later drops are reported together once the interval has passed.
  await deliver();
  clock += DROP_WARN_INTERVAL_MS;
  t.match(await deliver(), [{ ok: false, attempts: 0, error: DROPPED_REASON }]);
  t.equal(captured.lines.length, 2);
  t.match(captured.lines[1], { droppedTotal: 6, droppedSinceLastWarning: 5 });

  release();
  const delivered = await Promise.all(deliveries.slice(0, concurrency + queueMax));
  for (const results of delivered) t.match(results, [{ ok: true, attempts: 1, status: 200 }]);
  t.equal(receiver.received.length, concurrency + queueMax, 'every queued delivery was sent');
  t.equal(maxOpen, concurrency, `never more than ${concurrency} requests open at the receiver`);
  t.same(limiter.stats(), { inFlight: 0, queued: 0, dropped: 6 });
});

t.test('a task that fails frees its slot for the next one', async (t) => {
  const { log } = capturedLog();
  const limiter = createDeliveryLimiter({ concurrency: 1, queueMax: 1 }, { log });
  const failing = limiter.run(
    () => Promise.reject(new Error('boom')),
    () => 'dropped',
  );
  const next = limiter.run(
    async () => 'ran',
    () => 'dropped',
  );
  await t.rejects(failing, { message: 'boom' });
  t.equal(await next, 'ran');
  t.same(limiter.stats(), { inFlight: 0, queued: 0, dropped: 0 });
});

t.test('a queue of 0 drops whatever finds every slot taken', async (t) => {
  const { log } = capturedLog();
  const limiter = createDeliveryLimiter({ concurrency: 1, queueMax: 0 }, { log });
  let finish = (): void => {};
  const first = limiter.run(
    () => new Promise<string>((resolve) => (finish = () => resolve('first'))),
    () => 'dropped',
  );
  t.equal(
    await limiter.run(
      async () => 'second',
      () => 'dropped',
    ),
    'dropped',
  );
  finish();
  t.equal(await first, 'first');
  t.equal(
    await limiter.run(
      async () => 'third',
      () => 'dropped',
    ),
    'third',
  );
});
