// PATTERN rules go on across restarts (issue 33): "3 failed logins then a success" begun before a
// SIGTERM (its partitions in the stop's checkpoint) and continued before a kill -9 (that failure
// committed after the last checkpoint, read back by the replay) completes after the second
// restart: one alert, as an uninterrupted run would raise, and none without the success.
import t from 'tap';
import { testDatabaseUrl } from '../support/database.ts';
import { freePort } from '../support/free-port.ts';
import { alertsOf, api, metricsCounting } from '../support/reliability/metrics-restart.ts';
import { externalDatabase } from '../support/run-databases.ts';
import { spawnVigil, stopServer, type ServerProcess } from '../support/service-process.ts';
import { waitUntil } from '../support/vigil-cluster.ts';
import { LOGIN_CONFIG } from '../domain/rules/kinds/pattern/fixtures.ts';

const login = (success: boolean) => ({
  eventType: 'login',
  source: 'web',
  userId: 'alice',
  metadata: { success },
});

const postLogins = (proc: ServerProcess, ...successes: boolean[]): Promise<unknown> =>
  api(proc, '/api/v1/events/batch', successes.map(login));

const partitionsOf = async (proc: ServerProcess, ruleId: number): Promise<number> =>
  ((await api(proc, `/api/v1/rules/${ruleId}/status`)) as { pattern?: { partitions: number } })
    .pattern?.partitions ?? -1;

void t.test('a sequence begun before SIGTERM and kill -9 completes after them', async (t) => {
  const db = externalDatabase(testDatabaseUrl());
  t.teardown(() => db.cleanup());
  const port = await freePort();
  // Checkpoints only at a stop (and a reset): the kill -9 finds the SIGTERM's one.
  const env = { ...db.env, METRICS_CHECKPOINT_SECONDS: '0', RULE_EVALUATION_MS: '200' };
  const start = (name: string) => spawnVigil({ port, env, name, readyTimeoutMs: 60_000 });

  const first = await start('vigil#1');
  const rule = (await api(first, '/api/v1/rules', {
    name: 'Brute force',
    ruleType: 'PATTERN',
    ruleConfig: LOGIN_CONFIG,
    severity: 'HIGH',
  })) as { id: number };
  await postLogins(first, false, false);
  await waitUntil('two failures observed', async () =>
    (await partitionsOf(first, rule.id)) === 1 ? null : 'no partition yet',
  );
  await stopServer(first);

  const second = await start('vigil#2');
  t.equal(await partitionsOf(second, rule.id), 1, "after SIGTERM: alice's partition is back");
  await postLogins(second, false);
  await metricsCounting(second, 3);
  second.signalGroup('SIGKILL');
  await second.exited;

  const third = await start('vigil#3');
  t.match(
    (await metricsCounting(third, 3)).restoredFrom,
    { replayedEvents: 1 },
    'the third failure, after the checkpoint, was replayed',
  );
  t.same(await alertsOf(third, rule.id), [], 'three failures alone complete nothing');
  await postLogins(third, true);
  await waitUntil('the sequence completes', async () =>
    (await alertsOf(third, rule.id)).length === 1 ? null : 'no alert yet',
  );
  t.pass('one alert: the failures before both restarts and the success after');
  await stopServer(third);
});
