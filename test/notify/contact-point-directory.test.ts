// Issue 29: the contact-point reload runs on a timer; whatever the pool answers (a sparse array, as
// postgres.js 3.4.9 can after a mid-stream failure; a failure; a throw, as a full queue does), the
// reload logs it and keeps the set in force, and the timer's run never rejects (a rejection there
// would end the process). The pool is a stand-in answering what the real one did in the incident.
import t from 'tap';
import type { ContactPoint } from '../../src/domain/contact-points/contact-point.ts';
import { AppError } from '../../src/errors.ts';
import { createContactPointDirectory } from '../../src/notify/contact-point-directory.ts';
import type { StorageOutput } from '../../src/protocol/storage/index.ts';
import { captureLog } from '../support/captured-log.ts';
import { FakeStoragePool } from '../support/fake-storage-pool.ts';

const point: ContactPoint = {
  id: 1,
  name: 'ops',
  type: 'webhook',
  isDefault: true,
  settings: { url: 'https://hooks.example.com/x' },
  createdAt: '2026-11-28T00:00:00.000Z',
  updatedAt: '2026-11-28T00:00:00.000Z',
};
const sparse: ContactPoint[] = [];
sparse[2] = point;

type Answer = () => Promise<StorageOutput<'listContactPoints'>>;

t.test(
  'a sparse, failed or thrown answer keeps the set in force; the timer never rejects',
  async (t) => {
    let answer: Answer = () => Promise.resolve({ ok: true, value: [point] });
    const pool = new FakeStoragePool({ listContactPoints: () => answer() });
    let tick = (): void => {};
    const { log, lines } = captureLog('test');
    const directory = createContactPointDirectory(pool, log, {
      setInterval: (callback) => {
        tick = callback;
        return 0;
      },
      clearInterval: () => {},
    });
    t.equal(await directory.reload(), null, 'loaded');
    const ops = { type: 'webhook' as const, name: 'ops' };
    t.equal(directory.resolve(ops)?.id, 1);

    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown): void => void unhandled.push(reason);
    process.on('unhandledRejection', onUnhandled);
    t.teardown(() => process.off('unhandledRejection', onUnhandled));

    const cases: [string, Answer][] = [
      ['sparse', () => Promise.resolve({ ok: true, value: sparse })],
      [
        'failed',
        () => Promise.resolve({ ok: false, code: 'DB_FAILURE', message: 'database timeout' }),
      ],
      ['thrown', () => Promise.reject(new AppError('OVERLOADED', 'Storage queue is full'))],
    ];
    for (const [name, next] of cases) {
      answer = next;
      t.type(await directory.reload(), 'string', `${name}: reload answers why`);
      tick(); // as the timer does: nothing awaits it
      await new Promise((resolve) => setImmediate(resolve));
      t.equal(directory.resolve(ops)?.id, 1, `${name}: the set in force stays`);
    }
    t.same(unhandled, [], 'no rejection escaped the timer');
    t.ok(
      lines.some((l) => /could not load the contact points/.test(l) && /malformed/.test(l)),
      'the sparse answer is logged as malformed',
    );
  },
);
