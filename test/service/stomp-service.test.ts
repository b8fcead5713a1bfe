// STOMP over WebSocket against the real service (spec 6, DESIGN 5): @stomp/stompjs clients over
// `ws` on /ws and /ws/websocket get the metrics snapshot at once on SUBSCRIBE to /topic/metrics,
// then one MESSAGE every METRICS_BROADCAST_MS with the actor's latest snapshot.
import t from 'tap';
import type { Client, IMessage } from '@stomp/stompjs';
import { RawClient, connectStomp, until } from '../stomp/helpers.ts';
import { REAL_TIMERS } from '../../src/timers.ts';
import { startTestService } from '../support/service.ts';
import { getMetrics, parseSnapshot, postJson, resetMetrics, type Snapshot } from './helpers.ts';
import { TEST_ADMIN_KEY } from '../support/keys.ts';

const BROADCAST_MS = 200;

/**
 * The service's broadcast timer, injected: its period is recorded, and while `held` its own ticks
 * are skipped and the test fires them, so that each MESSAGE can be matched to one tick.
 */
const broadcastTimer = { periodMs: 0, held: false, fire: (): void => {} };
const svc = await startTestService(
  t,
  { METRICS_BROADCAST_MS: String(BROADCAST_MS), METRICS_REFRESH_MS: '50' },
  {
    hooks: {
      broadcastTimers: {
        setInterval(tick, ms) {
          broadcastTimer.periodMs = ms;
          broadcastTimer.fire = tick;
          return REAL_TIMERS.setInterval(() => {
            if (!broadcastTimer.held) tick();
          }, ms);
        },
        clearInterval: (handle) => REAL_TIMERS.clearInterval(handle),
      },
    },
  },
);
const url = (path = '/ws'): string => `ws://127.0.0.1:${svc.service.port}${path}`;

interface Teardown {
  teardown(fn: () => unknown): void;
}

async function connect(t: Teardown, path = '/ws'): Promise<Client> {
  const { client } = await connectStomp(url(path));
  t.teardown(() => client.deactivate({ force: true }));
  return client;
}

/** Subscribes with `id` and resolves once the RECEIPT for the SUBSCRIBE arrived. */
async function subscribe(client: Client, id: string, messages: IMessage[]): Promise<() => void> {
  const receipt = `sub-${id}`;
  const received = new Promise<void>((resolve) => client.watchForReceipt(receipt, () => resolve()));
  const subscription = client.subscribe('/topic/metrics', (m) => messages.push(m), {
    id,
    receipt,
  });
  await received;
  return () => subscription.unsubscribe();
}

const snapshotOf = (message: IMessage | undefined): Snapshot => {
  if (message === undefined) throw new Error('no message');
  return parseSnapshot(message.body);
};

