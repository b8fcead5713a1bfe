// Outbound work stays bounded under an alert storm: 1,000 rules fire in the same evaluation, each
// notifying a webhook whose host accepts connections and never answers (a black hole). Ingest
// keeps answering throughout, at most NOTIFY_CONCURRENCY connections ever reach the black hole,
// and what the full queue could not take is recorded as dropped on the alerts, not piled up as
// sockets. (Ingest latency with and without the storm is printed; tests assert behaviour, not
// wall time.)
import { createServer, type Socket } from 'node:net';
import t from 'tap';
import { NOTIFY_RETRY } from '../../src/notify/notify-options.ts';
import { contactPointsApi } from '../support/contact-points.ts';
import { rulesApi } from '../support/rules.ts';
import { startTestService } from '../support/service.ts';
import { alertPage, pumpErrors, waitUntil } from './alerts-helpers.ts';

const RULES = 1000;
const CONCURRENCY = 8;

const sockets = new Set<Socket>();
let mostAtOnce = 0;
let connections = 0;
const blackHole = createServer((socket) => {
  connections += 1;
  sockets.add(socket);
  mostAtOnce = Math.max(mostAtOnce, sockets.size);
  socket.on('close', () => sockets.delete(socket));
  socket.on('error', () => {});
});
await new Promise<void>((resolve) => blackHole.listen(0, '127.0.0.1', resolve));
t.teardown(() => {
  for (const socket of sockets) socket.destroy();
  blackHole.close();
});
const port = (blackHole.address() as { port: number }).port;

const svc = await startTestService(t, {
  NOTIFY_CONCURRENCY: String(CONCURRENCY),
  NOTIFY_QUEUE_MAX: '50',
  NOTIFY_TIMEOUT_MS: '500',
});

/** Answers to `n` single-event POSTs, one after another, and their times (ms). */
async function ingest(n: number): Promise<{ statuses: Set<number>; p99: number }> {
  const statuses = new Set<number>();
  const times: number[] = [];
  for (let i = 0; i < n; i++) {
    const start = performance.now();
    const res = await svc.request('/api/v1/events', {
      json: { eventType: 'storm.probe', source: 'storm' },
    });
    await res.arrayBuffer();
    times.push(performance.now() - start);
    statuses.add(res.status);
  }
  times.sort((a, b) => a - b);
  return { statuses, p99: times[Math.floor(n * 0.99)] ?? 0 };
}

t.test('1,000 rules firing at once at a black hole', async (t) => {
  const quiet = await ingest(200);
  await contactPointsApi(svc).create({
    name: 'black-hole',
    type: 'webhook',
    isDefault: true,
    settings: { url: `http://127.0.0.1:${port}/hook` },
  });
  const rules = rulesApi(svc);
  for (let i = 0; i < RULES; i += 50) {
    await Promise.all(
      Array.from({ length: 50 }, (_, j) =>
        rules.create({
          name: `storm ${i + j}`,
          ruleType: 'THRESHOLD',
          severity: 'LOW',
          // The pumped checkout failures make it true; the probes' events do not matter.
          ruleConfig: {
            metric: 'eventsByType[checkout.failed]',
            operator: 'GREATER_THAN',
            threshold: 0,
            windowMinutes: 1,
          },
          notificationChannels: ['webhook'],
          suppressionWindowMinutes: 0,
          maxAlertsPerHour: 3600,
        }),
      ),
    );
  }
  // The storm: the pumped errors make every rule's condition true at the next evaluation; ingest
  // goes on meanwhile, until every incident is stored.
  const pump = pumpErrors(svc);
  try {
    let stormDone = false;
    const storm: { statuses: Set<number>; p99: number }[] = [];
    const probing = (async () => {
      while (!stormDone) storm.push(await ingest(20));
    })();
    await waitUntil(
      () => alertPage(svc, '?size=1'),
      (page) => page.totalElements >= RULES,
      'every rule to fire',
      120_000,
    );
    stormDone = true;
    await probing;
    const statuses = new Set(storm.flatMap((p) => [...p.statuses]));
    t.same([...statuses], [202], `all ${storm.length * 20} events during the storm were accepted`);
    const p99 = Math.max(...storm.map((p) => p.p99));
    t.comment(
      `ingest p99 ${quiet.p99.toFixed(1)} ms quiet, at most ${p99.toFixed(1)} ms in the storm`,
    );
    const health = await svc.request('/api/v1/events/health');
    t.equal(health.status, 200, 'health answers');
    await health.arrayBuffer();

    const dropped = await waitUntil(
      () => alertPage(svc, '?size=100'),
      (page) =>
        page.content.some((a) => a.deliveries.some((d) => /queue full/.test(d.error ?? ''))),
      'a delivery dropped because the queue was full',
    );
    t.equal(dropped.totalElements, RULES, 'one incident per rule');
    t.ok(connections > 0, 'deliveries did reach the black hole');
    // The service holds at most NOTIFY_CONCURRENCY sockets (one per delivery in flight); the
    // listener learns of a close a little after it happened, so it may count a few closing ones.
    t.ok(
      mostAtOnce <= CONCURRENCY * NOTIFY_RETRY.attempts,
      `connections bounded by NOTIFY_CONCURRENCY, not by the ${RULES} alerts (${mostAtOnce})`,
    );
  } finally {
    await pump.stop();
  }
});
