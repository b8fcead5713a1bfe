// Graceful shutdown under load: SIGTERM while producers post. Every 202 is stored, nothing
// answered 503 SHUTTING_DOWN is, the exit is 0 before SHUTDOWN_GRACE_MS, a stalled upload does not
// hold the drain; a second SIGTERM forces exit 1 at once.
import t from 'tap';
import { ownDatabase, runDatabase } from '../support/run-databases.ts';
import { brokenPromises } from '../support/reliability/ingest-load.ts';
import { runShutdown } from '../support/reliability/shutdown.ts';

const GRACE_MS = 10_000;
const UNDER_IDLE_TIMEOUT_MS = 5_000;

void t.test('SIGTERM under load: drains, keeps every promise, exits 0', async (t) => {
  const db = await runDatabase();
  t.teardown(() => db.cleanup());
  const r = await runShutdown(db, { connections: 8, loadMs: 2_000, graceMs: GRACE_MS });
  t.comment(
    `${[...r.counts].map(([k, v]) => `${k}: ${v}`).join(', ')}; 202 after SIGTERM ` +
      `${r.ackedAfterSignal}; exit ${r.exit.code} after ${r.exitMs} ms`,
  );
  t.same(brokenPromises(r.check), [], 'every 202 stored once, nothing of a 503');
  t.ok(r.check.acked > 0, 'events acknowledged');
  t.equal(r.exit.code, 0, 'exit 0: drained, not cut by SHUTDOWN_GRACE_MS (that exits 1)');
  const other = [...r.counts].filter(
    ([k]) =>
      k !== '202' && k !== '503 SHUTTING_DOWN' && k !== 'refused' && !k.startsWith('in-doubt'),
  );
  // A 500 is a database failure, not the shutdown's doing; it promises nothing either way.
  t.same(
    other.filter(([k]) => k !== '500 INTERNAL'),
    [],
    'only 202, 503 SHUTTING_DOWN or connection errors',
  );
});

void t.test('a client mid-body at SIGTERM does not hold the drain', async (t) => {
  const db = await runDatabase();
  t.teardown(() => db.cleanup());
  const r = await runShutdown(db, {
    connections: 4,
    loadMs: 1_000,
    // Shorter than uWS's 10 s HTTP idle timeout: a drain that waited for the stalled upload to
    // time out would be cut by the grace deadline, exit 1.
    graceMs: UNDER_IDLE_TIMEOUT_MS,
    holdRequestOpen: true,
  });
  t.equal(r.exit.code, 0, 'exit 0: drained before the grace deadline, so before the idle timeout');
  t.same(brokenPromises(r.check), [], 'every promise kept');
});

void t.test('database frozen: a second SIGTERM forces exit 1 at once', async (t) => {
  // The frozen database keeps the in-flight batches (and so the drain) waiting; standard signals
  // do not queue, so the second is sent once the first is surely being handled.
  const db = await ownDatabase();
  t.teardown(() => db.cleanup());
  let frozen: number[] = [];
  const r = await runShutdown(db, {
    connections: 8,
    loadMs: 1_500,
    // Out of reach: an exit 1 is then the second signal's doing, not the grace deadline's.
    graceMs: 600_000,
    secondSignalAfterMs: 1_000, // past the window in which main takes a repeat for the same signal
    // Requests sent after the freeze are then stuck in the drain's way.
    beforeSignal: async () => {
      frozen = db.pg.freeze();
      await new Promise((resolve) => setTimeout(resolve, 300));
    },
    afterExit: () => db.pg.thaw(frozen),
  });
  t.equal(r.exit.code, 1, 'exit 1, with the grace deadline ten minutes away: the second signal');
  t.same(brokenPromises(r.check), [], 'still no acknowledged event lost');
});
