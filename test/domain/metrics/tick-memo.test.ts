import t from 'tap';
import type { MetricRef, WindowedMetrics } from '../../../src/domain/metrics/metric-names.ts';
import { memoForTick } from '../../../src/domain/metrics/tick-memo.ts';

t.test('each (metric, window) is computed once per tick, current and previous apart', async (t) => {
  const calls: string[] = [];
  const live: WindowedMetrics = {
    value: (ref, w) => {
      calls.push(`v:${ref.kind === 'scalar' ? ref.name : ref.key}:${w}`);
      return w * 10;
    },
    previousValue: (ref, w) => {
      calls.push(`p:${ref.kind === 'scalar' ? ref.name : ref.key}:${w}`);
      return w;
    },
    hasKey: () => true,
  };
  const memo = memoForTick(live);
  const rate: MetricRef = { kind: 'scalar', name: 'errorRate' };
  const byType: MetricRef = { kind: 'indexed', map: 'eventsByType', key: 'errorRate' };
  t.equal(memo.value(rate, 5), 50);
  t.equal(memo.value(rate, 5), 50);
  t.equal(memo.value(rate, 1), 10);
  t.equal(memo.previousValue(rate, 5), 5);
  t.equal(memo.value(byType, 5), 50, 'an indexed key named like a scalar is its own entry');
  t.same(calls, ['v:errorRate:5', 'v:errorRate:1', 'p:errorRate:5', 'v:errorRate:5']);
});
