// notificationConfig against notificationChannels: valid configs, each missing key, URLs, unknown
// keys, and the hook into checkRuleBody for create and update.
import t from 'tap';
import {
  channelConfig,
  MAX_HEADERS,
  notificationConfigErrors,
} from '../../../src/domain/rules/notification-config.ts';
import type { NotificationChannel } from '../../../src/domain/rules/rule-types.ts';
import { checkRuleBody } from '../../../src/schemas/rule.ts';
import { ruleRequest as body, ruleErrors as errorsOf } from '../../support/rules.ts';

const ALL: readonly NotificationChannel[] = ['email', 'slack', 'webhook'];
const full = {
  webhook: {
    url: 'https://hooks.example.com/vigil',
    headers: { Authorization: 'Bearer x' },
    timeoutMs: 2000,
  },
  slack: { webhookUrl: 'https://hooks.slack.com/services/T0/B0/xyz', channel: '#ops' },
  email: { to: ['ops@example.com', 'oncall@example.org'], subject: 'Vigil alert' },
};

t.test('valid configs', (t) => {
  const valid: readonly (readonly [string, readonly NotificationChannel[], unknown])[] = [
    ['no channels, no config', [], null],
    ['no channels, config absent', [], undefined],
    ['no channels, empty config', [], {}],
    ['every channel, every key', ALL, full],
    ['minimal webhook', ['webhook'], { webhook: { url: 'http://10.0.0.5:8080/hook' } }],
    ['minimal slack', ['slack'], { slack: { webhookUrl: 'https://hooks.slack.com/x' } }],
    ['email to one address', ['email'], { email: { to: 'ops@example.com' } }],
    ['a section for a channel not listed, valid', ['email'], { ...full, email: { to: 'a@b.c' } }],
    ['empty headers', ['webhook'], { webhook: { url: 'https://x.test', headers: {} } }],
  ];
  for (const [name, channels, config] of valid) {
    t.same(notificationConfigErrors(channels, config), {}, name);
  }
  t.end();
});

t.test('each missing key is named, with the channel that needs it', (t) => {
  t.same(notificationConfigErrors(ALL, null), {
    'notificationConfig.email.to':
      'notificationConfig.email.to is required when notificationChannels includes email',
    'notificationConfig.slack.webhookUrl':
      'notificationConfig.slack.webhookUrl is required when notificationChannels includes slack',
    'notificationConfig.webhook.url':
      'notificationConfig.webhook.url is required when notificationChannels includes webhook',
  });
  t.same(notificationConfigErrors(['webhook'], { webhook: { headers: { A: 'b' } } }), {
    'notificationConfig.webhook.url':
      'notificationConfig.webhook.url is required when notificationChannels includes webhook',
  });
  t.same(notificationConfigErrors(['slack'], { slack: { channel: '#ops' } }), {
    'notificationConfig.slack.webhookUrl':
      'notificationConfig.slack.webhookUrl is required when notificationChannels includes slack',
  });
  t.same(
    notificationConfigErrors([], { email: { subject: 's' } }),
    {
      'notificationConfig.email.to': 'notificationConfig.email.to is required',
    },
    'a section present but not listed is still checked',
  );
  t.end();
});

