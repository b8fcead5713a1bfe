// CloudEvents 1.0 ingest (issue 32) on the real service: the `cloudevents` SDK's own HTTP emitter
// in binary and structured modes, a batch serialised by the SDK, each event read back by its
// eventId with the mapping applied; errors name the attribute; a repeated id is deduplicated.
import t from 'tap';
import { CloudEvent, emitterFor, httpTransport, Mode } from 'cloudevents';
import { expectError, readAs, readBatch, readEvent, type Ack } from '../support/events.ts';
import { AckSchema } from '../../src/schemas/event-responses.ts';
import { keyHeaders } from '../support/keys.ts';
import { startTestService } from '../support/service.ts';

const svc = await startTestService(t);
const url = `${svc.base}/api/v1/events`;
const auth = { headers: keyHeaders() };

/** The acknowledgement the emitter's transport got back (it resolves the body, not the status). */
const ackOf = (response: unknown): Ack => JSON.parse((response as { body: string }).body) as Ack;

const readBack = async (eventId: string) =>
  readEvent(await svc.request(`/api/v1/events/${eventId}`));

void t.test(
  'binary mode (the SDK default): attributes as ce-* headers, data as the body',
  async (t) => {
    const emit = emitterFor(httpTransport(url));
    const event = new CloudEvent({
      type: 'com.example.order.placed',
      source: '/shop/checkout',
      subject: 'order-17',
      time: '2026-11-28T08:00:00.250Z',
      region: 'eu',
      data: { orderId: 17, total: 42.5 },
    });
    const ack = ackOf(await emit(event, auth));
    t.equal(ack.status, 'accepted');
    const stored = await readBack(ack.eventId);
    t.equal(stored.eventType, 'com.example.order.placed');
    t.equal(stored.source, '/shop/checkout');
    t.equal(stored.timestamp, '2026-11-28T08:00:00.250Z');
    t.same(stored.tags, { subject: 'order-17', region: 'eu' });
    t.same(stored.metadata, { orderId: 17, total: 42.5 });
    t.equal(stored.severity, 'INFO');
  },
);

void t.test('structured mode: one JSON object with every attribute', async (t) => {
  const emit = emitterFor(httpTransport(url), { mode: Mode.STRUCTURED });
  const event = new CloudEvent({
    type: 'com.example.user.signup',
    source: 'urn:app:accounts',
    plan: 'pro',
    data: 'a plain string',
  });
  const ack = ackOf(await emit(event, auth));
  const stored = await readBack(ack.eventId);
  t.equal(stored.eventType, 'com.example.user.signup');
  t.equal(stored.source, 'urn:app:accounts');
  t.equal(stored.timestamp, new Date(event.time as string).toISOString());
  t.same(stored.tags, { plan: 'pro' });
  t.same(stored.metadata, { data: 'a plain string' }, 'a data that is not an object is kept whole');
});

void t.test('binary data that is not text is kept as base64', async (t) => {
  const emit = emitterFor(httpTransport(url));
  const event = new CloudEvent({
    type: 'com.example.blob',
    source: 'blobs',
    datacontenttype: 'application/octet-stream',
    data: new Uint8Array([0, 1, 2, 255]),
  });
  const stored = await readBack(ackOf(await emit(event, auth)).eventId);
  t.same(stored.metadata, { data_base64: Buffer.from([0, 1, 2, 255]).toString('base64') });
});

void t.test('batch mode: a JSON array of structured events, one result each', async (t) => {
  const events = [
    new CloudEvent({ type: 'com.example.batch', source: 'batcher', data: { n: 1 } }),
    new CloudEvent({ type: 'com.example.batch', source: 'batcher', data: { n: 2 } }),
    { specversion: '1.0', id: 'x-1', source: 'batcher' },
  ];
  for (const path of ['/api/v1/events/batch', '/api/v1/events']) {
    const res = await svc.request(path, {
      method: 'POST',
      headers: { 'content-type': 'application/cloudevents-batch+json' },
      body: JSON.stringify(events),
    });
    t.equal(res.status, 202, path);
    const batch = await readBatch(res);
    t.equal(batch.accepted, 2);
    t.equal(batch.rejected, 1);
    const [first, , third] = batch.results;
    t.same(third, {
      status: 'error',
      index: 2,
      errors: { type: 'type is required: a non-empty string' },
    });
    const stored = await readBack((first as Ack).eventId);
    t.same(stored.metadata, { n: 1 });
  }
});

