import t from 'tap';
import {
  decodeBatch,
  decodeBatchWithIds,
  encodeBatch,
  idsPayloadHead,
  withIds,
} from '../../src/nats/batch-payload.ts';
import type { DetailedMetricEvent, MetricEvent } from '../../src/domain/event.ts';

const metric = (i: number): MetricEvent => ({
  eventType: `type.${i % 3}`,
  source: `source-${i % 2}`,
  userId: i % 4 === 0 ? null : `user-${i}`,
  severity: (['INFO', 'WARNING', 'ERROR', 'CRITICAL'] as const)[i % 4] ?? 'INFO',
  receivedAt: 1_764_000_000_000 + i * 7,
  latencyMs: i % 13,
});

t.test('a batch survives the round trip', async (t) => {
  const events = Array.from({ length: 50 }, (_, i) => metric(i));
  t.same(decodeBatch(encodeBatch(events)), events);
  t.same(decodeBatch(encodeBatch([])), []);
  t.same(decodeBatch(new Uint8Array(0)), [], 'an empty payload: a batch that stored nothing');
});

t.test('with PATTERN detail, and deflated when large', async (t) => {
  const events: DetailedMetricEvent[] = Array.from({ length: 5_000 }, (_, i) => ({
    ...metric(i),
    id: i + 1,
    sessionId: i % 2 === 0 ? null : `s-${i}`,
    tags: { region: `r${i % 3}` },
    metadata: { order: i, note: 'x'.repeat(40) },
  }));
  const payload = encodeBatch(events);
  t.equal(payload[0], 2, 'deflated');
  t.ok(payload.length < 1024 * 1024, 'under NATS max_payload');
  t.same(decodeBatch(payload), events);
});

t.test('with the stored ids (format 3), which older payloads lack', async (t) => {
  const events = Array.from({ length: 20 }, (_, i) => metric(i));
  const ids = events.map((_, i) => 2 ** 40 + i * 3);
  const payload = withIds(idsPayloadHead(encodeBatch(events)), ids);
  t.equal(payload[0], 3);
  t.same(decodeBatchWithIds(payload), { events, ids });
  t.same(decodeBatch(payload), events, 'read by events alone too');
  t.same(decodeBatchWithIds(encodeBatch(events)), { events, ids: null }, 'format 1: no ids');
  t.throws(
    () => decodeBatchWithIds(withIds(idsPayloadHead(encodeBatch(events)), ids.slice(1))),
    /different number of ids/,
    'ids that do not match the events are refused',
  );
});

t.test('a payload that is not one is refused, not half-read', async (t) => {
  t.throws(() => decodeBatch(Uint8Array.of(9, 1, 2)), /unknown batch payload format/);
  const broken = Buffer.concat([
    Buffer.of(1),
    Buffer.from(
      JSON.stringify({
        types: [],
        sources: [],
        type: [0],
        source: [0],
        user: [null],
        severity: [0],
        received: [0],
        latency: [0],
      }),
    ),
  ]);
  t.throws(() => decodeBatch(broken), /outside its columns/);
});
