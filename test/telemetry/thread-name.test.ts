// The service's worker threads name themselves, so /proc (top -H, the bench's CPU breakdown) can
// tell the storage workers and the metrics actor from V8's and libuv's threads.
import { readdirSync, readFileSync } from 'node:fs';
import t from 'tap';
import { THREAD_NAMES } from '../../src/telemetry/thread-name.ts';
import { waitUntil } from '../service/alerts-helpers.ts';
import { startTestService } from '../support/service.ts';

const threadNames = (): string[] =>
  readdirSync('/proc/self/task').flatMap((tid) => {
    try {
      return [readFileSync(`/proc/self/task/${tid}/comm`, 'utf8').trim()];
    } catch {
      return []; // the thread ended while we looked
    }
  });

t.test('two storage workers and one metrics actor, each named', async (t) => {
  await startTestService(t, { STORAGE_WORKERS: '2' });
  // A worker names itself as its first step; the service may be listening before the second
  // storage worker got that far.
  const names = await waitUntil(
    () => threadNames(),
    (now) => now.filter((n) => n === THREAD_NAMES.storage).length >= 2,
    'both storage workers to name themselves',
  );
  t.equal(names.filter((n) => n === THREAD_NAMES.storage).length, 2, 'storage workers');
  t.equal(names.filter((n) => n === THREAD_NAMES.metrics).length, 1, 'the metrics actor');
});
