// Contact point secrets on reads and updates: the redacted forms (issue 17), the PUT merge that
// keeps a secret sent back redacted, and the channel entries of a rule.
import t from 'tap';
import {
  channelEntryProblem,
  noContactPoint,
  parseChannelRef,
} from '../../../src/domain/contact-points/contact-point.ts';
import {
  redactedPaths,
  redactSettings,
  redactUrl,
} from '../../../src/domain/contact-points/redact.ts';
import {
  mergeSettingsUpdate,
  secretsLeftBehind,
} from '../../../src/domain/contact-points/settings-update.ts';

t.test('redactUrl: scheme and host only (the path may be the secret)', (t) => {
  const cases: readonly (readonly [string, string])[] = [
    [
      'https://hooks.slack.com/services/T0123ABC/B0456DEF/abcdefghijklmnop',
      'https://hooks.slack.com/****',
    ],
    ['https://hooks.example.com/vigil', 'https://hooks.example.com/****'],
    ['https://hooks.example.com/vigil?token=s3cret#x', 'https://hooks.example.com/****'],
    ['http://10.0.0.5:8080/a/b', 'http://10.0.0.5:8080/****'],
    ['https://user:pass@hooks.example.com/x', 'https://hooks.example.com/****'],
    ['https://hooks.example.com/', 'https://hooks.example.com/****'],
    ['not a url', '****'],
  ];
  for (const [url, shown] of cases) t.equal(redactUrl(url), shown, url);
  t.equal(redactUrl(42), '****');
  t.end();
});

t.test('redactSettings: every secret, nothing else', (t) => {
  t.same(
    redactSettings('webhook', {
      url: 'https://hooks.example.com/vigil/abc',
      headers: { Authorization: 'Bearer s3cret', 'X-Team': 'ops' },
      timeoutMs: 3000,
    }),
    {
      url: 'https://hooks.example.com/****',
      headers: { Authorization: '****', 'X-Team': '****' },
      timeoutMs: 3000,
    },
  );
  t.same(
    redactSettings('slack', {
      webhookUrl: 'https://hooks.slack.com/services/T/B/x',
      channel: '#o',
    }),
    { webhookUrl: 'https://hooks.slack.com/****', channel: '#o' },
  );
  const email = { to: ['ops@example.com'], subject: 'S' };
  t.same(redactSettings('email', email), email, 'addresses are not secrets');
  t.end();
});

t.test('mergeSettingsUpdate: what GET showed, sent back, keeps the secrets', (t) => {
  const stored = {
    url: 'https://hooks.example.com/vigil/abc',
    headers: { Authorization: 'Bearer s3cret', 'X-Team': 'ops' },
    timeoutMs: 3000,
  };
  t.same(mergeSettingsUpdate('webhook', stored, redactSettings('webhook', stored)), stored);
  t.same(mergeSettingsUpdate('webhook', stored, {}), stored, 'keys left out are kept');
  t.same(
    mergeSettingsUpdate('webhook', stored, { timeoutMs: null, headers: { Authorization: '****' } }),
    { url: stored.url, headers: { Authorization: 'Bearer s3cret' } },
    'null removes; a header set replaces the set, **** keeps a stored value',
  );
  t.same(
    mergeSettingsUpdate('webhook', stored, { url: 'https://new.example.com/x' }),
    { ...stored, url: 'https://new.example.com/x' },
    'a new secret replaces the old one',
  );
  t.same(
    mergeSettingsUpdate('webhook', stored, { headers: { 'X-New': '****' } }),
    { ...stored, headers: { 'X-New': '****' } },
    'a **** header with no stored value stays **** (for validation to refuse)',
  );
  t.same(
    mergeSettingsUpdate('slack', { webhookUrl: 'https://h.example/a/b/c' }, { channel: '#x' }),
    { webhookUrl: 'https://h.example/a/b/c', channel: '#x' },
  );
  t.equal(mergeSettingsUpdate('slack', {}, 'x'), 'x', 'not an object: left to validation');
  t.end();
});

