// Three instances on one PostgreSQL and a private NATS server: 30,000 events posted round-robin
// over the three, and GET /api/v1/metrics on every instance then counts all of them, once. A key
// revoked through one instance is refused by all three. A reset on one instance then zeroes every
// instance's metrics, and what follows is counted alike on all.
import t from 'tap';
import { keyHeaders } from '../support/keys.ts';
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

await clusterTestFile(3, async (cluster) => {
  const { instances, ids } = cluster;
  const tag = 'totals';

  await t.test('every instance shows the same global totals', async (t) => {
    const total = 30_000;
    const batch = 500;
    let accepted = 0;
    // Two requests in flight per instance: the three ingest at once.
    const sends: Promise<number>[] = [];
    for (let from = 0; from < total; from += batch) {
      const proc = instances[(from / batch) % instances.length];
      if (proc === undefined) throw new Error('no instance');
      sends.push(postBatch(proc, tag, from, batch));
      if (sends.length >= 6) accepted += (await sends.shift()) ?? 0;
    }
    for (const send of sends) accepted += await send;
    t.equal(accepted, total, 'every event answered 202');
    t.equal(await storedCount(cluster.db, tag), total, 'every event stored once');
    await waitUntil('every instance counts all 30,000', () =>
      convergedOn(instances, tag, total, ids),
    );
    t.pass('each instance counts 30,000 events of the three, and says its view is complete');
    const outbox = await cluster.db.sql<{ n: string }[]>`SELECT count(*) AS n FROM ingest_outbox`;
    await waitUntil('the outbox empties', async () => {
      const rows = await cluster.db.sql<{ n: string }[]>`SELECT count(*) AS n FROM ingest_outbox`;
      return rows[0]?.n === '0' ? null : `${rows[0]?.n} rows left`;
    });
    t.comment(`outbox rows right after convergence: ${outbox[0]?.n}`);
  });

  await t.test('a key revoked through one instance is refused by every instance', async (t) => {
    const [first, second] = instances;
    if (first === undefined || second === undefined) throw new Error('no instance');
    const made = await fetch(`${first.url}/api/v1/keys`, {
      method: 'POST',
      headers: { ...keyHeaders(), 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'revoked-everywhere', scope: 'read' }),
    });
    t.equal(made.status, 201, 'created on instance 0');
    const { id, key } = (await made.json()) as { id: number; key: string };
    const statusOn = async (proc: ServerProcess): Promise<number> => {
      const res = await fetch(`${proc.url}/api/v1/metrics`, { headers: keyHeaders(key) });
      await res.arrayBuffer();
      return res.status;
    };
    // Each instance reloads its keys from PostgreSQL every second: the new key works everywhere.
    await waitUntil('the new key works on every instance', async () => {
      const statuses = await Promise.all(instances.map(statusOn));
      return statuses.every((s) => s === 200) ? null : `statuses ${statuses.join(', ')}`;
    });
    const revoked = await fetch(`${second.url}/api/v1/keys/${id}`, {
      method: 'DELETE',
      headers: keyHeaders(),
    });
    await revoked.arrayBuffer();
    t.ok(revoked.status >= 200 && revoked.status < 300, 'revoked on instance 1');
    await waitUntil('every instance refuses the revoked key', async () => {
      const statuses = await Promise.all(instances.map(statusOn));
      return statuses.every((s) => s === 401) ? null : `statuses ${statuses.join(', ')}`;
    });
    t.pass('instances 0, 1 and 2 answer 401 to it');
  });

  await t.test('GET /metrics (Prometheus) says the cluster view and who leads', async (t) => {
    // The lease may move while the scrapes run only if a leader dies: here exactly one leads.
    await waitUntil('exactly one instance leads', async () => {
      const all = await Promise.all(instances.map(gaugesOf));
      const leaders = all.filter((g) => g.get('vigil_lease_holder') === 1);
      return leaders.length === 1 ? null : `${leaders.length} instances say they lead`;
    });
    for (const [i, proc] of instances.entries()) {
      const g = await gaugesOf(proc);
      t.equal(g.get('vigil_cluster_instances'), ids.length, `instance ${i} counts every instance`);
      t.equal(g.get('vigil_cluster_view_complete'), 1, `instance ${i}: its view is complete`);
      t.equal(
        g.get('vigil_lease_epoch') === 0,
        g.get('vigil_lease_holder') === 0,
        'epoch 0 iff not leading',
      );
    }
  });

  await t.test('a reset on one instance resets every instance', async (t) => {
    const [, taker] = instances;
    if (taker === undefined) throw new Error('no instance');
    t.ok((await metricsOf(taker)).summary.totalEvents > 0, 'the instances count events before');
    await resetMetricsOn(taker);
    t.equal((await metricsOf(taker)).summary.totalEvents, 0, 'the one that answered: at once');
    // The others poll the reset counter in PostgreSQL.
    await waitUntil('every instance counts nothing', () => everyTotalIs(instances, 0));
    t.pass('every instance zeroed');
    const after = 'after-reset';
    const answers = await Promise.all(
      instances.map((proc, i) => postBatch(proc, after, i * 300, 300)),
    );
    const accepted = answers.reduce((sum, n) => sum + n, 0);
    await waitUntil('every instance counts the events since the reset', () =>
      convergedOn(instances, after, accepted, ids),
    );
    t.equal(await everyTotalIs(instances, accepted), null, 'and nothing from before the reset');
  });
});
