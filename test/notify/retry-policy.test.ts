// Webhook and Slack share one HTTP policy: 5xx and network errors retried with backoff, 4xx and
// 3xx final, per-attempt timeout, blocked hosts never contacted, failures stored as a status and a
// fixed reason (never the answer's body). Real local receivers.
import t from 'tap';
import { freePort } from '../support/free-port.ts';
import type { DeliveryResult } from '../../src/domain/rules/alerts/alert.ts';
import type { Notification } from '../../src/domain/rules/alerts/notification.ts';
import type { NotifyOptions } from '../../src/notify/notify-options.ts';
import { sendSlack } from '../../src/notify/slack.ts';
import { sendWebhook } from '../../src/notify/webhook.ts';
import { alert, notifyOptions, startHttpReceiver } from './receivers.ts';

type Send = (url: string, options: NotifyOptions, a?: Notification) => Promise<DeliveryResult>;
const channels: readonly (readonly ['webhook' | 'slack', Send])[] = [
  ['webhook', (url, options, a = alert) => sendWebhook(a, { url }, options)],
  ['slack', (url, options, a = alert) => sendSlack(a, { webhookUrl: url }, options)],
];

for (const [channel, send] of channels) {
  t.test(
    `${channel}: 500 twice then 200 is delivered on the 3rd attempt, with backoff`,
    async (t) => {
      const receiver = await startHttpReceiver(t, (n) =>
        n < 3 ? { status: 500, body: 'boom' } : { status: 200, body: 'ok' },
      );
      // Each backoff is recorded with the number of requests the receiver had seen by then.
      const waits: [number, number][] = [];
      const backoff = async (ms: number): Promise<void> => {
        waits.push([ms, receiver.received.length]);
      };
      const result = await send(receiver.url, notifyOptions({ backoffMs: 20, backoff }));
      t.match(result, { channel, ok: true, attempts: 3, status: 200 });
      t.notOk('error' in result);
      t.equal(receiver.received.length, 3);
      t.same(
        waits,
        [
          [20, 1],
          [40, 2],
        ],
        'backoffMs after the 1st attempt, twice that after the 2nd',
      );
      t.ok(
        receiver.received.every((r) => r.body === receiver.received[0]?.body),
        'same body',
      );
    },
  );

  t.test(`${channel}: 500 every time gives up after \`attempts\``, async (t) => {
    const receiver = await startHttpReceiver(t, () => ({ status: 503, body: 'down\nfor now' }));
    const result = await send(receiver.url, notifyOptions({ attempts: 2 }));
    t.match(result, {
      channel,
      ok: false,
      attempts: 2,
      status: 503,
      error: 'HTTP 503',
    });
    t.equal(receiver.received.length, 2);
  });

  t.test(`${channel}: 4xx is final (1 attempt) and never quotes the body`, async (t) => {
    const receiver = await startHttpReceiver(t, () => ({ status: 400, body: 'invalid_payload' }));
    const result = await send(receiver.url, notifyOptions());
    t.match(result, { channel, ok: false, attempts: 1, status: 400 });
    t.equal(result.error, 'HTTP 400', 'the status alone, not a byte of the body');
    t.equal(receiver.received.length, 1);
  });

  t.test(`${channel}: a redirect is not followed (its target is never contacted)`, async (t) => {
    const target = await startHttpReceiver(t);
    const receiver = await startHttpReceiver(t, () => ({
      status: 307,
      headers: { location: target.url },
    }));
    const result = await send(receiver.url, notifyOptions());
    t.match(result, { ok: false, attempts: 1, status: 307, error: /redirects are not followed/ });
    t.equal(target.received.length, 0);
  });

  t.test(`${channel}: a server that never answers times out, each attempt`, async (t) => {
    const receiver = await startHttpReceiver(t, () => 'hang');
    const result = await send(receiver.url, notifyOptions({ timeoutMs: 150, attempts: 2 }));
    t.match(result, { ok: false, attempts: 2, error: 'timed out after 150 ms' });
    t.notOk('status' in result);
    t.equal(receiver.received.length, 2, 'the first attempt timed out, the second was sent');
  });

  t.test(
    `${channel}: a refused connection is retried, then fails with a fixed reason`,
    async (t) => {
      const port = await freePort();
      const result = await send(`http://127.0.0.1:${port}/hook`, notifyOptions());
      t.match(result, { ok: false, attempts: 3, error: 'connection refused' });
    },
  );

  t.test(`${channel}: a host outside NOTIFY_ALLOWED_HOSTS is never contacted`, async (t) => {
    const receiver = await startHttpReceiver(t);
    const blocked = await send(
      receiver.url,
      notifyOptions({ allowedHosts: ['hooks.slack.com', '*.example.com'] }),
    );
    t.match(blocked, {
      channel,
      ok: false,
      attempts: 0,
      error: 'host not in NOTIFY_ALLOWED_HOSTS: not contacted',
    });
    t.equal(receiver.received.length, 0);
    const local = `http://localhost:${receiver.port}/hook`;
    t.match(await send(local, notifyOptions({ allowedHosts: ['127.0.0.1'] })), { attempts: 0 });
    t.equal(receiver.received.length, 0, 'names are compared, not what they resolve to');
    const allowed = await send(receiver.url, notifyOptions({ allowedHosts: ['127.0.0.1'] }));
    t.match(allowed, { ok: true, attempts: 1 });
    t.equal(receiver.received.length, 1);
  });

  t.test(`${channel}: a non-http URL (stored before validation) is refused`, async (t) => {
    t.match(await send('file:///etc/passwd', notifyOptions()), {
      ok: false,
      attempts: 0,
      error: 'only http and https URLs are delivered to, not file:',
    });
    t.match(await send('not a url', notifyOptions()), { ok: false, attempts: 0 });
  });
}
