// Notification settings: what a contact point of each type holds (valid settings, each missing
// key, URLs, headers, unknown keys), what a rule's notificationConfig may add (non-secret keys
// only; a secret is refused with where it goes instead), how they merge, and the hook into
// checkRuleBody for create and update.
import t from 'tap';
import {
  channelConfig,
  contactPointSettingsErrors,
  MAX_HEADERS,
  mergeChannelSettings,
  notificationConfigErrors,
} from '../../../src/domain/rules/alerts/notification-config.ts';
import type { NotificationChannel } from '../../../src/domain/rules/rule-types.ts';
import { checkRuleBody } from '../../../src/schemas/rule.ts';
import { ruleRequest as body, ruleErrors as errorsOf } from '../../support/rules.ts';

const settings = {
  webhook: {
    url: 'https://hooks.example.com/vigil',
    headers: { Authorization: 'Bearer x' },
    timeoutMs: 2000,
  },
  slack: { webhookUrl: 'https://hooks.slack.com/services/T0/B0/xyz', channel: '#ops' },
  email: { to: ['ops@example.com', 'oncall@example.org'], subject: 'Vigil alert' },
};
/** Every key a rule may set, per type. */
const ruleConfig = {
  webhook: { timeoutMs: 5000, template: '{ruleName}: {message}' },
  slack: { channel: '#alerts', template: ':rotating_light: {severity} {conditions}' },
  email: { to: 'extra@example.com', subject: 'Vigil says', template: 'See {ruleId}\n{message}' },
};

t.test('valid contact point settings', (t) => {
  const valid: readonly (readonly [string, NotificationChannel, unknown])[] = [
    ['every webhook key', 'webhook', settings.webhook],
    ['every slack key', 'slack', settings.slack],
    ['every email key', 'email', settings.email],
    ['minimal webhook', 'webhook', { url: 'http://10.0.0.5:8080/hook' }],
    ['minimal slack', 'slack', { webhookUrl: 'https://hooks.slack.com/x' }],
    ['email to one address', 'email', { to: 'ops@example.com' }],
    ['empty headers', 'webhook', { url: 'https://x.test', headers: {} }],
  ];
  for (const [name, type, value] of valid) {
    t.same(contactPointSettingsErrors(type, value), {}, name);
  }
  t.end();
});

t.test('contact point settings: the required key of each type', (t) => {
  t.same(contactPointSettingsErrors('webhook', { headers: { A: 'b' } }), {
    'settings.url': 'settings.url is required',
  });
  t.same(contactPointSettingsErrors('slack', { channel: '#ops' }), {
    'settings.webhookUrl': 'settings.webhookUrl is required',
  });
  t.same(contactPointSettingsErrors('email', null), { 'settings.to': 'settings.to is required' });
  t.end();
});