void t.test('/ws: CONNECT, a snapshot at once, then one MESSAGE per broadcast', async (t) => {
  const { client, connected } = await connectStomp(url());
  t.teardown(() => client.deactivate({ force: true }));
  t.equal(connected.command, 'CONNECTED');
  t.match(connected.headers, { version: '1.2', server: /^vigil\// });

  const messages: IMessage[] = [];
  t.equal(broadcastTimer.periodMs, BROADCAST_MS, 'the broadcast ticks every METRICS_BROADCAST_MS');
  broadcastTimer.held = true;
  t.teardown(() => {
    broadcastTimer.held = false;
  });
  await subscribe(client, 'metrics-1', messages);
  t.equal(messages.length, 1, 'the current snapshot came before the RECEIPT of the SUBSCRIBE');

  const TICKS = 7;
  for (let i = 1; i <= TICKS; i++) {
    broadcastTimer.fire();
    await until(() => messages.length >= 1 + i, `the MESSAGE of tick ${i}`);
  }
  // Frames arrive in order: any MESSAGE sent before this RECEIPT has arrived by then.
  await subscribe(client, 'probe', []);
  t.equal(messages.length, 1 + TICKS, 'one MESSAGE per broadcast tick, nothing in between');
  broadcastTimer.held = false;
  const ids = new Set<string>();
  for (const [i, m] of messages.entries()) {
    t.equal(m.command, 'MESSAGE');
    t.match(
      m.headers,
      {
        destination: '/topic/metrics',
        subscription: 'metrics-1',
        'content-type': 'application/json',
        'message-id': /./,
      },
      `message ${i}: headers`,
    );
    ids.add(m.headers['message-id'] ?? '');
    t.doesNotThrow(() => snapshotOf(m), `message ${i}: the spec 2.10 snapshot`);
  }
  t.equal(ids.size, messages.length, 'every message-id is unique');
});

void t.test('pushed snapshots reflect events POSTed through the API', async (t) => {
  const client = await connect(t);
  const messages: IMessage[] = [];
  await resetMetrics(svc);
  await subscribe(client, 'm', messages);
  t.equal(snapshotOf(messages[0]).summary.totalEvents, 0, 'zero right after the reset');

  await postJson(svc, '/api/v1/events', { eventType: 'stomp.one', source: 'ws-test' }, 202);
  await postJson(
    svc,
    '/api/v1/events/batch',
    [
      { eventType: 'stomp.many', source: 'ws-test', userId: 'u', severity: 'ERROR' },
      { eventType: 'stomp.many', source: 'ws-test', userId: 'u' },
      { eventType: 'stomp.many', source: 'ws-test', severity: 'nope' },
    ],
    202,
  );
  await until(
    () => messages.some((m) => snapshotOf(m).summary.totalEvents === 3),
    'a pushed snapshot counting the 3 stored events',
  );
  const pushed = snapshotOf(messages.find((m) => snapshotOf(m).summary.totalEvents === 3));
  t.strictSame(pushed.eventsByType, { 'stomp.one': 1, 'stomp.many': 2 });
  t.strictSame(pushed.eventsBySeverity, { INFO: 2, WARNING: 0, ERROR: 1, CRITICAL: 0 });
  t.strictSame(
    pushed.topUsers.map((u) => [u.userId, u.eventCount]),
    [['u', 2]],
  );
  t.ok(
    messages.every((m) => snapshotOf(m).summary.totalEvents <= 3),
    'never more than what was stored',
  );
  const served = await getMetrics(svc);
  t.equal(served.summary.totalEvents, 3, 'GET /api/v1/metrics agrees');
});

void t.test('UNSUBSCRIBE stops delivery to that subscription only', async (t) => {
  const client = await connect(t);
  const stopped: IMessage[] = [];
  const kept: IMessage[] = [];
  await subscribe(client, 'to-stop', stopped);
  await subscribe(client, 'to-keep', kept);
  await until(() => stopped.length >= 2, 'a broadcast on both');

  const unsubscribed = new Promise<void>((resolve) =>
    client.watchForReceipt('u1', () => resolve()),
  );
  client.unsubscribe('to-stop', { receipt: 'u1' });
  await unsubscribed;
  const stoppedAt = stopped.length;
  const keptAt = kept.length;
  await until(() => kept.length >= keptAt + 4, 'four more broadcasts on the kept subscription');
  t.equal(stopped.length, stoppedAt, 'nothing after the RECEIPT of the UNSUBSCRIBE');
  t.ok(
    kept.every((m) => m.headers.subscription === 'to-keep'),
    'the kept subscription gets only its own MESSAGEs',
  );
});

void t.test('DISCONNECT with a receipt gets the RECEIPT, then the socket closes', async (t) => {
  const client = await connect(t);
  const messages: IMessage[] = [];
  await subscribe(client, 'm', messages);
  // A second client still subscribed: its broadcasts show that ticks went on after the close.
  const witness: IMessage[] = [];
  await subscribe(await connect(t), 'witness', witness);
  const receipt = new Promise<{ command: string; receiptId: string | undefined }>((resolve) => {
    client.onDisconnect = (frame) =>
      resolve({ command: frame.command, receiptId: frame.headers['receipt-id'] });
  });
  const closed = new Promise<void>((resolve) => {
    client.onWebSocketClose = () => resolve();
  });
  client.configure({ disconnectHeaders: { receipt: 'bye-1' } });
  await client.deactivate();
  t.strictSame(await receipt, { command: 'RECEIPT', receiptId: 'bye-1' });
  await closed;
  const count = messages.length;
  const witnessed = witness.length;
  await until(() => witness.length >= witnessed + 3, 'three broadcasts after the close');
  t.equal(messages.length, count, 'no MESSAGE after DISCONNECT');

  // The same over a raw socket: RECEIPT, then the server closes the connection.
  const raw = new RawClient(url());
  await raw.opened;
  raw.send(
    `CONNECT\naccept-version:1.2\nhost:vigil\nheart-beat:0,0\npasscode:${TEST_ADMIN_KEY}\n\n\0`,
  );
  raw.send('SUBSCRIBE\nid:0\ndestination:/topic/metrics\n\n\0');
  raw.send('DISCONNECT\nreceipt:77\n\n\0');
  const { code } = await raw.closed;
  t.ok(code === 1000 || code === 1005, `the server closed normally (${code})`);
  const frames = raw.frames;
  t.equal(frames[0]?.command, 'CONNECTED');
  t.equal(frames[1]?.command, 'MESSAGE', 'the snapshot on SUBSCRIBE');
  // A broadcast tick may fall between SUBSCRIBE and DISCONNECT; the RECEIPT is the last frame.
  t.strictSame(
    frames.slice(1, -1).map((f) => f.command),
    frames.slice(1, -1).map(() => 'MESSAGE'),
  );
  t.match(frames.at(-1), { command: 'RECEIPT', headers: { 'receipt-id': '77' } });
});

void t.test('/ws/websocket (the SockJS raw WebSocket path) works the same', async (t) => {
  const client = await connect(t, '/ws/websocket');
  const messages: IMessage[] = [];
  await subscribe(client, 'sockjs', messages);
  t.ok(messages.length >= 1, 'the snapshot at once');
  await until(() => messages.length >= 3, 'broadcasts');
  for (const m of messages) {
    t.match(m.headers, { destination: '/topic/metrics', subscription: 'sockjs' });
    snapshotOf(m);
  }
});
