// Two Vigil processes on one database in cluster mode (issue 23, docs/cluster-leader.md): one rule
// leader at a time; a rule made on the other instance is evaluated by the leader within the poll;
// the leader is killed with SIGKILL while its FIRING notification is still in flight, the other
// takes over within 10 s at the next epoch, sends that FIRING again from the outbox with the same
// transitionId, and the incident resolves on it: the receiver, deduplicating on Idempotency-Key as
// a real one does, sees exactly one FIRING and one RESOLVED. A restarted process does not get its
// old epoch back, and rules changed through it reach the leader.
//
// Cluster mode runs on a private nats-server (test/support/nats-server.ts); without the binary the
// file skips, saying how to get it.
import { setTimeout as sleep } from 'node:timers/promises';
import t from 'tap';
import { contactPointsApi } from '../support/contact-points.ts';
import { testDatabaseUrl } from '../support/database.ts';
import { processService } from '../support/process-service.ts';
import { startRecordingReceiver } from '../support/recording-receiver.ts';
import { rulesApi } from '../support/rules.ts';
import { externalDatabase } from '../support/run-databases.ts';
import { spawnVigil, stopServer, type ServerProcess } from '../support/service-process.ts';
import type { TestService } from '../support/service.ts';
import { alertsOf, pumpErrors, waitUntil } from '../service/alerts-helpers.ts';
import { natsServerPath, NO_NATS_SERVER, startNatsServer } from '../support/nats-server.ts';

const LEADER = /this instance is the rule leader/;

