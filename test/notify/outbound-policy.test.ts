// Outbound requests cannot be turned against Vigil (real sockets): a receiver on 127.0.0.1 gets
// nothing unless private addresses are allowed, however its address is spelled; what a receiver
// answers never reaches the stored result; the connection goes to the address that was checked,
// with no second DNS lookup (DNS rebinding).
import { BlockList, type AddressInfo } from 'node:net';
import { createServer as createTlsServer } from 'node:tls';
import t from 'tap';
import type { DeliveryResult } from '../../src/domain/rules/alerts/alert.ts';
import type { Notification } from '../../src/domain/rules/alerts/notification.ts';
import { NON_PUBLIC_ADDRESSES } from '../../src/notify/address-check.ts';
import type { NotifyOptions } from '../../src/notify/notify-options.ts';
import type { Resolver } from '../../src/notify/resolve-target.ts';
import { sendSlack } from '../../src/notify/slack.ts';
import { sendWebhook } from '../../src/notify/webhook.ts';
import { alert, notifyOptions, startHttpReceiver } from './receivers.ts';

type Send = (url: string, options: NotifyOptions, a?: Notification) => Promise<DeliveryResult>;
const channels: readonly (readonly ['webhook' | 'slack', Send])[] = [
  ['webhook', (url, options, a = alert) => sendWebhook(a, { url }, options)],
  ['slack', (url, options, a = alert) => sendSlack(a, { webhookUrl: url }, options)],
];

/** What a receiver answers; none of it may show up in a stored result. */
const SECRET_ANSWER = 'secret-body db.internal.corp 10.9.8.7 token=abc123';

const refusing = (over: Partial<NotifyOptions> = {}): NotifyOptions =>
  notifyOptions({ refusedAddresses: NON_PUBLIC_ADDRESSES, ...over });

for (const [channel, send] of channels) {
  t.test(`${channel}: a receiver on 127.0.0.1 receives nothing by default`, async (t) => {
    const receiver = await startHttpReceiver(t, () => ({ status: 200, body: SECRET_ANSWER }));
    const dns: string[] = [];
    const resolve: Resolver = async (name) => {
      dns.push(name);
      return [{ address: '127.0.0.1', family: 4 }];
    };
    const spellings = [
      `http://127.0.0.1:${receiver.port}/hook`,
      `http://2130706433:${receiver.port}/hook`,
      `http://0177.0.0.1:${receiver.port}/hook`,
      `http://0x7f.0.0.1:${receiver.port}/hook`,
      `http://[::ffff:127.0.0.1]:${receiver.port}/hook`,
      `http://localhost.test:${receiver.port}/hook`,
    ];
    for (const url of spellings) {
      const result = await send(url, refusing({ resolve }));
      t.match(result, { channel, ok: false, attempts: 0 }, url);
      t.equal(result.error, 'address not allowed (private range)', url);
    }
    t.same(dns, ['localhost.test'], 'only the name was resolved');
    // Listed in NOTIFY_ALLOWED_HOSTS is not enough: the address check applies as well.
    const listed = await send(receiver.url, refusing({ allowedHosts: ['127.0.0.1'] }));
    t.match(listed, { ok: false, attempts: 0, error: 'address not allowed (private range)' });
    t.equal(receiver.received.length, 0, 'no request reached the receiver');

    const allowed = await send(receiver.url, notifyOptions());
    t.match(allowed, { ok: true, attempts: 1, status: 200 }, 'NOTIFY_ALLOW_PRIVATE=true');
    t.equal(receiver.received.length, 1);
  });

  t.test(`${channel}: the receiver's answer never reaches the stored result`, async (t) => {
    const answers = [400, 404, 500, 503];
    const receiver = await startHttpReceiver(t, (n) => ({
      status: answers[n - 1] ?? 500,
      body: SECRET_ANSWER,
      headers: { 'x-internal-host': 'db.internal.corp' },
    }));
    for (const status of answers) {
      const result = await send(receiver.url, notifyOptions({ attempts: 1 }));
      t.match(result, { ok: false, attempts: 1, status });
      t.equal(result.error, `HTTP ${status}`);
    }
    t.equal(receiver.received.length, answers.length);
  });
}

t.test('the connection goes to the checked address: one lookup, no rebinding', async (t) => {
  // Two receivers on one port: 127.0.0.2, which this test's policy allows, and 127.0.0.1,
  // which it refuses. The resolver answers 127.0.0.2 the first time, 127.0.0.1 after that: a
  // client that looked the name up again to connect, or again for its retry, would reach
  // 127.0.0.1.
  const attacker = await startHttpReceiver(t, () => ({ status: 200, body: SECRET_ANSWER }));
  const checked = await startHttpReceiver(t, (n) => (n === 1 ? { status: 503 } : { status: 200 }), {
    host: '127.0.0.2',
    port: attacker.port,
  });
  const refused = new BlockList();
  refused.addAddress('127.0.0.1');
  const lookups: string[] = [];
  const resolve: Resolver = async (name) => {
    lookups.push(name);
    return [{ address: lookups.length === 1 ? '127.0.0.2' : '127.0.0.1', family: 4 }];
  };
  const options = notifyOptions({ refusedAddresses: refused, resolve });
  const url = `http://rebind.test:${attacker.port}/hook`;
  const result = await sendWebhook(alert, { url }, options);
  t.match(result, { ok: true, attempts: 2, status: 200 }, '503, retried, then 200');
  t.same(lookups, ['rebind.test'], 'one lookup for the delivery, its retry included');
  t.equal(checked.received.length, 2, 'both attempts went to the checked address');
  t.equal(attacker.received.length, 0, 'the other address was never contacted');
  t.equal(checked.received[0]?.headers.host, `rebind.test:${attacker.port}`, 'Host is the name');

  // The next delivery looks up again, gets 127.0.0.1 and is refused before connecting.
  const again = await sendWebhook(alert, { url }, options);
  t.match(again, { ok: false, attempts: 0, error: 'address not allowed (private range)' });
  t.equal(attacker.received.length, 0);
  t.equal(lookups.length, 2);
});

t.test(
  'https: the TLS server name is the URL host, the socket goes to the checked address',
  async (t) => {
    // A TLS server without a certificate: it records the server name of the ClientHello (SNI)
    // and ends the handshake, which the client sees as a reset connection.
    const serverNames: string[] = [];
    const server = createTlsServer({
      SNICallback: (name, done) => {
        serverNames.push(name);
        done(new Error('no certificate for this test'));
      },
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    t.teardown(() => new Promise<void>((resolve) => server.close(() => resolve())));
    const { port } = server.address() as AddressInfo;
    const resolve: Resolver = async () => [{ address: '127.0.0.1', family: 4 }];
    const result = await sendWebhook(
      alert,
      { url: `https://hooks.example.test:${port}/hook` },
      notifyOptions({ resolve, attempts: 1 }),
    );
    t.same(serverNames, ['hooks.example.test']);
    t.match(result, { ok: false, attempts: 1, error: /^(connection reset|TLS handshake failed)$/ });
  },
);

t.test('a name that does not resolve is a fixed reason, not the resolver text', async (t) => {
  const result = await sendSlack(
    alert,
    { webhookUrl: 'http://no-such-host.invalid/hook' },
    refusing(),
  );
  // The system resolver: NXDOMAIN, or, on a machine without DNS, no answer in time.
  t.match(result, {
    ok: false,
    attempts: 0,
    error: /^DNS lookup (failed|timed out after \d+ ms)$/,
  });
});