t.test('bad values', (t) => {
  const cases: readonly (readonly [
    string,
    NotificationChannel,
    unknown,
    Record<string, string>,
  ])[] = [
    [
      'ftp URL',
      'webhook',
      { url: 'ftp://files.example.com/x' },
      {
        'notificationConfig.webhook.url':
          "notificationConfig.webhook.url must use http or https, not 'ftp'",
      },
    ],
    [
      'file URL',
      'slack',
      { webhookUrl: 'file:///etc/passwd' },
      {
        'notificationConfig.slack.webhookUrl':
          "notificationConfig.slack.webhookUrl must use http or https, not 'file'",
      },
    ],
    [
      'javascript URL',
      'webhook',
      { url: 'javascript:alert(1)' },
      {
        'notificationConfig.webhook.url':
          "notificationConfig.webhook.url must use http or https, not 'javascript'",
      },
    ],
    [
      'relative URL',
      'webhook',
      { url: '/hook' },
      {
        'notificationConfig.webhook.url':
          'notificationConfig.webhook.url must be an absolute http or https URL',
      },
    ],
    [
      'URL not a string',
      'webhook',
      { url: 42 },
      {
        'notificationConfig.webhook.url':
          'notificationConfig.webhook.url must be a string (an http or https URL)',
      },
    ],
    [
      'URL with credentials',
      'webhook',
      { url: 'https://user:pw@x.test/' },
      {
        'notificationConfig.webhook.url':
          'notificationConfig.webhook.url must not contain a user name or password',
      },
    ],
    [
      'URL too long',
      'slack',
      { webhookUrl: `https://x.test/${'a'.repeat(2048)}` },
      {
        'notificationConfig.slack.webhookUrl':
          'notificationConfig.slack.webhookUrl must be at most 2048 characters',
      },
    ],
    [
      'section not an object',
      'webhook',
      'https://x.test',
      {
        'notificationConfig.webhook':
          'notificationConfig.webhook must be an object { url, headers?, timeoutMs? }',
      },
    ],
    [
      'section an array',
      'email',
      ['a@b.c'],
      {
        'notificationConfig.email': 'notificationConfig.email must be an object { to, subject? }',
      },
    ],
    [
      'headers not an object',
      'webhook',
      { url: 'https://x.test', headers: ['A: b'] },
      {
        'notificationConfig.webhook.headers':
          'notificationConfig.webhook.headers must be an object mapping header names to string values',
      },
    ],
    [
      'more headers than a webhook may have',
      'webhook',
      {
        url: 'https://x.test',
        headers: Object.fromEntries(
          Array.from({ length: MAX_HEADERS + 1 }, (_, i) => [`X-H${i}`, 'v']),
        ),
      },
      {
        'notificationConfig.webhook.headers': `notificationConfig.webhook.headers must hold at most ${MAX_HEADERS} headers`,
      },
    ],
    [
      'header value not a string, bad name, reserved, CRLF',
      'webhook',
      {
        url: 'https://x.test',
        headers: {
          'X-N': 1,
          'Bad Name': 'x',
          Host: 'internal',
          'X-Inject': 'a\r\nB: c',
          'X-Tab': 'a\tb',
          'X-Emoji': '\u{1F600}',
        },
      },
      {
        'notificationConfig.webhook.headers.X-N':
          'notificationConfig.webhook.headers.X-N must be a string',
        'notificationConfig.webhook.headers.Bad Name':
          "notificationConfig.webhook.headers.Bad Name: 'Bad Name' is not a valid header name",
        'notificationConfig.webhook.headers.Host':
          'notificationConfig.webhook.headers.Host cannot be set: Vigil or the HTTP client sets it',
        'notificationConfig.webhook.headers.X-Emoji':
          'notificationConfig.webhook.headers.X-Emoji must hold only Latin-1 characters (HTTP header values are bytes)',
        'notificationConfig.webhook.headers.X-Inject':
          'notificationConfig.webhook.headers.X-Inject must not contain line breaks or control characters',
      },
    ],
    [
      'timeoutMs out of range',
      'webhook',
      { url: 'https://x.test', timeoutMs: 50 },
      {
        'notificationConfig.webhook.timeoutMs':
          'notificationConfig.webhook.timeoutMs must be an integer from 100 to 60000',
      },
    ],
    [
      'timeoutMs not an integer',
      'webhook',
      { url: 'https://x.test', timeoutMs: '1000' },
      {
        'notificationConfig.webhook.timeoutMs':
          'notificationConfig.webhook.timeoutMs must be an integer from 100 to 60000',
      },
    ],
    [
      'slack channel empty',
      'slack',
      { webhookUrl: 'https://x.test', channel: '' },
      {
        'notificationConfig.slack.channel':
          'notificationConfig.slack.channel must be a string of 1 to 255 characters',
      },
    ],
    [
      'email to not an address',
      'email',
      { to: 'ops' },
      {
        'notificationConfig.email.to':
          'notificationConfig.email.to must be an e-mail address like ops@example.com',
      },
    ],
    [
      'email to with a display name or a list',
      'email',
      { to: ['Ops <ops@x.test>', 'a@x.test, b@x.test', 'ok@x.test'] },
      {
        'notificationConfig.email.to.0':
          'notificationConfig.email.to.0 must be an e-mail address like ops@example.com',
        'notificationConfig.email.to.1':
          'notificationConfig.email.to.1 must be an e-mail address like ops@example.com',
      },
    ],
    [
      'email to empty array',
      'email',
      { to: [] },
      {
        'notificationConfig.email.to':
          'notificationConfig.email.to must be an e-mail address or an array of 1 to 50 addresses',
      },
    ],
    [
      'email subject with a line break',
      'email',
      { to: 'a@x.test', subject: 'a\nBcc: evil@x.test' },
      {
        'notificationConfig.email.subject':
          'notificationConfig.email.subject must not contain line breaks or control characters',
      },
    ],
  ];
  for (const [name, channel, section, errors] of cases) {
    t.same(notificationConfigErrors([channel], { [channel]: section }), errors, name);
  }
  t.end();
});

t.test('unknown keys are named', (t) => {
  t.same(
    notificationConfigErrors(['webhook', 'email'], {
      webhook: { url: 'https://x.test', method: 'PUT', retries: 3 },
      email: { to: 'a@x.test', cc: 'b@x.test' },
      pagerduty: { key: 'k' },
    }),
    {
      'notificationConfig.pagerduty':
        "Unknown channel 'pagerduty' in notificationConfig (allowed: email, slack, webhook)",
      'notificationConfig.email.cc':
        "Unknown key 'cc' in notificationConfig.email (allowed: to, subject)",
      'notificationConfig.webhook.method':
        "Unknown key 'method' in notificationConfig.webhook (allowed: url, headers, timeoutMs)",
      'notificationConfig.webhook.retries':
        "Unknown key 'retries' in notificationConfig.webhook (allowed: url, headers, timeoutMs)",
    },
  );
  t.same(notificationConfigErrors([], 'x'), {
    notificationConfig: 'notificationConfig must be an object or null',
  });
  t.end();
});

