// The broker dies under ingest: every POST is still answered 202 and stored, every snapshot says
// it is incomplete; the broker comes back on the same port and store, and every instance then
// counts exactly what PostgreSQL holds (from the stream and the outboxes: nothing lost or doubled).
import { setTimeout as sleep } from 'node:timers/promises';
import t from 'tap';
import {
  convergedOn,
  metricsOf,
  postBatch,
  clusterTestFile,
  storedCount,
  waitUntil,
} from '../support/vigil-cluster.ts';

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
    t.pass();
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
  });
});