t.test('contact point settings: bad values', (t) => {
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
        'settings.url': "settings.url must use http or https, not 'ftp'",
      },
    ],
    [
      'file URL',
      'slack',
      { webhookUrl: 'file:///etc/passwd' },
      {
        'settings.webhookUrl': "settings.webhookUrl must use http or https, not 'file'",
      },
    ],
    [
      'javascript URL',
      'webhook',
      { url: 'javascript:alert(1)' },
      {
        'settings.url': "settings.url must use http or https, not 'javascript'",
      },
    ],
    [
      'relative URL',
      'webhook',
      { url: '/hook' },
      {
        'settings.url': 'settings.url must be an absolute http or https URL',
      },
    ],
    [
      'URL not a string',
      'webhook',
      { url: 42 },
      {
        'settings.url': 'settings.url must be a string (an http or https URL)',
      },
    ],
    [
      'URL with credentials',
      'webhook',
      { url: 'https://user:pw@x.test/' },
      {
        'settings.url': 'settings.url must not contain a user name or password',
      },
    ],
    [
      'URL too long',
      'slack',
      { webhookUrl: `https://x.test/${'a'.repeat(2048)}` },
      {
        'settings.webhookUrl': 'settings.webhookUrl must be at most 2048 characters',
      },
    ],
    [
      'section not an object',
      'webhook',
      'https://x.test',
      {
        settings: 'settings must be an object { url, headers?, timeoutMs?, template? }',
      },
    ],
    [
      'section an array',
      'email',
      ['a@b.c'],
      {
        settings: 'settings must be an object { to, subject?, template? }',
      },
    ],
    [
      'headers not an object',
      'webhook',
      { url: 'https://x.test', headers: ['A: b'] },
      {
        'settings.headers':
          'settings.headers must be an object mapping header names to string values',
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
        'settings.headers': `settings.headers must hold at most ${MAX_HEADERS} headers`,
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
        'settings.headers.X-N': 'settings.headers.X-N must be a string',
        'settings.headers.Bad Name':
          "settings.headers.Bad Name: 'Bad Name' is not a valid header name",
        'settings.headers.Host':
          'settings.headers.Host cannot be set: Vigil or the HTTP client sets it',
        'settings.headers.X-Emoji':
          'settings.headers.X-Emoji must hold only Latin-1 characters (HTTP header values are bytes)',
        'settings.headers.X-Inject':
          'settings.headers.X-Inject must not contain line breaks or control characters',
      },
    ],
    [
      'timeoutMs out of range',
      'webhook',
      { url: 'https://x.test', timeoutMs: 50 },
      {
        'settings.timeoutMs': 'settings.timeoutMs must be an integer from 100 to 60000',
      },
    ],
    [
      'timeoutMs not an integer',
      'webhook',
      { url: 'https://x.test', timeoutMs: '1000' },
      {
        'settings.timeoutMs': 'settings.timeoutMs must be an integer from 100 to 60000',
      },
    ],
    [
      'slack channel empty',
      'slack',
      { webhookUrl: 'https://x.test', channel: '' },
      {
        'settings.channel': 'settings.channel must be a string of 1 to 255 characters',
      },
    ],
    [
      'email to not an address',
      'email',
      { to: 'ops' },
      {
        'settings.to': 'settings.to must be an e-mail address like ops@example.com',
      },
    ],
    [
      'email to with a display name or a list',
      'email',
      { to: ['Ops <ops@x.test>', 'a@x.test, b@x.test', 'ok@x.test'] },
      {
        'settings.to.0': 'settings.to.0 must be an e-mail address like ops@example.com',
        'settings.to.1': 'settings.to.1 must be an e-mail address like ops@example.com',
      },
    ],
    [
      'email to empty array',
      'email',
      { to: [] },
      {
        'settings.to': 'settings.to must be an e-mail address or an array of 1 to 50 addresses',
      },
    ],
    [
      'email subject with a line break',
      'email',
      { to: 'a@x.test', subject: 'a\nBcc: evil@x.test' },
      {
        'settings.subject': 'settings.subject must not contain line breaks or control characters',
      },
    ],
  ];
  for (const [name, channel, section, errors] of cases) {
    t.same(contactPointSettingsErrors(channel, section), errors, name);
  }
  t.end();
});

t.test('contact point settings: unknown keys are named', (t) => {
  t.same(
    contactPointSettingsErrors('webhook', { url: 'https://x.test', method: 'PUT', retries: 3 }),
    {
      'settings.method':
        "Unknown key 'method' in settings (allowed: url, headers, timeoutMs, template)",
      'settings.retries':
        "Unknown key 'retries' in settings (allowed: url, headers, timeoutMs, template)",
    },
  );
  t.end();
});

