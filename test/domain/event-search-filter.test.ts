// The live tail's in-memory test of an event against a filter (src/domain/event-search/filter.ts),
// parsed from the query syntax (src/schemas/event-filter.ts): each filter keeps and drops the
// events the SQL of a search does (test/service/events-search.test.ts checks the SQL side).
import t from 'tap';
import type { EventRecord } from '../../src/domain/event.ts';
import { decodeCursor, encodeCursor } from '../../src/domain/event-search/cursor.ts';
import { matches, type EventFilter } from '../../src/domain/event-search/filter.ts';
import { isEventFilter, parseEventFilter } from '../../src/schemas/event-filter.ts';

const event: EventRecord = {
  id: 7,
  eventId: 'evt_7',
  eventType: 'checkout.paid',
  timestamp: '2026-11-28T10:00:00.000Z',
  source: 'shop',
  userId: 'u1',
  sessionId: null,
  severity: 'WARNING',
  tags: { region: 'eu' },
  metadata: { order: { total: 5, code: '12', paid: true }, note: 'Big Order' },
  receivedAt: '2026-11-28T10:00:01.000Z',
  processingLatencyMs: 3,
  error: false,
};

const filter = (query: string, strict = false): EventFilter => {
  const parsed = parseEventFilter(new URLSearchParams(query), { strict });
  if (!isEventFilter(parsed)) throw new Error(`${query}: ${JSON.stringify(parsed)}`);
  return parsed;
};

void t.test('each filter keeps what matches and drops what does not', async (t) => {
  const keeps = [
    '',
    'from=2026-11-28T10:00:00Z&to=2026-11-28T10:00:00.001Z',
    `from=${Date.parse('2026-11-28T10:00:01Z')}&timeField=receivedAt`,
    'eventType=checkout.paid',
    'eventType=checkout.*',
    'eventType=check*',
    'source=shop',
    'severity=WARN',
    'severity=ERROR,WARNING',
    'severity=info&severity=warning',
    'userId=u1',
    'tag.region=eu',
    'metadata.order.total=5',
    'metadata.order.code=12',
    'metadata.order.paid=true',
    'q=PAID',
    'q=sho',
    'q=big order&qField=metadata',
    'q=u1&qField=userId',
    'q=region&qField=tags',
  ];
  for (const query of keeps) t.ok(matches(filter(query), event), `${query || '(none)'} keeps it`);
  const drops = [
    'to=2026-11-28T10:00:00Z',
    'from=2026-11-28T10:00:00.001Z',
    'eventType=checkout',
    'eventType=search.*',
    'source=sho',
    'severity=ERROR',
    'userId=u2',
    'sessionId=s1',
    'tag.region=us',
    'tag.tier=eu',
    'metadata.order.total=6',
    'metadata.order.total=5.5',
    'metadata.order.paid=false',
    'metadata.order=5',
    'metadata.note.x=1',
    'q=refund',
    'q=shop&qField=eventType',
  ];
  for (const query of drops) t.notOk(matches(filter(query), event), `${query} drops it`);
});

void t.test('a date-time without a zone is UTC; parameters that are not filters', async (t) => {
  t.equal(filter('from=2026-11-28T10:00').from, Date.parse('2026-11-28T10:00:00Z'));
  t.equal(filter('from=2026-11-28').from, Date.parse('2026-11-28T00:00:00Z'));
  t.equal(filter('page=3&size=5').source, null, 'ignored by a search');
  t.same(parseEventFilter(new URLSearchParams('page=3'), { strict: true }), {
    page: 'page is not a filter',
  });
});

void t.test('cursors round-trip; anything else is refused', async (t) => {
  t.same(decodeCursor(encodeCursor({ ts: 1_795_132_836_250, id: 38 })), {
    ts: 1_795_132_836_250,
    id: 38,
  });
  t.same(decodeCursor(encodeCursor({ ts: -5, id: 1 })), { ts: -5, id: 1 });
  for (const text of ['', 'x', '!!!', Buffer.from('1:2:3').toString('base64url')]) {
    t.equal(decodeCursor(text), null, `'${text}'`);
  }
});
