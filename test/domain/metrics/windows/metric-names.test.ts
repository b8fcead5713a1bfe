import t from 'tap';
import {
  formatMetricName,
  parseMetricName,
} from '../../../../src/domain/metrics/windows/metric-names.ts';

t.test('parses scalar and indexed metric names and formats them back', async (t) => {
  t.same(parseMetricName('errorRate'), { kind: 'scalar', name: 'errorRate' });
  const indexed = parseMetricName('eventsByType[checkout.paid]');
  t.same(indexed, { kind: 'indexed', map: 'eventsByType', key: 'checkout.paid' });
  t.equal(formatMetricName(indexed!), 'eventsByType[checkout.paid]');
  t.equal(parseMetricName('errRate'), null);
  t.equal(parseMetricName('eventsByType[]'), null);
});
