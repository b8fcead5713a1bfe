// The metrics reset poll (docs/cluster.md, Resetting the metrics): an instance resets its metrics
// when the database's reset counter moved, never at its first read (a reset from before it
// started) nor for its own reset (already done); a reset made here moves the counter, then resets,
// and a failed move resets nothing.
import t from 'tap';
import { watchMetricsResets } from '../../src/cluster/metrics-reset-watch.ts';
import type { StorageOutput } from '../../src/protocol/storage/index.ts';
import { captureLog } from '../support/captured-log.ts';
import { FakeStoragePool } from '../support/fake-storage-pool.ts';

const failure = { ok: false, code: 'DB_FAILURE', message: 'down' } as const;

type Counter = StorageOutput<'metricsResets'>;

/** A pool answering the counter reads and the moves from the lists given, in order. */
const poolAnswering = (reads: Counter[], moves: Counter[]): FakeStoragePool =>
  new FakeStoragePool({
    metricsResets: () => reads.shift() ?? failure,
    countMetricsReset: () => moves.shift() ?? failure,
  });

const NO_TIMERS = { setInterval: () => 'handle', clearInterval: () => undefined };

void t.test('resets when another instance moved the counter, not otherwise', async (t) => {
  const reads = [5, 5, 6, null, 7, 9, 9].map((v): Counter =>
    v === null ? failure : { ok: true, value: v },
  );
  const pool = poolAnswering(reads, [{ ok: true, value: 7 }, failure]);
  let resets = 0;
  const metrics = { reset: () => Promise.resolve(void resets++) };
  const watch = watchMetricsResets(pool, metrics, captureLog('test').log, NO_TIMERS);
  const seen: number[] = [];
  const poll = async (): Promise<void> => {
    await watch.poll();
    seen.push(resets);
  };
  await poll(); // 5: the first read
  await poll(); // 5
  await poll(); // 6: another instance's reset
  await poll(); // a failed read
  t.same(await watch.resetEverywhere(), { ok: true, value: true }, 'a reset made here');
  t.equal(resets, 2, 'resets this instance at once');
  await poll(); // 7: its own move
  await poll(); // 9: two more resets elsewhere
  await poll(); // 9
  t.same(seen, [0, 0, 1, 1, 2, 3, 3], 'not at the first read nor for its own move');
  t.match(await watch.resetEverywhere(), failure, 'the counter could not be moved');
  t.equal(resets, 3, 'then nothing is reset');
  watch.stop();
});
