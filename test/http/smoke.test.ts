import t from 'tap';
import { startTestService } from '../support/service.ts';

t.test('an accepted event is in PostgreSQL when the 202 arrives', async (t) => {
  const { request, db } = await startTestService(t);
  const res = await request('/api/v1/events', { json: { eventType: 'a.b', source: 'test' } });
  t.equal(res.status, 202);
  const ack = (await res.json()) as { eventId: string };
  const rows = await db.sql`SELECT id, event_type FROM events`;
  t.same(rows.map((r) => `evt_${r.id}`), [ack.eventId]);
});
