// The rule change poll (docs/cluster-leader.md): every rule is reloaded when the database's rule
// change counter moved (and at the first read: a change may have landed since start-up's load),
// never when it did not; a failed read changes nothing.
import t from 'tap';
import { watchRuleChanges } from '../../src/cluster/rule-change-watch.ts';
import type { StorageOutput } from '../../src/protocol/storage/index.ts';
import { captureLog } from '../support/captured-log.ts';
import { FakeStoragePool } from '../support/fake-storage-pool.ts';

void t.test('reloads when the counter moved, not otherwise', async (t) => {
  const answers: StorageOutput<'ruleChanges'>[] = [
    { ok: true, value: 5 },
    { ok: true, value: 5 },
    { ok: false, code: 'DB_FAILURE', message: 'down' },
    { ok: true, value: 6 },
    { ok: true, value: 6 },
  ];
  const done = { ok: false, code: 'DB_FAILURE', message: 'no more answers' } as const;
  const pool = new FakeStoragePool({ ruleChanges: () => answers.shift() ?? done });
  let reloads = 0;
  let cleared = false;
  const watch = watchRuleChanges(
    pool,
    { changed: () => Promise.resolve(void reloads++) },
    captureLog('test').log,
    { setInterval: () => 'handle', clearInterval: () => (cleared = true) },
  );
  const seen: number[] = [];
  for (let i = 0; i < 5; i++) {
    await watch.poll();
    seen.push(reloads);
  }
  t.same(seen, [1, 1, 1, 2, 2], 'first read, then only when it moved');
  watch.stop();
  t.ok(cleared, 'stop clears the timer');
});
