// The live tail (issue 34, docs/stomp.md#live-tail): a /topic/events subscription with a `filter`
// header gets each new matching event after COMMIT, in the API's Event shape, and not the others;
// a bad filter is an ERROR naming it; a flood beyond the subscription's rate is dropped and counted
// (the `dropped` header of the next frame, and GET /metrics); a read key may tail.
import t from 'tap';
import { connectRaw, until, type RawClient, type ServerFrame } from '../stomp/helpers.ts';
import type { ApiEvent } from '../support/events.ts';
import { startTestService } from '../support/service.ts';

const RATE = 20;
const svc = await startTestService(t, { STOMP_TAIL_MAX_PER_SECOND: String(RATE) });
const wsUrl = `ws://127.0.0.1:${svc.service.port}/ws`;

async function post(items: unknown[]): Promise<string[]> {
  const res = await svc.request('/api/v1/events/batch', { json: items });
  const body = (await res.json()) as { results: { eventId: string }[] };
  return body.results.map((r) => r.eventId);
}

/** Subscribes `client` to /topic/events with `filter` and waits for the RECEIPT. */
async function tail(client: RawClient, id: string, filter: string): Promise<void> {
  const before = client.frames.length;
  client.send(
    `SUBSCRIBE\nid:${id}\ndestination:/topic/events\nfilter:${filter}\nreceipt:r-${id}\n\n\0`,
  );
  await client.waitFrames(before + 1);
  const frame = client.frames[before];
  if (frame?.command !== 'RECEIPT') throw new Error(`no RECEIPT: ${JSON.stringify(frame)}`);
}

const messages = (client: RawClient, id: string): ServerFrame[] =>
  client.frames.filter((f) => f.command === 'MESSAGE' && f.headers.subscription === id);

void t.test('a matching new event arrives by id; a non-matching one does not', async (t) => {
  const client = await connectRaw(wsUrl);
  t.teardown(() => client.ws.close());
  await tail(client, 'live', 'source=tail-src&severity=ERROR,WARN&eventType=checkout.*');
  const [other, wrongSeverity, wrongType] = await post([
    { eventType: 'checkout.paid', source: 'elsewhere', severity: 'ERROR' },
    { eventType: 'checkout.paid', source: 'tail-src', severity: 'INFO' },
    { eventType: 'search.run', source: 'tail-src', severity: 'ERROR' },
  ]);
  const [wanted] = await post([
    { eventType: 'checkout.paid', source: 'tail-src', severity: 'WARNING', tags: { a: 'b' } },
  ]);
  await until(() => messages(client, 'live').length >= 1, 'the matching event');
  // Frames arrive in order: the non-matching events, sent first, would have come before.
  const got = messages(client, 'live');
  t.equal(got.length, 1, 'only the matching event');
  const frame = got[0] as ServerFrame;
  t.match(frame.headers, { destination: '/topic/events', dropped: '0' });
  const event = JSON.parse(frame.body) as ApiEvent;
  t.equal(event.eventId, wanted);
  t.not(event.eventId, other);
  t.not(event.eventId, wrongSeverity);
  t.not(event.eventId, wrongType);
  const stored = await svc.request(`/api/v1/events/${wanted ?? ''}`);
  const { processingLatencyMs: _a, ...storedFields } = (await stored.json()) as ApiEvent;
  const { processingLatencyMs: _b, ...tailFields } = event;
  t.same(tailFields, storedFields, 'the stored event, in the API Event shape');
});

void t.test('a bad filter is an ERROR naming the parameter', async (t) => {
  for (const [filter, param] of [
    ['severity=LOUD', 'severity'],
    ['source=a&page=2', 'page'],
    ['from=later', 'from'],
  ] as const) {
    const client = await connectRaw(wsUrl);
    client.send(`SUBSCRIBE\nid:x\ndestination:/topic/events\nfilter:${filter}\n\n\0`);
    await client.waitFrames(2);
    const error = client.frames[1];
    t.equal(error?.command, 'ERROR', filter);
    t.match(error?.headers.message, new RegExp(`invalid filter: ${param}`));
    t.match(error?.body, new RegExp(`${param}: `));
    await client.closed;
  }
});

void t.test('a flood beyond the rate is dropped and counted', async (t) => {
  const client = await connectRaw(wsUrl);
  t.teardown(() => client.ws.close());
  await tail(client, 'flood', 'source=flood');
  const flood = Array.from({ length: 500 }, () => ({ eventType: 'flood.x', source: 'flood' }));
  const floodIds = new Set(await post(flood));
  // One more event at a time until a frame arrives after the flood; it carries the drop count.
  const probes = new Set<string>();
  let after: ServerFrame | undefined;
  await until(() => {
    after = messages(client, 'flood').find((f) =>
      probes.has((JSON.parse(f.body) as ApiEvent).eventId),
    );
    if (after === undefined && probes.size < 200) {
      void post([{ eventType: 'flood.probe', source: 'flood' }]).then(([id]) =>
        probes.add(id ?? ''),
      );
    }
    return after !== undefined;
  }, 'a frame after the flood');
  const fromFlood = messages(client, 'flood').filter((f) =>
    floodIds.has((JSON.parse(f.body) as ApiEvent).eventId),
  ).length;
  t.ok(fromFlood < 500, `the flood was bounded (${fromFlood} of 500 delivered)`);
  const dropped = Number(after?.headers.dropped);
  t.ok(dropped >= 500 - fromFlood, `dropped:${dropped} counts the flood's drops`);
  const metrics = await (await svc.request('/metrics')).text();
  const line = /^vigil_stomp_tail_dropped_total (\d+)/m.exec(metrics);
  t.ok(Number(line?.[1]) >= dropped, 'GET /metrics counts them too');
});

void t.test('a read key may tail', async (t) => {
  const res = await svc.request('/api/v1/keys', { json: { name: 'tail reader', scope: 'read' } });
  const { key } = (await res.json()) as { key: string };
  const client = await connectRaw(wsUrl, undefined, key);
  t.teardown(() => client.ws.close());
  await tail(client, 'r', 'eventType=read.scope');
  const [id] = await post([{ eventType: 'read.scope', source: 'x' }]);
  await until(() => messages(client, 'r').length >= 1, 'the event');
  t.equal((JSON.parse(messages(client, 'r')[0]?.body ?? '{}') as ApiEvent).eventId, id);
});