t.test('a rule config holds non-secret settings only, all optional', (t) => {
  t.same(notificationConfigErrors(null), {}, 'null');
  t.same(notificationConfigErrors(undefined), {}, 'absent');
  t.same(notificationConfigErrors({}), {}, 'empty');
  t.same(notificationConfigErrors(ruleConfig), {}, 'every key a rule may set');
  t.same(notificationConfigErrors({ slack: { channel: '#alerts' } }), {}, 'the issue 17 example');
  t.same(notificationConfigErrors({ slack: {} }), {}, 'an empty section');
  t.same(notificationConfigErrors('x'), {
    notificationConfig: 'notificationConfig must be an object or null',
  });
  t.same(notificationConfigErrors({ email: { cc: 'b@x.test' }, pagerduty: { key: 'k' } }), {
    'notificationConfig.pagerduty':
      "Unknown channel 'pagerduty' in notificationConfig (allowed: email, slack, webhook)",
    'notificationConfig.email.cc':
      "Unknown key 'cc' in notificationConfig.email (allowed: to, subject, template)",
  });
  t.same(
    notificationConfigErrors({ email: { to: 'x' }, webhook: { timeoutMs: 5 } }),
    {
      'notificationConfig.email.to':
        'notificationConfig.email.to must be an e-mail address like ops@example.com',
      'notificationConfig.webhook.timeoutMs':
        'notificationConfig.webhook.timeoutMs must be an integer from 100 to 60000',
    },
    'values are checked as in a contact point',
  );
  t.end();
});

t.test('templates: known placeholders only', (t) => {
  t.same(
    notificationConfigErrors({
      slack: { template: 'Hi {rulename}' },
      email: { template: '' },
      webhook: { template: 'a\u0007b' },
    }),
    {
      'notificationConfig.slack.template':
        'notificationConfig.slack.template: unknown placeholder {rulename} (known: ruleName, ruleId, ruleVersion, severity, triggeredAt, conditions, message, alertId). Did you mean {ruleName}?',
      'notificationConfig.email.template':
        'notificationConfig.email.template must be a string of 1 to 2000 characters',
      'notificationConfig.webhook.template':
        'notificationConfig.webhook.template must not contain control characters other than line breaks and tabs',
    },
  );
  t.same(contactPointSettingsErrors('slack', { webhookUrl: 'https://x.test', template: '{x}' }), {
    'settings.template':
      'settings.template: unknown placeholder {x} (known: ruleName, ruleId, ruleVersion, severity, triggeredAt, conditions, message, alertId)',
  });
  t.end();
});

t.test('a secret in a rule config is refused with where it goes instead', (t) => {
  const errors = notificationConfigErrors({
    webhook: { url: 'https://x.test', headers: { A: 'b' } },
    slack: { webhookUrl: 'https://hooks.slack.com/services/T/B/x', channel: '#ops' },
  });
  t.same(Object.keys(errors).sort(), [
    'notificationConfig.slack.webhookUrl',
    'notificationConfig.webhook.headers',
    'notificationConfig.webhook.url',
  ]);
  t.match(
    errors['notificationConfig.slack.webhookUrl'],
    /^notificationConfig\.slack\.webhookUrl cannot be set in a rule: it belongs to a contact point .*POST \/api\/v1\/contact-points .*slack:<name>$/,
  );
  t.notMatch(JSON.stringify(errors), /hooks\.slack\.com|x\.test/, 'no message repeats the secret');
  t.end();
});

t.test('mergeChannelSettings: the rule over the contact point', (t) => {
  t.same(mergeChannelSettings('slack', settings.slack, ruleConfig), {
    webhookUrl: settings.slack.webhookUrl,
    channel: '#alerts',
    template: ruleConfig.slack.template,
  });
  t.same(mergeChannelSettings('webhook', settings.webhook, ruleConfig), {
    ...settings.webhook,
    ...ruleConfig.webhook,
  });
  t.same(
    mergeChannelSettings('email', settings.email, {
      email: { to: ['oncall@example.org', 'extra@example.com'], subject: 's' },
    }),
    { to: ['ops@example.com', 'oncall@example.org', 'extra@example.com'], subject: 's' },
    'extra recipients are added, each once',
  );
  t.same(mergeChannelSettings('slack', settings.slack, null), settings.slack, 'no rule config');
  t.same(
    mergeChannelSettings('slack', settings.slack, { slack: { webhookUrl: 'https://evil.test' } }),
    settings.slack,
    'a key a rule may not set is never merged (a row edited in the database)',
  );
  t.end();
});

t.test('channelConfig: merged settings checked again before a delivery', (t) => {
  t.same(channelConfig('slack', settings.slack), { ok: true, value: settings.slack });
  t.same(channelConfig('email', {}), {
    ok: false,
    errors: { 'settings.to': 'settings.to is required' },
  });
  t.end();
});

