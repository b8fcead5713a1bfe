// Overload with the smallest queue (INGEST_QUEUE_MAX=10000): far more events in flight than the
// queue holds. The excess is shed at once with 503 OVERLOADED and Retry-After, nothing of a 503 is
// stored, every 202 is, and the service accepts again as soon as the queue drains.
import t from 'tap';
import { runDatabase } from '../support/run-databases.ts';
import {
  brokenPromises,
  checkStored,
  eventBody,
  type Outcome,
} from '../support/reliability/ingest-load.ts';
import { freePort } from '../support/free-port.ts';
import { spawnVigil, stopServer } from '../support/service-process.ts';
import { keyHeaders } from '../support/keys.ts';

const REQUESTS = 80;
const PER_REQUEST = 1000;

interface Answer {
  readonly status: number;
  readonly retryAfter: string | null;
  readonly body: { code?: string; results?: { eventId?: string }[] };
  readonly ms: number;
}

void t.test('80 batches of 1,000 events at once against a 10,000-event queue', async (t) => {
  const db = await runDatabase();
  t.teardown(() => db.cleanup());
  const proc = await spawnVigil({
    port: await freePort(),
    env: { ...db.env, INGEST_QUEUE_MAX: '10000', LOG_LEVEL: 'warn' },
    name: 'vigil(overload)',
  });
  t.teardown(async () => {
    if (proc.exit() === null) await stopServer(proc);
  });
  const tag = `overload-${process.pid}-${Date.now()}`;
  const rssBefore = proc.rssKiB() ?? 0;
  const answers = await Promise.all(
    Array.from({ length: REQUESTS }, async (_, r): Promise<Answer> => {
      const events = Array.from({ length: PER_REQUEST }, (_, i) =>
        eventBody(tag, r * PER_REQUEST + i),
      );
      const t0 = performance.now();
      const res = await fetch(`${proc.url}/api/v1/events/batch`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...keyHeaders() },
        body: JSON.stringify(events),
      });
      return {
        status: res.status,
        retryAfter: res.headers.get('retry-after'),
        body: (await res.json()) as Answer['body'],
        ms: performance.now() - t0,
      };
    }),
  );
  const rssAfter = proc.rssKiB() ?? 0;
  const accepted = answers.filter((a) => a.status === 202);
  const shed = answers.filter((a) => a.status === 503);
  t.comment(
    `accepted ${accepted.length}, shed ${shed.length} of ${REQUESTS} batches; slowest 202 ` +
      `${Math.round(Math.max(0, ...accepted.map((a) => a.ms)))} ms, slowest 503 ` +
      `${Math.round(Math.max(0, ...shed.map((a) => a.ms)))} ms; RSS ${rssBefore >> 10} -> ${rssAfter >> 10} MiB`,
  );
  t.equal(accepted.length + shed.length, REQUESTS, 'every batch answered 202 or 503');
  t.ok(accepted.length >= 10, 'a full queue of batches accepted');
  t.ok(shed.length > 0, 'the excess shed');
  t.ok(
    shed.every((a) => a.body.code === 'OVERLOADED' && a.retryAfter !== null),
    '503 OVERLOADED with Retry-After',
  );

  const outcomes = new Map<number, Outcome>();
  answers.forEach((a, r) => {
    for (let i = 0; i < PER_REQUEST; i++) {
      const eventId = a.body.results?.[i]?.eventId;
      outcomes.set(
        r * PER_REQUEST + i,
        a.status === 202 && eventId !== undefined
          ? { kind: 'acked', id: Number(eventId.slice(4)) }
          : { kind: 'answered', status: a.status, code: a.body.code ?? '' },
      );
    }
  });
  const check = await checkStored(db.sql, tag, { outcomes });
  t.same(brokenPromises(check), [], 'every 202 stored once, nothing of a 503');
  t.equal(check.rows, accepted.length * PER_REQUEST, 'exactly the accepted events stored');

  const again = await fetch(`${proc.url}/api/v1/events`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...keyHeaders() },
    body: JSON.stringify(eventBody(tag, 1_000_000)),
  });
  t.equal(again.status, 202, 'accepting again once the queue drained');
  await again.arrayBuffer();
  t.equal((await stopServer(proc)).code, 0, 'exit 0 after SIGTERM');
});
