// The database goes away and comes back (DESIGN 2, 8): health answers 503 DOWN with a reason,
// ingestion and reads answer 500 "Failed to process event: <reason>" without leaking details,
// and once PostgreSQL is back the same service is UP and stores events again, unrestarted.
// This file runs its own embedded PostgreSQL so that it can stop it.
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import t from 'tap';
import { startEmbeddedPostgres, type EmbeddedDatabase } from '../../src/db/embedded-postgres.ts';
import { createLogger } from '../../src/log.ts';
import { HealthSchema } from '../../src/schemas/event-responses.ts';
import { expectError, idOf, readAck, readAs, stored, storedEvent } from '../support/events.ts';
import { freePort } from '../support/free-port.ts';
import { startTestService } from '../support/service.ts';

const log = createLogger('fatal', 'health-down');
const dir = await mkdtemp(path.join(tmpdir(), 'vigil-health-down-'));
await chmod(dir, 0o755); // the server runs as the postgres user
const port = await freePort();
let pg: EmbeddedDatabase | null = await startEmbeddedPostgres(dir, port, log);
// Teardowns run last-registered first: the service stops, its schema is dropped, then this.
t.teardown(async () => {
  await pg?.stop();
  await rm(dir, { recursive: true, force: true });
});
// Each call probes (no reuse of the last answer): the outage must show at the very next call.
const svc = await startTestService(
  t,
  { DB_QUERY_TIMEOUT_MS: '2000', HEALTH_CACHE_MS: '0' },
  { databaseUrl: pg.url },
);

const ingest = (eventType: string): Promise<Response> =>
  svc.request('/api/v1/events', { json: { eventType, source: 'health-down' } });

const noLeak = (t: Tap, message: string): void => {
  t.notMatch(message, /select|insert|\$[0-9]|events_id_seq|\.ts:|\n\s+at /i, 'no SQL or stack');
};
type Tap = { notMatch(found: string, pattern: RegExp, message: string): boolean };

void t.test('UP and storing while the database runs', async (t) => {
  const health = await svc.request('/api/v1/events/health');
  t.equal(health.status, 200);
  t.match(await readAs(HealthSchema, health), { status: 'UP' });
  const res = await ingest('before.outage');
  t.equal(res.status, 202);
  t.ok(await storedEvent(svc.db, idOf((await readAck(res)).eventId)));
});

void t.test('database down: health 503 DOWN with a reason, API 500', async (t) => {
  await pg?.stop();
  pg = null;
  try {
    const health = await svc.request('/api/v1/events/health');
    t.equal(health.status, 503);
    const body = await readAs(HealthSchema, health);
    t.equal(body.status, 'DOWN');
    t.match(body.timestamp, /^[0-9]+$/);
    t.match(body.reason, /\S/, `reason: ${body.reason}`);
    noLeak(t, body.reason ?? '');

    const requests: [string, () => Promise<Response>][] = [
      ['POST /events', () => ingest('during.outage')],
      [
        'POST /events/batch',
        () =>
          svc.request('/api/v1/events/batch', {
            json: [{ eventType: 'during.outage', source: 's' }],
          }),
      ],
      ['GET /events', () => svc.request('/api/v1/events')],
      ['GET /events/type', () => svc.request('/api/v1/events/type/before.outage')],
      ['GET /events/{eventId}', () => svc.request('/api/v1/events/evt_1')],
    ];
    for (const [name, send] of requests) {
      const error = await expectError(t, await send(), 500, 'INTERNAL');
      t.match(error.message, /^Failed to process event: \S/, `${name}: ${error.message}`);
      noLeak(t, error.message);
    }
    // A longer outage: many failed connection attempts must not push the next attempt far out
    // (postgres.js's default backoff reaches 20 s, beyond the 2 s query timeout).
    for (let i = 0; i < 10; i++) {
      await expectError(t, await ingest('during.outage'), 500, 'INTERNAL');
      const health = await svc.request('/api/v1/events/health');
      t.equal(health.status, 503);
      await health.arrayBuffer();
    }
  } finally {
    pg = await startEmbeddedPostgres(dir, port, log);
  }
});

void t.test('database back: UP and storing again without a restart', async (t) => {
  const health = await svc.request('/api/v1/events/health');
  t.equal(health.status, 200);
  t.match(await readAs(HealthSchema, health), { status: 'UP' });
  const res = await ingest('after.outage');
  t.equal(res.status, 202);
  const ack = await readAck(res);
  t.match(await storedEvent(svc.db, idOf(ack.eventId)), { eventType: 'after.outage' });
  t.same(
    await stored(svc.db),
    { rows: 2, counted: 2 },
    'nothing of the failed requests was stored',
  );
  const list = await svc.request('/api/v1/events');
  t.equal(list.status, 200);
});
