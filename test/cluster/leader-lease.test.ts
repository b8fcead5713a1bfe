// The leader lease from the instance's side (docs/cluster-leader.md), on a hand-driven clock and a
// scripted storage pool: it leads from the answer that gave it an epoch until the local deadline
// (send time + TTL - renewal period) passes unrenewed, another holder answers, a write was
// refused, or it stops (then it releases the lease). It never waits on a renewal to stop leading.
import t from 'tap';
import { startLeaderLease } from '../../src/cluster/leader-lease.ts';
import type { DbFailure, Result } from '../../src/protocol/storage/index.ts';
import { captureLog } from '../support/captured-log.ts';
import { FakeStoragePool } from '../support/fake-storage-pool.ts';
import { ManualTimers } from '../support/manual-timers.ts';

const TTL = 5000;
const RENEW = 1000;

interface Call {
  readonly name: string;
  readonly input: unknown;
  answer(value: number | null | 'fail'): Promise<void>;
}

/** A pool whose takeLease calls wait until the test answers them. */
function scriptedPool() {
  const calls: Call[] = [];
  /** A call that waits for the test's answer: `value` is what an answer that did not fail holds. */
  const held =
    <T>(name: string, value: (answered: number | null) => T) =>
    (input: unknown): Promise<Result<T, DbFailure>> =>
      new Promise((resolve) => {
        calls.push({
          name,
          input,
          async answer(answered) {
            resolve(
              answered === 'fail'
                ? { ok: false, code: 'DB_FAILURE', message: 'connection refused' }
                : { ok: true, value: value(answered) },
            );
            // Let the lease handle the answer.
            await new Promise((r) => setImmediate(r));
          },
        });
      });
  const pool = new FakeStoragePool({
    takeLease: held('takeLease', (epoch) => epoch),
    releaseLease: held('releaseLease', () => true as const),
  });
  return { pool, calls };
}

function started() {
  const timers = new ManualTimers();
  const { pool, calls } = scriptedPool();
  const events: string[] = [];
  const lease = startLeaderLease({
    pool,
    holder: 'me',
    ttlMs: TTL,
    renewMs: RENEW,
    log: captureLog('test').log,
    timers,
    onGain: (epoch) => events.push(`gain ${epoch}`),
    onLose: (reason) => events.push(`lose: ${reason}`),
  });
  const last = (): Call => {
    const call = calls.at(-1);
    if (call === undefined) throw new Error('no call');
    return call;
  };
  return { timers, calls, events, lease, last };
}

void t.test('leads from the first epoch, renews, and stops at the local deadline', async (t) => {
  const { timers, calls, events, lease, last } = started();
  t.match(calls, [{ name: 'takeLease', input: { name: 'rules', holder: 'me', ttlMs: TTL } }]);
  await last().answer(3);
  t.same(events, ['gain 3']);
  t.same(lease.fence(), { holder: 'me', epoch: 3 });
  t.same(timers.pending(), [RENEW, TTL - RENEW], 'the next renewal, then the deadline');

  timers.advance(RENEW);
  t.equal(calls.length, 2, 'renewed after a period');
  await last().answer(3);
  t.same(events, ['gain 3'], 'a renewal at the same epoch changes nothing');

  // The database stops answering: the renewals are not repeated while one is in flight...
  timers.advance(RENEW);
  t.equal(calls.length, 3);
  timers.advance(RENEW);
  t.equal(calls.length, 3, 'one renewal in flight at a time');
  t.same(lease.fence(), { holder: 'me', epoch: 3 }, 'still within the deadline');
  // ...and the deadline, counted from the last successful renewal's send time, stops it.
  timers.advance(TTL - 3 * RENEW);
  t.same(events, ['gain 3', 'lose: the lease was not renewed in time']);
  t.equal(lease.fence(), null);

  // An answer that comes after its own deadline (send time + TTL - period) is not trusted.
  timers.advance(RENEW);
  await calls[2]?.answer(3);
  t.equal(lease.fence(), null, 'answered too late to lead on');
  t.same(events.length, 2);
  timers.advance(RENEW);
  await last().answer(3);
  t.same(events.at(-1), 'gain 3', 'a timely renewal makes it leader again (same epoch)');
});

void t.test('another holder, a failed renewal, a refused write', async (t) => {
  const { timers, events, lease, last } = started();
  await last().answer(null);
  t.same(events, [], 'another holder: not leading, nothing to lose');
  timers.advance(RENEW);
  await last().answer('fail');
  t.same(events, [], 'a failure changes nothing by itself');
  timers.advance(RENEW);
  await last().answer(7);
  t.same(events, ['gain 7']);
  timers.advance(RENEW);
  await last().answer('fail');
  t.same(
    lease.fence(),
    { holder: 'me', epoch: 7 },
    'one failure within the deadline: still leading',
  );
  lease.fenced();
  t.same(events, ['gain 7', 'lose: a write was refused: the lease moved on']);
  timers.advance(RENEW);
  await last().answer(null);
  t.equal(events.length, 2, 'lost once');
});

void t.test('stop releases a held lease', async (t) => {
  const { calls, events, lease, last } = started();
  await last().answer(2);
  const stopping = lease.stop();
  await new Promise((r) => setImmediate(r));
  t.match(last(), { name: 'releaseLease', input: { name: 'rules', holder: 'me' } });
  await last().answer(null);
  await stopping;
  t.same(events, ['gain 2', 'lose: shutting down']);
  t.equal(calls.filter((c) => c.name === 'takeLease').length, 1, 'no renewal after stop');
});
