// Database outage under load (a PostgreSQL of this test's own, stopped and started again): clear
// 500s within the query timeout while it is down, health DOWN then UP, recovery without a restart,
// and nothing acknowledged lost. A frozen server (SIGSTOP) is the same test with hung connections.
import t from 'tap';
import { brokenPromises } from '../support/reliability/ingest-load.ts';
import { runOutage, type OutageMode, type OutageResult } from '../support/reliability/outage.ts';

const QUERY_TIMEOUT_MS = 2000;

function check(t: Tap, r: OutageResult): void {
  const phase = (name: string) => r.phases.find((p) => p.phase === name);
  const before = phase('before');
  const during = phase('during');
  const after = phase('after');
  if (before === undefined || during === undefined || after === undefined)
    throw new Error('phases');
  t.comment(
    r.phases
      .map(
        (p) =>
          `${p.phase}: ${p.requests} requests, 202 ${p.accepted}, 500 ${p.failed500}, 503 ${p.refused503}, ` +
          `no answer ${p.noAnswer}, slowest ${Math.round(p.maxMs)} ms, health UP/DOWN ${p.healthUp}/${p.healthDown}`,
      )
      .join('\n'),
  );
  t.same(brokenPromises(r.check), [], 'every promise kept');
  t.ok(before.accepted > 0, 'accepting before the outage');
  t.ok(during.failed500 + during.refused503 > 0, 'clear 500/503 answers during the outage');
  t.equal(during.noAnswer, 0, 'every request answered during the outage');
  t.equal(during.other, 0, 'no other answers');
  // Every phase: the requests in flight when the database went away are the likeliest to hang.
  // A hung one shows as no answer by the client's own timeout (r.hangLimitMs); how fast the
  // answers came is a figure for bench:chaos, not a test bound.
  t.same(
    r.phases.map((p) => [p.phase, p.noAnswer]),
    r.phases.map((p) => [p.phase, 0]),
    'no request hung, in any phase',
  );
  t.ok(during.healthDown > 0, 'health DOWN during the outage');
  // A probe the client gave up on lasted the whole hang limit; any other one was answered.
  t.ok(during.healthMaxMs < r.hangLimitMs, 'every health probe answered');
  t.not(r.firstUpAfterMs, null, 'health UP again after the outage');
  t.not(r.firstAckAfterMs, null, '202 again after the outage, without a restart');
  t.ok(after.accepted > 0, 'accepting after the outage');
  t.ok(
    (during.rssMaxKiB ?? 0) <= (before.rssMaxKiB ?? 0) + 100 * 1024,
    'RSS bounded during the outage',
  );
  t.equal(r.exit.code, 0, 'exit 0 after SIGTERM');
}

interface Tap {
  comment(message: string): void;
  same(found: unknown, wanted: unknown, message: string): boolean;
  ok(value: unknown, message: string): boolean;
  equal(found: unknown, wanted: unknown, message: string): boolean;
  not(found: unknown, notWanted: unknown, message: string): boolean;
}

const run = (mode: OutageMode): Promise<OutageResult> =>
  runOutage({
    mode,
    beforeMs: 2_000,
    outageMs: 4_000,
    afterMs: 4_000,
    connections: 4,
    queryTimeoutMs: QUERY_TIMEOUT_MS,
  });

void t.test('PostgreSQL stopped for 4 s under load', async (t) => check(t, await run('stop')));

void t.test('PostgreSQL frozen (SIGSTOP) for 4 s under load', async (t) =>
  check(t, await run('freeze')),
);
