// A silence's state at an instant (issue 18): pending before its start, active from its start up
// to its end, expired from its end on, the same bounds the alert SQL matches incidents with
// (starts_at <= firedAt < ends_at).
import t from 'tap';
import { silenceState, silenceView } from '../../../src/domain/silences/silence.ts';

const silence = { startsAt: '2026-11-25T10:00:00.000Z', endsAt: '2026-11-25T12:00:00.000Z' };
const at = (text: string): number => Date.parse(text);

t.test('pending, active, expired by the instant given', async (t) => {
  const cases: [string, string][] = [
    ['2026-11-25T09:59:59.999Z', 'pending'],
    ['2026-11-25T10:00:00.000Z', 'active'],
    ['2026-11-25T11:00:00.000Z', 'active'],
    ['2026-11-25T11:59:59.999Z', 'active'],
    ['2026-11-25T12:00:00.000Z', 'expired'],
    ['2027-01-01T00:00:00.000Z', 'expired'],
  ];
  for (const [now, state] of cases) t.equal(silenceState(silence, at(now)), state, now);
});

t.test('the view is the record and its state', async (t) => {
  const record = {
    ...silence,
    id: 1,
    ruleId: null,
    severity: 'HIGH' as const,
    comment: 'c',
    createdBy: 'ann',
    createdAt: '2026-11-25T09:00:00.000Z',
  };
  t.same(silenceView(record, at('2026-11-25T09:00:00.000Z')), { ...record, state: 'pending' });
});
