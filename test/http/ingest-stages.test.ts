// GET and DELETE /api/v1/ingest-stages: with INGEST_STAGE_TIMINGS every single event answered 202
// counts once in each stage, refused ones and batches not at all; admin keys only; off (the
// default) both answer 404 naming the setting.
import t from 'tap';
import { expectError, idOf, readAck, storedEvent } from '../support/events.ts';
import { keyHeaders } from '../support/keys.ts';
import { startTestService } from '../support/service.ts';

const STAGES = ['queue', 'linger', 'handoff', 'statement', 'commit', 'reply'];

interface StageRow {
  stage: string;
  count: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
}
interface StagesBody {
  requests: number;
  stages: StageRow[];
}

const event = (i: number) => ({ eventType: 'stage.test', source: 'stage-test', userId: `u-${i}` });

t.test('off by default: both routes answer 404 naming the setting', async (t) => {
  const svc = await startTestService(t);
  const read = await expectError(t, await svc.request('/api/v1/ingest-stages'), 404, 'NOT_FOUND');
  t.match(read.message, /INGEST_STAGE_TIMINGS/);
  const reset = svc.request('/api/v1/ingest-stages', { method: 'DELETE' });
  await expectError(t, await reset, 404, 'NOT_FOUND');
  // Ingest works as ever.
  const res = await svc.request('/api/v1/events', { json: event(0) });
  t.equal(res.status, 202);
});

t.test('on: each stored single event counts once in every stage', async (t) => {
  const svc = await startTestService(t, { INGEST_STAGE_TIMINGS: 'true' });
  const stages = async (): Promise<StagesBody> => {
    const res = await svc.request('/api/v1/ingest-stages');
    t.equal(res.status, 200);
    return (await res.json()) as StagesBody;
  };
  t.equal((await svc.request('/api/v1/ingest-stages', { method: 'DELETE' })).status, 204);
  const empty = await stages();
  t.equal(empty.requests, 0);
  t.same(
    empty.stages.map((s) => [s.stage, s.count]),
    STAGES.map((stage) => [stage, 0]),
  );

  // Sent together, so that some share a batch; each must be stored when its 202 arrives.
  const answers = await Promise.all(
    [1, 2, 3, 4, 5].map((i) => svc.request('/api/v1/events', { json: event(i) })),
  );
  for (const res of answers) {
    t.equal(res.status, 202);
    const ack = await readAck(res);
    t.not(await storedEvent(svc.db, idOf(ack.eventId)), null, `${ack.eventId} is stored`);
  }
  // Neither a refused event nor a batch is a single event's path.
  const refused = await svc.request('/api/v1/events', { json: { source: 'no-type' } });
  t.equal(refused.status, 400);
  await refused.text();
  const batch = await svc.request('/api/v1/events/batch', { json: [event(6), event(7)] });
  t.equal(batch.status, 202);
  await batch.text();

  const timed = await stages();
  t.equal(timed.requests, 5);
  t.same(
    timed.stages.map((s) => s.stage),
    STAGES,
    'the stages in order',
  );
  for (const s of timed.stages) {
    t.equal(s.count, 5, `${s.stage}: one per stored event`);
    t.ok(0 <= s.p50Ms && s.p50Ms <= s.p99Ms && s.p99Ms <= s.maxMs, `${s.stage}: p50 <= p99 <= max`);
  }
  // A round trip to PostgreSQL takes time: these cannot be zero.
  for (const name of ['statement', 'commit']) {
    t.ok((timed.stages.find((s) => s.stage === name)?.maxMs ?? 0) > 0, `${name} took time`);
  }

  t.equal((await svc.request('/api/v1/ingest-stages', { method: 'DELETE' })).status, 204);
  const again = await stages();
  t.equal(again.requests, 0, 'emptied');
  t.ok(
    again.stages.every((s) => s.count === 0),
    'every stage emptied',
  );
});

t.test('on: only admin keys read or empty the timings', async (t) => {
  const svc = await startTestService(t, { INGEST_STAGE_TIMINGS: 'true' });
  const made = await svc.request('/api/v1/keys', { json: { name: 'producer', scope: 'ingest' } });
  t.equal(made.status, 201);
  const { key } = (await made.json()) as { key: string };
  const headers = keyHeaders(key);
  await expectError(t, await svc.request('/api/v1/ingest-stages', { headers }), 403, 'FORBIDDEN');
  const reset = svc.request('/api/v1/ingest-stages', { method: 'DELETE', headers });
  await expectError(t, await reset, 403, 'FORBIDDEN');
});