t.test('channelConfig: one section, for delivery', (t) => {
  t.same(channelConfig('slack', full), { ok: true, value: full.slack });
  t.same(channelConfig('email', null), {
    ok: false,
    errors: {
      'notificationConfig.email.to':
        'notificationConfig.email.to is required when notificationChannels includes email',
    },
  });
  t.end();
});

t.test('checkRuleBody create: the body channels against the body config', (t) => {
  t.match(checkRuleBody('create', body({ notificationChannels: ALL, notificationConfig: full })), {
    ok: true,
    value: { notificationChannels: ALL, notificationConfig: full },
  });
  t.same(errorsOf(checkRuleBody('create', body({ notificationChannels: ['webhook'] }))), {
    'notificationConfig.webhook.url':
      'notificationConfig.webhook.url is required when notificationChannels includes webhook',
  });
  t.same(
    errorsOf(
      checkRuleBody(
        'create',
        body({
          name: '',
          notificationChannels: ['slack'],
          notificationConfig: { slack: { webhookUrl: 'gopher://x' } },
        }),
      ),
    ),
    { name: 'name must be a string of 1 to 255 characters' },
    'schema errors first, as for ruleConfig',
  );
  t.same(
    errorsOf(
      checkRuleBody(
        'create',
        body({
          ruleConfig: { metric: 'errRate', operator: 'GREATER_THAN', threshold: 5 },
          notificationChannels: ['slack'],
          notificationConfig: { slack: { webhookUrl: 'gopher://x' } },
        }),
      ),
    ),
    {
      ruleConfig: "Metric 'errRate' not found. Did you mean 'errorRate'?",
      'notificationConfig.slack.webhookUrl':
        "notificationConfig.slack.webhookUrl must use http or https, not 'gopher'",
    },
    'reported with the other content problems',
  );
  t.same(
    errorsOf(
      checkRuleBody(
        'create',
        body({
          notificationChannels: ['slack'],
          notificationConfig: { slack: { webhookUrl: 'gopher://x', channel: 'a\u0000' } },
        }),
      ),
    ),
    { 'notificationConfig.slack.channel': 'must not contain the NUL character (U+0000)' },
    'text that cannot be stored is reported first, alone',
  );
  t.end();
});

t.test('checkRuleBody update: merged onto the stored rule', (t) => {
  const stored = {
    ruleType: 'THRESHOLD' as const,
    ruleConfig: { metric: 'errorRate', operator: 'GREATER_THAN', threshold: 5, windowMinutes: 5 },
    notificationChannels: ['email'] as NotificationChannel[],
    notificationConfig: { email: { to: 'ops@example.com' } },
  };
  t.same(checkRuleBody('update', { priority: 2 }, stored), { ok: true, value: { priority: 2 } });
  t.same(
    errorsOf(checkRuleBody('update', { notificationChannels: ['email', 'slack'] }, stored)),
    {
      'notificationConfig.slack.webhookUrl':
        'notificationConfig.slack.webhookUrl is required when notificationChannels includes slack',
    },
    'a new channel needs its section in the stored config',
  );
  t.same(
    errorsOf(checkRuleBody('update', { notificationConfig: null }, stored)),
    {
      'notificationConfig.email.to':
        'notificationConfig.email.to is required when notificationChannels includes email',
    },
    'clearing the config while a channel needs it',
  );
  t.same(checkRuleBody('update', { notificationChannels: [], notificationConfig: null }, stored), {
    ok: true,
    value: { notificationChannels: [], notificationConfig: null },
  });
  t.same(
    checkRuleBody(
      'update',
      {
        notificationConfig: {
          email: { to: 'b@example.com' },
          slack: { webhookUrl: 'https://x.test' },
        },
      },
      stored,
    ).ok,
    true,
    'a new config checked against the stored channels',
  );
  t.same(
    errorsOf(checkRuleBody('update', { notificationConfig: { email: { to: 'x' } } }, stored)),
    {
      'notificationConfig.email.to':
        'notificationConfig.email.to must be an e-mail address like ops@example.com',
    },
  );
  const legacy = { ...stored, notificationConfig: { email: { to: 'not an address' } } };
  t.same(
    checkRuleBody('update', { name: 'renamed' }, legacy),
    { ok: true, value: { name: 'renamed' } },
    'a stored config is only checked when the update touches channels or config',
  );
  const bare = { ruleType: stored.ruleType, ruleConfig: stored.ruleConfig };
  t.same(
    errorsOf(checkRuleBody('update', { notificationChannels: ['webhook'] }, bare)),
    {
      'notificationConfig.webhook.url':
        'notificationConfig.webhook.url is required when notificationChannels includes webhook',
    },
    'a stored rule without channels / config: none',
  );
  t.end();
});