t.test('secretsLeftBehind: a URL moving to another origin needs its headers again', (t) => {
  const stored = {
    url: 'https://hooks.example.com/vigil/abc',
    headers: { Authorization: 'Bearer s3cret' },
  };
  const why = /moves to another origin/;
  t.match(secretsLeftBehind('webhook', stored, { url: 'https://evil.example/x' }), {
    'settings.headers': why,
  });
  t.match(
    secretsLeftBehind('webhook', stored, {
      url: 'https://hooks.example.com:8443/vigil/abc',
      headers: { Authorization: '****' },
    }),
    { 'settings.headers.Authorization': why },
    'another port is another origin; **** would keep the old value',
  );
  t.match(
    secretsLeftBehind('webhook', stored, { url: 'http://hooks.example.com/vigil/abc' }),
    {
      'settings.headers': why,
    },
    'another scheme too',
  );
  t.same(
    secretsLeftBehind('webhook', stored, { url: 'https://hooks.example.com/other' }),
    {},
    'same origin',
  );
  t.same(
    secretsLeftBehind('webhook', stored, redactSettings('webhook', stored)),
    {},
    'what GET showed',
  );
  t.same(
    secretsLeftBehind('webhook', stored, {
      url: 'https://new.example/x',
      headers: { Authorization: 'Bearer new' },
    }),
    {},
    'headers given again',
  );
  t.same(
    secretsLeftBehind('webhook', stored, { url: 'https://new.example/x', headers: null }),
    {},
    'dropped',
  );
  t.same(
    secretsLeftBehind('webhook', { url: stored.url }, { url: 'https://new.example/x' }),
    {},
    'no headers',
  );
  t.same(
    secretsLeftBehind(
      'slack',
      { webhookUrl: 'https://a.example/x' },
      { webhookUrl: 'https://b.example/y' },
    ),
    {},
  );
  t.end();
});

t.test('redactedPaths: a redacted form where a secret should be', (t) => {
  const shown = redactSettings('webhook', {
    url: 'https://hooks.example.com/vigil/abc',
    headers: { Authorization: 'Bearer s3cret', 'X-Team': 'ops' },
  });
  t.same(redactedPaths('webhook', shown), [
    'settings.url',
    'settings.headers.Authorization',
    'settings.headers.X-Team',
  ]);
  t.same(redactedPaths('slack', { webhookUrl: 'https://hooks.slack.com/****' }), [
    'settings.webhookUrl',
  ]);
  t.same(redactedPaths('slack', { webhookUrl: 'https://hooks.slack.com/services/T/B/x' }), []);
  t.same(redactedPaths('email', { to: '****@example.com' }), [], 'e-mail holds no secret');
  t.end();
});

t.test('channel entries', (t) => {
  t.same(parseChannelRef('slack'), { type: 'slack', name: null });
  t.same(parseChannelRef('slack:oncall'), { type: 'slack', name: 'oncall' });
  t.same(parseChannelRef('webhook:rule-7-webhook'), { type: 'webhook', name: 'rule-7-webhook' });
  for (const bad of ['sms', 'slack:', 'slack:a:b', 'slack: x', 'Slack', ':x', '']) {
    t.equal(parseChannelRef(bad), undefined, bad);
  }
  t.equal(channelEntryProblem('c.0', 'email:ops'), undefined);
  t.match(channelEntryProblem('c.0', 'emial:ops'), /Did you mean 'email:ops'\?$/);
  t.match(channelEntryProblem('c.0', 7), /^c\.0 must be a string/);
  t.equal(noContactPoint({ type: 'slack', name: null }), 'no contact point for slack');
  t.equal(
    noContactPoint({ type: 'slack', name: 'oncall' }),
    'no contact point for slack named oncall',
  );
  t.end();
});
