// Delivery results written in batches: what is held goes out when the wait set by the first one
// ends, or at once when the batch is full; flush writes what is held and waits for every write
// (shutdown loses nothing). Timers are fired by hand.
import t from 'tap';
import { createDeliveryRecorder } from '../../src/alerting/delivery-recorder.ts';
import type { AlertDeliveries } from '../../src/domain/rules/alerts/alert.ts';

function setup(maxResults = 3) {
  const writes: number[][] = [];
  const waits: { fire: () => void; ms: number; cleared: boolean }[] = [];
  let finishWrite = (): void => {};
  const recorder = createDeliveryRecorder({
    write: (results) => {
      writes.push(results.map((r) => r.id));
      return new Promise<void>((resolve) => (finishWrite = resolve));
    },
    maxWaitMs: 50,
    maxResults,
    timers: {
      setTimeout: (callback, ms, arg) => {
        const wait = { fire: () => callback(arg), ms, cleared: false };
        waits.push(wait);
        return wait;
      },
      clearTimeout: (handle) => {
        (handle as { cleared: boolean }).cleared = true;
      },
    },
  });
  const result = (id: number): AlertDeliveries => ({ transition: 'FIRING', id, deliveries: [] });
  return { recorder, writes, waits, result, finish: () => finishWrite() };
}

void t.test('held until the wait ends, then one write', (t) => {
  const { recorder, writes, waits, result } = setup();
  recorder.add(result(1));
  recorder.add(result(2));
  t.same(writes, [], 'nothing written yet');
  t.equal(waits.length, 1, 'one wait, set by the first result');
  t.equal(waits[0]?.ms, 50);
  t.equal(recorder.held(), 2);
  waits[0]?.fire();
  t.same(writes, [[1, 2]], 'both in one write');
  t.equal(recorder.held(), 0);
  recorder.add(result(3));
  t.equal(waits.length, 2, 'the next result starts a new wait');
  t.end();
});

void t.test('a full batch is written at once', (t) => {
  const { recorder, writes, waits, result } = setup(3);
  for (const id of [1, 2, 3, 4]) recorder.add(result(id));
  t.same(writes, [[1, 2, 3]], 'the first three at once');
  t.equal(waits[0]?.cleared, true, 'their wait is cancelled');
  t.equal(recorder.held(), 1);
  t.equal(waits.length, 2, 'the fourth waits on its own');
  t.end();
});

void t.test('flush writes what is held and waits for the writes to end', async (t) => {
  const { recorder, writes, waits, result, finish } = setup();
  recorder.add(result(7));
  let flushed = false;
  const flushing = recorder.flush().then(() => (flushed = true));
  t.same(writes, [[7]], 'written at once');
  t.equal(waits[0]?.cleared, true);
  await Promise.resolve();
  t.notOk(flushed, 'not before the write ended');
  finish();
  await flushing;
  t.ok(flushed);
  await recorder.flush();
  t.same(writes, [[7]], 'nothing held: nothing written');
});
