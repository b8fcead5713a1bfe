// What a rule set names, for the metrics to count past their caps (issue 29): every place a rule
// names an event type or a source.
import t from 'tap';
import { watchedKeysOf } from '../../../src/domain/rules/watched-keys.ts';
import { activeRule, leaf, node } from './engine-fixtures.ts';

const sorted = (set: ReadonlySet<string>): string[] => [...set].sort();

void t.test('THRESHOLD / RATE_CHANGE leaves, condition trees, silence metrics', (t) => {
  const keys = watchedKeysOf([
    activeRule(
      1,
      node(
        'AND',
        leaf('eventsByType[payment.failed]', 'GREATER_THAN', 0),
        node('NOT', leaf('eventsBySource[billing]', 'LESS_THAN', 1)),
        leaf('errorRate', 'GREATER_THAN', 5),
        leaf('eventsBySeverity[ERROR]', 'GREATER_THAN', 5),
      ),
    ),
    activeRule(2, leaf('eventsByType[checkout]', 'GREATER_THAN', 50), { ruleType: 'RATE_CHANGE' }),
    activeRule(3, leaf('secondsSinceLastEventBySource[cron]', 'GREATER_THAN', 60)),
    activeRule(4, leaf('secondsSinceLastEventByType[heartbeat]', 'GREATER_THAN', 60)),
  ]);
  t.same(sorted(keys.types), ['checkout', 'heartbeat', 'payment.failed']);
  t.same(sorted(keys.sources), ['billing', 'cron']);
  t.end();
});

void t.test('ANOMALY filters and PATTERN steps, where and absent', (t) => {
  const base = { metric: 'eventRate', bucketMinutes: 1, algorithm: 'basic', direction: 'below' };
  const pattern = {
    partitionBy: 'userId',
    withinMinutes: 5,
    steps: [
      {
        eventType: 'login',
        where: [
          { field: 'source', operator: 'EQUALS', value: 'auth' },
          { field: 'source', operator: 'NOT_EQUALS', value: 'not-this' },
        ],
      },
      { eventType: 'transfer', where: [] },
    ],
    absent: { eventType: 'logout', where: [], withinMinutes: 5 },
  };
  const keys = watchedKeysOf([
    activeRule(1, { ...base, source: 'shop' }, { ruleType: 'ANOMALY' }),
    activeRule(2, { ...base, eventType: 'checkout' }, { ruleType: 'ANOMALY' }),
    activeRule(3, pattern, { ruleType: 'PATTERN' }),
  ]);
  t.same(sorted(keys.types), ['checkout', 'login', 'logout', 'transfer']);
  t.same(sorted(keys.sources), ['auth', 'shop']);
  t.end();
});
