// The broker dies under ingest: every POST is still answered 202 and stored, every snapshot says
// it is incomplete; the broker comes back on the same port and store, and every instance then
// counts exactly what PostgreSQL holds (from the stream and the outboxes: nothing lost or doubled).
// GET /metrics (Prometheus) follows it: every cluster-mode family of docs/prometheus.md exported,
// the publish backlog growing while the broker is down and back to 0 with it, nothing left to read.
// A metrics reset made while the broker is down again still reaches every instance (PostgreSQL).
import { setTimeout as sleep } from 'node:timers/promises';
import t from 'tap';
import { docText } from '../support/doc-tables.ts';
import type { ServerProcess } from '../support/service-process.ts';
import {
  convergedOn,
  everyTotalIs,
  gaugesOf,
  metricsOf,
  postBatch,
  clusterTestFile,
  resetMetricsOn,
  storedCount,
  waitUntil,
} from '../support/vigil-cluster.ts';

/** The families of the cluster-mode section of docs/prometheus.md. */
const clusterFamilies = [
  ...new Set(
    docText('docs/prometheus.md')
      .split('## Cluster mode only')[1]
      ?.match(/`vigil_\w+`/g),
  ),
].map((quoted) => quoted.slice(1, -1));

const NATS_GAUGES = [
  'vigil_nats_publish_pending_batches',
  'vigil_nats_publish_lag_seconds',
  'vigil_nats_consume_pending_messages',
  'vigil_nats_consume_lag_seconds',
];

/** null when every instance's NATS gauges say 0: nothing left to publish or to read; else which. */
async function natsSettled(procs: readonly ServerProcess[]): Promise<string | null> {
  const all = await Promise.all(procs.map(gaugesOf));
  const wrong = all.flatMap((gauges, i) =>
    NATS_GAUGES.filter((name) => gauges.get(name) !== 0).map(
      (name) => `#${i} ${name} ${gauges.get(name)}`,
    ),
  );
  return wrong.length === 0 ? null : wrong.join('; ');
}

await clusterTestFile(3, async (cluster) => {
  const { instances, ids, nats } = cluster;
  const tag = 'outage';
  let sent = 0;
  let accepted = 0;
  const round = async (perInstance: number): Promise<void> => {
    const answers = await Promise.all(
      instances.map((proc, i) => postBatch(proc, tag, sent + i * perInstance, perInstance)),
    );
    sent += perInstance * instances.length;
    for (const n of answers) accepted += n;
  };

  await t.test('before: converged', async (t) => {
    await round(500);
    await waitUntil('converged before the outage', () =>
      convergedOn(instances, tag, accepted, ids),
    );
    t.ok(clusterFamilies.length >= 8, 'the cluster-mode table is found');
    for (const [i, proc] of instances.entries()) {
      const gauges = await gaugesOf(proc);
      t.same(
        clusterFamilies.filter((name) => !gauges.has(name)),
        [],
        `instance ${i} exports every cluster-mode family`,
      );
    }
    await waitUntil('nothing left to publish or read', () => natsSettled(instances));
    t.pass('every NATS gauge at 0 once converged');
  });

  await t.test('NATS killed for 10 s under ingest: every POST 202 and stored', async (t) => {
    await nats.kill();
    const until = Date.now() + 10_000;
    while (Date.now() < until) {
      await round(200);
      await sleep(250);
    }
    t.equal(accepted, sent, 'every event answered 202 while the broker was down');
    t.equal(await storedCount(cluster.db, tag), accepted, 'every one of them stored');
    const views = await Promise.all(instances.map((proc) => metricsOf(proc)));
    t.same(
      views.map((v) => v.cluster?.complete),
      instances.map(() => false),
      'every snapshot says it is incomplete',
    );
    // Nothing reaches JetStream now: each instance's pending batches are exactly its outbox rows.
    const publishGauges = async (): Promise<{ pending: number; lag: number; rows: number }[]> => {
      const rows = await cluster.db.sql<{ id: string; n: string }[]>`
        SELECT instance_id AS id, count(*) AS n FROM ingest_outbox GROUP BY instance_id`;
      return Promise.all(
        instances.map(async (proc, i) => {
          const gauges = await gaugesOf(proc);
          return {
            pending: gauges.get('vigil_nats_publish_pending_batches') ?? -1,
            lag: gauges.get('vigil_nats_publish_lag_seconds') ?? -1,
            rows: Number(rows.find((row) => row.id === ids[i])?.n ?? 0),
          };
        }),
      );
    };
    let down: { pending: number; lag: number; rows: number }[] = [];
    await waitUntil('each pending count is its outbox, its lag above 0', async () => {
      down = await publishGauges();
      const ok = down.every((g) => g.rows > 0 && g.pending === g.rows && g.lag > 0);
      return ok ? null : JSON.stringify(down);
    });
    t.pass(`pending batches and lag while down: ${JSON.stringify(down)}`);
    await waitUntil('the publish lag grows while the broker stays down', async () => {
      const now = await publishGauges();
      return now.every((g, i) => g.lag > (down[i]?.lag ?? Infinity)) ? null : JSON.stringify(now);
    });
    t.pass('the publish lag grows with the clock');
  });

  await t.test('NATS back on the same port and store: converged exactly', async (t) => {
    await nats.restart();
    const restarted = Date.now();
    const stored = await storedCount(cluster.db, tag);
    await waitUntil(
      'every instance counts what PostgreSQL holds',
      () => convergedOn(instances, tag, stored, ids),
      90_000,
    );
    t.pass(`each instance counts ${stored} events, complete`);
    t.comment(`converged ${Date.now() - restarted} ms after the broker restarted`);
    // And stays so: nothing arrives twice later (a relay round, a consumer reset).
    await sleep(3_000);
    t.equal(await convergedOn(instances, tag, stored, ids), null, 'still exact 3 s later');
    await waitUntil('the backlog published, the stream read to its end', () =>
      natsSettled(instances),
    );
    t.pass('every NATS gauge back at 0');
  });

  await t.test('NATS down: a reset on one instance resets every instance', async (t) => {
    const taker = instances[2];
    if (taker === undefined) throw new Error('no instance');
    const stored = await storedCount(cluster.db, tag);
    t.equal(await everyTotalIs(instances, stored), null, 'every instance counts the events before');
    await nats.kill();
    await resetMetricsOn(taker);
    await waitUntil('every instance counts nothing', () => everyTotalIs(instances, 0));
    t.pass('every instance zeroed through PostgreSQL while the broker was down');
    await nats.restart();
  });
});