t.test('checkRuleBody create: channel entries and the rule config', (t) => {
  t.match(
    checkRuleBody(
      'create',
      body({
        notificationChannels: ['email', 'slack:oncall', 'webhook:ops.hook-1'],
        notificationConfig: ruleConfig,
      }),
    ),
    {
      ok: true,
      value: {
        notificationChannels: ['email', 'slack:oncall', 'webhook:ops.hook-1'],
        notificationConfig: ruleConfig,
      },
    },
  );
  t.same(
    checkRuleBody('create', body({ notificationChannels: ['slack'] })).ok,
    true,
    'a channel without any config (its contact point has everything)',
  );
  t.same(
    errorsOf(checkRuleBody('create', body({ notificationChannels: ['slak', 'sms', 'slack:'] }))),
    {
      'notificationChannels.0':
        "notificationChannels.0: 'slak' is not a channel type (email, slack, webhook) for its default contact point, or <type>:<contact point name> (e.g. slack:oncall). Did you mean 'slack'?",
      'notificationChannels.1':
        "notificationChannels.1: 'sms' is not a channel type (email, slack, webhook) for its default contact point, or <type>:<contact point name> (e.g. slack:oncall).",
      'notificationChannels.2':
        "notificationChannels.2: the contact point name after 'slack:' must be 1 to 100 letters, digits, '_', '.' or '-', starting with a letter or digit",
    },
  );
  t.same(errorsOf(checkRuleBody('create', body({ notificationChannels: ['slack', 'slack'] }))), {
    notificationChannels: 'notificationChannels must not list a channel twice',
  });
  t.same(
    errorsOf(
      checkRuleBody(
        'create',
        body({
          name: '',
          notificationChannels: ['slack'],
          notificationConfig: { slack: { webhookUrl: 'https://x.test' } },
        }),
      ),
    ),
    { name: 'name must be a string of 1 to 255 characters' },
    'schema errors first, as for ruleConfig',
  );
  t.match(
    errorsOf(
      checkRuleBody(
        'create',
        body({
          ruleConfig: { metric: 'errRate', operator: 'GREATER_THAN', threshold: 5 },
          notificationChannels: ['slack'],
          notificationConfig: { slack: { webhookUrl: 'https://x.test' } },
        }),
      ),
    ),
    {
      ruleConfig: "Metric 'errRate' not found. Did you mean 'errorRate'?",
      'notificationConfig.slack.webhookUrl': /belongs to a contact point/,
    },
    'reported with the other content problems',
  );
  t.same(
    errorsOf(
      checkRuleBody(
        'create',
        body({
          notificationChannels: ['slack'],
          notificationConfig: { slack: { channel: 'a\u0000' } },
        }),
      ),
    ),
    { 'notificationConfig.slack.channel': 'must not contain the NUL character (U+0000)' },
    'text that cannot be stored is reported first, alone',
  );
  t.end();
});

t.test('checkRuleBody update: the config checked when given', (t) => {
  const stored = {
    ruleType: 'THRESHOLD' as const,
    ruleConfig: { metric: 'errorRate', operator: 'GREATER_THAN', threshold: 5, windowMinutes: 5 },
    notificationChannels: ['email'],
    notificationConfig: { email: { subject: 's' } },
  };
  t.same(checkRuleBody('update', { priority: 2 }, stored), { ok: true, value: { priority: 2 } });
  t.same(
    checkRuleBody('update', { notificationChannels: ['email', 'slack:oncall'] }, stored),
    { ok: true, value: { notificationChannels: ['email', 'slack:oncall'] } },
    'a new channel needs no config',
  );
  t.same(checkRuleBody('update', { notificationConfig: null }, stored), {
    ok: true,
    value: { notificationConfig: null },
  });
  t.match(
    errorsOf(
      checkRuleBody(
        'update',
        { notificationConfig: { webhook: { url: 'https://x.test' } } },
        stored,
      ),
    ),
    { 'notificationConfig.webhook.url': /belongs to a contact point/ },
  );
  t.end();
});
