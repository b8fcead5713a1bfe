// An instance is killed -9 while it ingests and publishes: the batches it committed but had not
// published (or not deleted) are relayed by the survivors from its outbox, and once it restarts
// as itself (a new incarnation, reading the stream from its start) all three count exactly what
// PostgreSQL holds: nothing lost, nothing counted twice.
import t from 'tap';
import { startIngestLoad } from '../support/reliability/ingest-load.ts';
import { convergedOn, clusterTestFile, storedCount, waitUntil } from '../support/vigil-cluster.ts';

await clusterTestFile(3, async (cluster) => {
  const { instances, ids } = cluster;
  const tag = 'crash';
  const victim = instances[0];
  if (victim === undefined) throw new Error('no instance');

  await t.test('kill -9 mid-publish: its outbox relayed by the others', async (t) => {
    const load = startIngestLoad({
      url: victim.url,
      connections: 4,
      tag,
      batchSize: 50,
      timeoutMs: 10_000,
    });
    while (load.acked() < 5_000) await new Promise((resolve) => setTimeout(resolve, 5));
    victim.signal('SIGKILL');
    await victim.exited;
    await load.stop();
    const left = await cluster.db.sql<{ n: string }[]>`
      SELECT count(*) AS n FROM ingest_outbox WHERE instance_id = ${ids[0] as string}`;
    t.comment(`outbox rows of the killed instance right after the kill: ${left[0]?.n}`);
    const stored = await storedCount(cluster.db, tag);
    t.ok(stored >= 5_000, 'what was acknowledged is stored');
    await waitUntil(
      'the survivors count every stored event',
      () => convergedOn(instances.slice(1), tag, stored, ids.slice(1)),
      60_000,
    );
    t.pass(`both survivors count ${stored}`);
    await waitUntil("the killed instance's outbox is relayed", async () => {
      const rows = await cluster.db.sql<{ n: string }[]>`
        SELECT count(*) AS n FROM ingest_outbox WHERE instance_id = ${ids[0] as string}`;
      return rows[0]?.n === '0' ? null : `${rows[0]?.n} rows left`;
    });
    t.equal(
      await convergedOn(instances.slice(1), tag, stored, ids.slice(1)),
      null,
      'relayed, nothing counted twice',
    );
  });

  await t.test('restarted as itself: all three exact', async (t) => {
    await cluster.restart(0);
    const stored = await storedCount(cluster.db, tag);
    await waitUntil('all three count every stored event', () =>
      convergedOn(instances, tag, stored, ids),
    );
    t.pass(`all three count ${stored}, complete`);
  });
});