void t.test(
  'a repeated id from one source is deduplicated; another source may reuse it',
  async (t) => {
    const emit = emitterFor(httpTransport(url));
    const event = new CloudEvent({
      id: 'dup-1',
      type: 'com.example.dup',
      source: 'a',
      data: { v: 1 },
    });
    const first = ackOf(await emit(event, auth));
    const again = ackOf(await emit(event, auth));
    t.same(again, first, 'the first acknowledgement, nothing stored twice');
    const other = ackOf(await emit(event.cloneWith({ source: 'b' }), auth));
    t.not(other.eventId, first.eventId, 'ids are unique per source only');
    const reused = await svc.request('/api/v1/events', {
      method: 'POST',
      headers: { 'content-type': 'application/cloudevents+json' },
      body: JSON.stringify({ ...event.toJSON(), data: { v: 2 } }),
    });
    await expectError(t, reused, 422, 'IDEMPOTENCY_KEY_REUSED', ['id']);
  },
);

void t.test('errors name the CloudEvents attribute', async (t) => {
  const structured = (body: unknown) =>
    svc.request('/api/v1/events', {
      method: 'POST',
      headers: { 'content-type': 'application/cloudevents+json; charset=utf-8' },
      body: JSON.stringify(body),
    });
  const base = { specversion: '1.0', id: 'e-1', source: 's', type: 't' };
  await expectError(
    t,
    await structured({ ...base, specversion: '0.3' }),
    400,
    'VALIDATION_FAILED',
    ['specversion'],
  );
  await expectError(t, await structured({ ...base, time: 'yesterday' }), 400, 'VALIDATION_FAILED', [
    'time',
  ]);
  await expectError(t, await structured({ ...base, Bad_Name: 1 }), 400, 'VALIDATION_FAILED', [
    'Bad_Name',
  ]);
  await expectError(
    t,
    await structured({ ...base, type: 'x'.repeat(300) }),
    400,
    'VALIDATION_FAILED',
    ['type'],
  );
  // Binary mode without its specversion header.
  const binary = await fetch(url, {
    method: 'POST',
    headers: {
      ...keyHeaders(),
      'content-type': 'text/plain',
      'ce-id': '1',
      'ce-source': 's',
      'ce-type': 't',
    },
    body: 'hello',
  });
  await expectError(t, binary, 400, 'VALIDATION_FAILED', ['specversion']);
  const badJson = await fetch(url, {
    method: 'POST',
    headers: {
      ...keyHeaders(),
      'content-type': 'application/json',
      'ce-specversion': '1.0',
      'ce-id': '1',
      'ce-source': 's',
      'ce-type': 't',
    },
    body: '{"unterminated',
  });
  await expectError(t, badJson, 400, 'VALIDATION_FAILED', ['data']);
  const ok = await fetch(url, {
    method: 'POST',
    headers: {
      ...keyHeaders(),
      'content-type': 'text/plain',
      'ce-specversion': '1.0',
      'ce-id': 'txt',
      'ce-source': 's%20p',
      'ce-type': 't',
    },
    body: 'hello',
  });
  const ack = await readAs(AckSchema, ok);
  const stored = await readBack(ack.eventId);
  t.equal(stored.source, 's p', 'header values are percent-decoded');
  t.same(stored.metadata, { data: 'hello' });
});

void t.test('a key limited to some sources may not name another', async (t) => {
  const res = await svc.request('/api/v1/keys', {
    method: 'POST',
    json: { name: 'ce-limited', scope: 'ingest', allowedSources: ['allowed'] },
  });
  t.equal(res.status, 201, 'the key is made');
  const { key } = (await res.json()) as { key: string };
  const emit = emitterFor(httpTransport(url));
  const headers = { headers: keyHeaders(key) };
  const okAck = ackOf(
    await emit(new CloudEvent({ type: 't', source: 'allowed', data: {} }), headers),
  );
  t.equal(okAck.status, 'accepted');
  const refused = JSON.parse(
    (
      (await emit(new CloudEvent({ type: 't', source: 'other', data: {} }), headers)) as {
        body: string;
      }
    ).body,
  ) as { code: string };
  t.equal(refused.code, 'SOURCE_NOT_ALLOWED');
});
