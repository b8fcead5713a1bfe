// Delivery results counted by channel type and outcome: a fixed set of series whatever the
// contact points are named; a dropped delivery is told from a failed one by its reason.
import t from 'tap';
import { NotificationCounts } from '../../src/notify/notification-counts.ts';
import { DROPPED_REASON } from '../../src/notify/deliver.ts';

const at = '2026-11-27T00:00:00.000Z';

void t.test('by channel type and outcome', (t) => {
  const counts = new NotificationCounts();
  counts.add([
    { channel: 'slack', ok: true, attempts: 1, at },
    { channel: 'slack:oncall', ok: true, attempts: 2, at },
    { channel: 'webhook:ops', ok: false, attempts: 3, error: 'HTTP 500', at },
    { channel: 'email', ok: false, attempts: 0, error: DROPPED_REASON, at },
    { channel: 'pager', ok: false, attempts: 0, error: "unknown channel 'pager'", at },
  ]);
  const read = counts.read();
  t.equal(read.length, 12, '4 channels x 3 outcomes, zeros included');
  const nonZero = read.filter((c) => c.count > 0);
  t.same(nonZero, [
    { channel: 'email', outcome: 'dropped', count: 1 },
    { channel: 'slack', outcome: 'delivered', count: 2 },
    { channel: 'webhook', outcome: 'failed', count: 1 },
    { channel: 'invalid', outcome: 'failed', count: 1 },
  ]);
  t.end();
});