if (natsServerPath() === null) t.plan(0, NO_NATS_SERVER);
else
  void t.test('kill -9 the rule leader: take-over, and one FIRING and one RESOLVED', async (t) => {
    const db = externalDatabase(testDatabaseUrl(), { prefix: 'lease' });
    t.teardown(() => db.cleanup());
    const nats = await startNatsServer();
    const receiver = await startRecordingReceiver(t);
    const env = {
      ...db.env,
      NATS_URL: nats.url,
      STORAGE_WORKERS: '1',
      DB_CONNECTIONS_PER_WORKER: '2',
      // The FIRING attempt held by the receiver must outlast the kill, not time out first.
      NOTIFY_TIMEOUT_MS: '60000',
    };
    const procs: ServerProcess[] = [];
    t.teardown(async () => {
      for (const proc of procs) await stopServer(proc, 10_000);
      await nats.stop();
    });
    const spawn = async (name: string): Promise<[ServerProcess, TestService]> => {
      // An id of its own: the processes share one working directory, so not the data directory's.
      const proc = await spawnVigil({ env: { ...env, VIGIL_INSTANCE_ID: name }, name });
      procs.push(proc);
      return [proc, processService(proc, db)];
    };

    const [aProc, a] = await spawn('vigil-a');
    await waitUntil(() => aProc.logged(LEADER), Boolean, 'A to take the lease');
    const [bProc, b] = await spawn('vigil-b');

    // The rule is made through B, which does not lead: A learns of it within its poll. (The contact
    // point is made on A: its reload, every second in a cluster, is not what this test waits for.)
    await contactPointsApi(a).create({
      name: 'hook',
      type: 'webhook',
      isDefault: true,
      settings: { url: receiver.url },
    });
    const rule = await rulesApi(b).create({
      name: 'errors on the leader',
      ruleType: 'THRESHOLD',
      ruleConfig: {
        metric: 'errorRate',
        operator: 'GREATER_THAN',
        threshold: 20,
        windowMinutes: 1,
      },
      severity: 'HIGH',
      notificationChannels: ['webhook'],
    });
    const statusOn = async (
      svc: TestService,
    ): Promise<{ evaluated: boolean; state: string | null }> =>
      (await (await svc.request(`/api/v1/rules/${rule.id}/status`)).json()) as {
        evaluated: boolean;
        state: string | null;
      };
    await waitUntil(
      () => statusOn(a),
      (s) => s.evaluated,
      'the rule made on B to reach the leader',
    );
    t.notOk(bProc.logged(LEADER), 'B does not lead while A holds the lease');

    // The leader fires (its own events: metrics are per instance until the data plane joins them);
    // the receiver keeps the FIRING notification unanswered, so A dies with it in flight.
    receiver.hold((r) => r.transition === 'FIRING');
    const pumpA = pumpErrors(a);
    await waitUntil(
      () => receiver.received.length,
      (n) => n >= 1,
      'the FIRING notification',
    );
    await pumpA.stop();
    const [firing] = receiver.received;
    t.match(firing, { transition: 'FIRING' });
    t.equal(firing?.key, firing?.transitionId, 'Idempotency-Key is the transitionId');
    const [lease] = await db.sql<{ epoch: string }[]>`SELECT epoch FROM leases`;
    const firstEpoch = Number(lease?.epoch);

    const killedAt = Date.now();
    aProc.signal('SIGKILL');
    await aProc.exited;
    // B takes over; meanwhile the rule's condition holds on B too (it ends the restored wait).
    const pumpB = pumpErrors(b);
    // The bound (LEASE_TTL_MS + LEASE_RENEW_MS, 6 s by default) is checked on a hand-driven clock in
    // leader-lease.test.ts; here the wait is generous and the time only reported.
    await waitUntil(() => bProc.logged(LEADER), Boolean, 'B to take the lease over', 30_000);
    t.comment(`B took over ${Date.now() - killedAt} ms after the kill`);
    const [taken] = await db.sql<{ epoch: string }[]>`SELECT epoch FROM leases`;
    t.equal(Number(taken?.epoch), firstEpoch + 1, 'at the next epoch');

    await waitUntil(
      () => receiver.received.filter((r) => r.key === firing?.transitionId).length,
      (n) => n >= 2,
      'the new leader to send the FIRING left in the outbox',
    );
    await waitUntil(
      () => statusOn(b),
      (s) => s.evaluated && s.state === 'FIRING',
      'B to hold it FIRING',
    );
    await pumpB.stop();
    // INFO events until the last minute's error rate is under 20 %: B counts the errors pumped into
    // A too (the data plane), and A's last batches relayed from its outbox, so how many it takes
    // depends on how long A pumped; each round posts 500 and looks for the RESOLVED.
    const resolved = (): number =>
      receiver.received.filter((r) => r.transition === 'RESOLVED').length;
    const deadline = Date.now() + 90_000;
    while (resolved() === 0 && Date.now() < deadline) {
      const events = Array.from({ length: 500 }, () => ({
        eventType: 'page.view',
        source: 'failover-test',
        severity: 'INFO',
      }));
      const res = await b.request('/api/v1/events/batch', { json: events });
      if (res.status !== 202) t.fail(`INFO batch: ${res.status}`);
      await sleep(250);
    }
    await waitUntil(resolved, (n) => n >= 1, 'the RESOLVED notification from the new leader');
    const [stored] = await waitUntil(
      () => alertsOf(b, rule.id),
      (alerts) => alerts[0]?.resolveDeliveries.length === 1 && alerts[0].deliveries.length === 1,
      'the delivery results on the incident',
    );
    t.equal(stored?.state, 'RESOLVED');

    const distinct = (transition: string): string[] =>
      [
        ...new Set(receiver.received.filter((r) => r.transition === transition).map((r) => r.key)),
      ] as string[];
    t.same(distinct('FIRING'), [`alert-${stored?.id}-firing`], 'one FIRING, by its key');
    t.same(distinct('RESOLVED'), [`alert-${stored?.id}-resolved`], 'one RESOLVED, by its key');
    t.equal(
      receiver.received.filter((r) => r.transition === 'RESOLVED').length,
      1,
      'the RESOLVED, delivered and recorded, was sent once',
    );
    const [outbox] = await db.sql<
      { n: number }[]
    >`SELECT count(*)::int AS n FROM notification_outbox`;
    t.equal(outbox?.n, 0, 'nothing left to send');
    const incidents = await alertsOf(b, rule.id);
    t.equal(incidents.length, 1, 'one incident: no double fire across the take-over');

    // A restarts: a new holder id, so it does not continue its old epoch; B keeps leading.
    const [, again] = await spawn('vigil-a2');
    const [still] = await db.sql<{ epoch: string }[]>`SELECT epoch FROM leases`;
    t.equal(Number(still?.epoch), firstEpoch + 1, 'the restarted process did not take the lease');
    // A rule paused through the restarted instance leaves the leader's evaluation within the poll.
    await rulesApi(again).action(rule.id, 'disable');
    await waitUntil(
      () => statusOn(b),
      (s) => !s.evaluated,
      'the pause made on A to reach B',
    );
    const created = await rulesApi(again).create({
      name: 'made on the restarted instance',
      ruleType: 'THRESHOLD',
      ruleConfig: {
        metric: 'totalEvents',
        operator: 'GREATER_THAN',
        threshold: 1e9,
        windowMinutes: 1,
      },
      severity: 'LOW',
    });
    await waitUntil(
      async () =>
        (await (await b.request(`/api/v1/rules/${created.id}/status`)).json()) as {
          evaluated: boolean;
        },
      (s) => s.evaluated,
      'the rule made on A to be evaluated by B',
    );
  });
