// NOTIFY_ALLOWED_HOSTS matching, and building NotifyOptions from the Config fields.
import t from 'tap';
import { loadConfig } from '../../src/config.ts';
import { NON_PUBLIC_ADDRESSES } from '../../src/notify/address-check.ts';
import { isHostAllowed } from '../../src/notify/host-allowed.ts';
import { notifyOptionsFrom, parseAllowedHosts } from '../../src/notify/notify-options.ts';

t.test('exact names and *.suffix; empty list allows any host', (t) => {
  const list = ['hooks.slack.com', '*.example.com', '10.0.0.5', '[::1]'];
  const cases: readonly (readonly [string, readonly string[], boolean])[] = [
    ['anything.test', [], true],
    ['hooks.slack.com', list, true],
    ['HOOKS.Slack.com', list, true],
    ['hooks.slack.com.', list, true],
    ['evilhooks.slack.com', list, false],
    ['hooks.slack.com.evil.test', list, false],
    ['a.example.com', list, true],
    ['a.b.example.com', list, true],
    ['example.com', list, false],
    ['badexample.com', list, false],
    ['10.0.0.5', list, true],
    ['10.0.0.50', list, false],
    ['[::1]', list, true],
    ['169.254.169.254', list, false],
  ];
  for (const [host, allowed, expected] of cases) {
    t.equal(isHostAllowed(host, allowed), expected, `${host} in [${allowed.join(', ')}]`);
  }
  t.equal(
    isHostAllowed(new URL('http://0x7f.1/').hostname, ['127.0.0.1']),
    true,
    'URL canonical IP',
  );
  t.end();
});

t.test('NOTIFY_ALLOWED_HOSTS is split on commas, trimmed, lower-cased', (t) => {
  t.same(parseAllowedHosts(undefined), []);
  t.same(parseAllowedHosts(''), []);
  t.same(parseAllowedHosts(' Hooks.Slack.com, *.example.com ,,'), [
    'hooks.slack.com',
    '*.example.com',
  ]);
  t.same(
    notifyOptionsFrom({
      SMTP_URL: 'smtp://mail:25',
      NOTIFY_ALLOWED_HOSTS: 'a.test',
      NOTIFY_ALLOW_PRIVATE: true,
      NOTIFY_TIMEOUT_MS: 5000,
      NOTIFY_FROM: 'vigil@x.test',
    }),
    {
      smtpUrl: 'smtp://mail:25',
      allowedHosts: ['a.test'],
      refusedAddresses: undefined,
      timeoutMs: 5000,
      attempts: 3,
      backoffMs: 500,
      from: 'vigil@x.test',
    },
  );
  t.end();
});

t.test('the outbound knobs: private addresses refused unless NOTIFY_ALLOW_PRIVATE=true', (t) => {
  const defaults = loadConfig({});
  t.equal(defaults.NOTIFY_ALLOW_PRIVATE, false);
  t.equal(defaults.NOTIFY_CONCURRENCY, 32);
  t.equal(defaults.NOTIFY_QUEUE_MAX, 1000);
  t.equal(notifyOptionsFrom(defaults).refusedAddresses, NON_PUBLIC_ADDRESSES);
  const allowing = loadConfig({ NOTIFY_ALLOW_PRIVATE: 'true' });
  t.equal(notifyOptionsFrom(allowing).refusedAddresses, undefined);
  t.throws(() => loadConfig({ NOTIFY_CONCURRENCY: '0' }), /NOTIFY_CONCURRENCY/);
  t.throws(() => loadConfig({ NOTIFY_ALLOW_PRIVATE: 'maybe' }), /NOTIFY_ALLOW_PRIVATE/);
  t.end();
});
