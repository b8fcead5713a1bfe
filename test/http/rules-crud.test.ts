// Rule CRUD over HTTP against PostgreSQL (spec 2.5-2.7, 4.2, 7; DESIGN 6, 7): create with its
// defaults, every 400 of the one validator, 404, 409 on create and rename (also under a race), the
// PUT semantics (partial, version, DRL regeneration) and delete.
import t from 'tap';
import { expectError } from '../support/events.ts';
import {
  LOCAL_DATE_TIME,
  ruleBody,
  rulesApi,
  sha256,
  storedRow,
  storedTimes,
  without,
} from '../support/rules.ts';
import { storeLegacyRule } from '../support/legacy-rules.ts';
import { startTestService } from '../support/service.ts';

const svc = await startTestService(t);
const api = rulesApi(svc);

let seq = 0;
const uniqueName = (prefix: string): string => `${prefix} ${++seq}`;

/** Sets updated_at far in the past, so that "unchanged" and "changed" need no clock. */
const OLD = '2020-01-02T03:04:05.678';
const ageRule = async (id: number): Promise<void> => {
  await svc.db.sql`UPDATE rules SET updated_at = ${OLD + 'Z'}::timestamptz WHERE id = ${id}`;
};

const storedConfig = async (id: number): Promise<unknown> => {
  const [row] = await svc.db.sql<{ rule_config: unknown }[]>`
    SELECT rule_config FROM rules WHERE id = ${id}`;
  return row?.rule_config;
};

void t.test(
  'create: 201 with status ACTIVE, version 1, triggerCount 0 and every default',
  async (t) => {
    const rule = await api.create(ruleBody('High error rate'));
    t.match(rule, {
      name: 'High error rate',
      description: null,
      ruleType: 'THRESHOLD',
      status: 'ACTIVE',
      severity: 'HIGH',
      priority: 0,
      notificationConfig: null,
      suppressionWindowMinutes: 30,
      maxAlertsPerHour: 10,
      createdBy: null,
      lastTriggeredAt: null,
      triggerCount: 0,
      version: 1,
    });
    t.same(rule.notificationChannels, []);
    t.same(
      rule.ruleConfig,
      { metric: 'errorRate', operator: 'GREATER_THAN', threshold: 50, windowMinutes: 5 },
      'windowMinutes defaults to 5 in the answer',
    );
    t.same(
      await storedConfig(rule.id),
      { metric: 'errorRate', operator: 'GREATER_THAN', threshold: 50, windowMinutes: 5 },
      'the default windowMinutes is written into the stored ruleConfig',
    );
    t.match(rule.createdAt, LOCAL_DATE_TIME);
    t.equal(rule.updatedAt, rule.createdAt, 'updatedAt = createdAt on creation');
    t.same(await storedTimes(svc.db, rule.id), {
      createdAt: rule.createdAt,
      updatedAt: rule.updatedAt,
      lastTriggeredAt: null,
    });
    t.equal(rule.drlHash, sha256(rule.generatedDrl), 'drlHash is the SHA-256 of generatedDrl');
    t.match(rule.generatedDrl, /@ruleId\(\d+\)/);
    t.ok(rule.generatedDrl.includes(`@ruleId(${rule.id})`), 'the DRL holds the id');
    t.match(rule.generatedDrl, /^\s*salience 0$/m);
    t.match(rule.generatedDrl, /\$m\.value\("errorRate", 5\) > 50\.0/);
    t.same(await api.get(rule.id), rule, 'GET returns what create answered');
  },
);

void t.test('create: every optional field is stored and returned as sent', async (t) => {
  const body = ruleBody('Checkout failures', {
    description: 'Too many failed checkouts',
    ruleType: 'THRESHOLD',
    ruleConfig: {
      logicalOperator: 'AND',
      windowMinutes: 15,
      conditions: [
        {
          metric: 'eventsByType[checkout.failed]',
          operator: 'GREATER_THAN_OR_EQUAL',
          threshold: 3,
        },
        {
          logicalOperator: 'NOT',
          conditions: [
            { metric: 'latencyP95', operator: 'LESS_THAN', threshold: 20, windowMinutes: 60 },
          ],
        },
      ],
    },
    severity: 'CRITICAL',
    priority: -7,
    notificationChannels: ['slack', 'email', 'webhook:ops'],
    notificationConfig: {
      slack: { channel: '#ops' },
      email: { to: ['a@example.com', 'b@example.com'], subject: 'Checkout' },
      webhook: { timeoutMs: 3000 },
    },
    suppressionWindowMinutes: 0,
    maxAlertsPerHour: 1,
    createdBy: 'alice',
  });
  const rule = await api.create(body);
  t.match(rule, {
    description: 'Too many failed checkouts',
    severity: 'CRITICAL',
    priority: -7,
    suppressionWindowMinutes: 0,
    maxAlertsPerHour: 1,
    createdBy: 'alice',
  });
  t.same(rule.notificationChannels, ['slack', 'email', 'webhook:ops']);
  t.same(rule.notificationConfig, body.notificationConfig);
  const normalised = {
    logicalOperator: 'AND',
    windowMinutes: 15,
    conditions: [
      {
        metric: 'eventsByType[checkout.failed]',
        operator: 'GREATER_THAN_OR_EQUAL',
        threshold: 3,
        windowMinutes: 15,
      },
      {
        logicalOperator: 'NOT',
        conditions: [
          { metric: 'latencyP95', operator: 'LESS_THAN', threshold: 20, windowMinutes: 60 },
        ],
      },
    ],
  };
  t.same(rule.ruleConfig, normalised, 'every leaf carries its effective window');
  t.same(await storedConfig(rule.id), normalised, 'stored normalised');
  t.match(rule.generatedDrl, /^\s*salience -7$/m);
  t.match(rule.generatedDrl, /"CRITICAL"/);
  t.same(await api.get(rule.id), rule);
});

void t.test('create: RATE_CHANGE', async (t) => {
  const rate = await api.create(
    ruleBody(uniqueName('rate'), {
      ruleType: 'RATE_CHANGE',
      ruleConfig: { metric: 'totalEvents', operator: 'GREATER_THAN', threshold: 200 },
    }),
  );
  t.same(rate.ruleConfig, {
    metric: 'totalEvents',
    operator: 'GREATER_THAN',
    threshold: 200,
    windowMinutes: 5,
  });
  t.match(rate.generatedDrl, /percentChange\("totalEvents", 5\) > 200\.0/);
});

void t.test('create: 400 with errors naming each invalid field', async (t) => {
  const base = ruleBody('valid name');
  const cases: [string, Record<string, unknown>, Record<string, string>][] = [
    ['name missing', { name: undefined }, { name: 'name is required' }],
    ['name empty', { name: '' }, { name: 'name must be a string of 1 to 255 characters' }],
    [
      'name too long',
      { name: 'x'.repeat(256) },
      { name: 'name must be a string of 1 to 255 characters' },
    ],
    ['name a number', { name: 42 }, { name: 'name must be a string of 1 to 255 characters' }],
    [
      'description a number',
      { description: 1 },
      { description: 'description must be a string of at most 2000 characters, or null' },
    ],
    [
      'description too long',
      { description: 'd'.repeat(2001) },
      { description: 'description must be a string of at most 2000 characters, or null' },
    ],
    [
      'name of 256 characters, each two UTF-16 units',
      { name: '😀'.repeat(256) },
      { name: 'name must be a string of 1 to 255 characters' },
    ],
    ['ruleType missing', { ruleType: undefined }, { ruleType: 'ruleType is required' }],
    [
      'ruleType lower case',
      { ruleType: 'threshold' },
      { ruleType: 'ruleType must be one of THRESHOLD, RATE_CHANGE, ANOMALY, PATTERN' },
    ],
    ['ruleConfig missing', { ruleConfig: undefined }, { ruleConfig: 'ruleConfig is required' }],
    ['ruleConfig an array', { ruleConfig: [] }, { ruleConfig: 'ruleConfig must be an object' }],
    [
      'ruleConfig a string',
      { ruleConfig: 'x > 1' },
      { ruleConfig: 'ruleConfig must be an object' },
    ],
    ['severity missing', { severity: undefined }, { severity: 'severity is required' }],
    [
      'severity unknown',
      { severity: 'SEVERE' },
      { severity: 'severity must be one of LOW, MEDIUM, HIGH, CRITICAL' },
    ],
    [
      'priority a fraction',
      { priority: 1.5 },
      { priority: 'priority must be an integer from -2147483648 to 2147483647' },
    ],
    [
      'priority a string',
      { priority: '1' },
      { priority: 'priority must be an integer from -2147483648 to 2147483647' },
    ],
    [
      'priority beyond int32',
      { priority: 2147483648 },
      { priority: 'priority must be an integer from -2147483648 to 2147483647' },
    ],
    [
      'notificationChannels unknown channel',
      { notificationChannels: ['email', 'sms'] },
      {
        'notificationChannels.1':
          "notificationChannels.1: 'sms' is not a channel type (email, slack, webhook) for its default contact point, or <type>:<contact point name> (e.g. slack:oncall).",
      },
    ],
    [
      'notificationChannels twice',
      { notificationChannels: ['email', 'email'] },
      { notificationChannels: 'notificationChannels must not list a channel twice' },
    ],
    [
      'notificationChannels a string',
      { notificationChannels: 'email' },
      {
        notificationChannels:
          'notificationChannels must be an array of at most 20 distinct entries, each a channel type (email, slack, webhook) for its default contact point, or <type>:<contact point name> (e.g. slack:oncall)',
      },
    ],
    [
      'notificationConfig an array',
      { notificationConfig: [] },
      { notificationConfig: 'notificationConfig must be an object or null' },
    ],
    [
      'notificationConfig a string',
      { notificationConfig: 'slack' },
      { notificationConfig: 'notificationConfig must be an object or null' },
    ],
    [
      'a secret in notificationConfig (it belongs to a contact point)',
      {
        notificationChannels: ['slack'],
        notificationConfig: { slack: { webhookUrl: 'https://h.example/x' } },
      },
      {
        'notificationConfig.slack.webhookUrl':
          'notificationConfig.slack.webhookUrl cannot be set in a rule: it belongs to a contact point (secrets never go in a rule). Create one with POST /api/v1/contact-points { "type": "slack", "settings": { "webhookUrl": … } } and name it in notificationChannels as slack (the default) or slack:<name>',
      },
    ],
    [
      'suppressionWindowMinutes negative',
      { suppressionWindowMinutes: -1 },
      {
        suppressionWindowMinutes:
          'suppressionWindowMinutes must be an integer from 0 to 10080 (0 = no suppression)',
      },
    ],
    [
      'suppressionWindowMinutes over a week',
      { suppressionWindowMinutes: 10081 },
      {
        suppressionWindowMinutes:
          'suppressionWindowMinutes must be an integer from 0 to 10080 (0 = no suppression)',
      },
    ],
    [
      'maxAlertsPerHour over one a second',
      { maxAlertsPerHour: 3601 },
      { maxAlertsPerHour: 'maxAlertsPerHour must be an integer from 1 to 3600' },
    ],
    [
      'maxAlertsPerHour 0',
      { maxAlertsPerHour: 0 },
      { maxAlertsPerHour: 'maxAlertsPerHour must be an integer from 1 to 3600' },
    ],
    [
      'maxAlertsPerHour a fraction',
      { maxAlertsPerHour: 2.5 },
      { maxAlertsPerHour: 'maxAlertsPerHour must be an integer from 1 to 3600' },
    ],
    [
      'createdBy too long',
      { createdBy: 'x'.repeat(256) },
      { createdBy: 'createdBy must be a string of at most 255 characters, or null' },
    ],
    [
      'createdBy a number',
      { createdBy: 7 },
      { createdBy: 'createdBy must be a string of at most 255 characters, or null' },
    ],
    ['unknown field', { colour: 'red' }, { colour: 'colour is not a known field' }],
    [
      'status',
      { status: 'PAUSED' },
      {
        status:
          'status cannot be set here: use POST /api/v1/rules/{id}/enable, /disable or /archive',
      },
    ],
    ['id', { id: 5 }, { id: 'id is assigned by the service and cannot be set' }],
    [
      'version',
      { version: 3 },
      { version: 'version is assigned by the service and cannot be set' },
    ],
    [
      'generatedDrl',
      { generatedDrl: 'rule "x" end' },
      { generatedDrl: 'generatedDrl is assigned by the service and cannot be set' },
    ],
    ['NUL in name', { name: 'a\u0000b' }, { name: 'must not contain the NUL character (U+0000)' }],
    [
      'lone surrogate in name',
      { name: 'a\ud800b' },
      { name: 'must not contain an unpaired surrogate (not valid Unicode)' },
    ],
    [
      'NUL deep in notificationConfig',
      {
        notificationConfig: { slack: { channel: '#o\u0000ps' } },
      },
      { 'notificationConfig.slack.channel': 'must not contain the NUL character (U+0000)' },
    ],
  ];
  const before = (await api.list()).length;
  for (const [label, change, errors] of cases) {
    const body: Record<string, unknown> = { ...base, ...change };
    for (const [k, v] of Object.entries(change)) if (v === undefined) delete body[k];
    const res = await api.send('POST', '', body);
    const error = await expectError(t, res, 400, 'VALIDATION_FAILED', Object.keys(errors));
    t.same(error.errors, errors, label);
  }
  t.equal((await api.list()).length, before, 'nothing was stored');
  t.equal(
    (await svc.db.sql`SELECT 1 FROM rules WHERE name = 'valid name'`).length,
    0,
    'not even the valid name',
  );
});

void t.test('create: several invalid fields are all reported at once', async (t) => {
  const res = await api.send('POST', '', {
    name: '',
    ruleType: 'NOPE',
    ruleConfig: {},
    severity: 'LOW',
    priority: 'high',
    extra: true,
  });
  const error = await expectError(t, res, 400, 'VALIDATION_FAILED', [
    'name',
    'ruleType',
    'priority',
    'extra',
  ]);
  t.equal(error.message, 'Validation failed');
});

void t.test('create: 400 for a body that is not a JSON object, 415 for another type', async (t) => {
  const array = await expectError(t, await api.send('POST', '', []), 400, 'VALIDATION_FAILED', [
    'body',
  ]);
  t.same(array.errors, { body: 'must be a JSON object' });
  for (const body of ['text', 42, null]) {
    const res = await api.send('POST', '', body);
    const error = await expectError(t, res, 400, 'MALFORMED_JSON');
    t.equal(error.message, 'Request body must be a JSON object', JSON.stringify(body));
  }
  const empty = await svc.request('/api/v1/rules', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
  });
  await expectError(t, empty, 400, 'MALFORMED_JSON');
  const malformed = await svc.request('/api/v1/rules', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: '{"name": ',
  });
  await expectError(t, malformed, 400, 'MALFORMED_JSON');
  const text = await svc.request('/api/v1/rules', {
    method: 'POST',
    headers: { 'content-type': 'text/plain' },
    body: JSON.stringify(ruleBody(uniqueName('text'))),
  });
  await expectError(t, text, 415, 'UNSUPPORTED_MEDIA_TYPE');
});

/** Each bad ruleConfig and the exact messages of the one validator, in order. */
const BAD_CONFIGS: [string, string, unknown, string[]][] = [
  [
    'operator with a suggestion',
    'THRESHOLD',
    { metric: 'errorRate', operator: 'GREATER', threshold: 50 },
    ["Invalid operator 'GREATER'. Did you mean 'GREATER_THAN'?"],
  ],
  [
    'operator symbol',
    'THRESHOLD',
    { metric: 'errorRate', operator: '>=', threshold: 50 },
    ["Invalid operator '>='. Did you mean 'GREATER_THAN_OR_EQUAL'?"],
  ],
  [
    'metric with a suggestion',
    'THRESHOLD',
    { metric: 'errRate', operator: 'GREATER_THAN', threshold: 50 },
    ["Metric 'errRate' not found. Did you mean 'errorRate'?"],
  ],
  [
    'severity key with a suggestion',
    'THRESHOLD',
    { metric: 'eventsBySeverity[EROR]', operator: 'GREATER_THAN', threshold: 1 },
    ["Metric 'eventsBySeverity[EROR]' not found. Did you mean 'eventsBySeverity[ERROR]'?"],
  ],
  [
    'indexed metric without its key',
    'THRESHOLD',
    { metric: 'eventsByType', operator: 'GREATER_THAN', threshold: 1 },
    ["Metric 'eventsByType' needs a key, as in eventsByType[<key>]"],
  ],
  [
    'numeric string threshold',
    'THRESHOLD',
    { metric: 'errorRate', operator: 'GREATER_THAN', threshold: '50' },
    ['Invalid threshold type: expected a number, got string "50"'],
  ],
  [
    'missing property',
    'THRESHOLD',
    { metric: 'errorRate', threshold: 50 },
    ["Missing required property 'operator'"],
  ],
  [
    'misspelt property',
    'THRESHOLD',
    { metric: 'errorRate', operator: 'GREATER_THAN', treshold: 50 },
    [
      "Unknown property 'treshold'. Did you mean 'threshold'?",
      "Missing required property 'threshold'",
    ],
  ],
  [
    'window 0',
    'THRESHOLD',
    { metric: 'errorRate', operator: 'GREATER_THAN', threshold: 50, windowMinutes: 0 },
    ['Invalid windowMinutes 0: must be an integer from 1 to 1440'],
  ],
  [
    'three problems in one leaf, in order',
    'THRESHOLD',
    { metric: 'errRate', operator: 'GREATER', threshold: '50' },
    [
      "Metric 'errRate' not found. Did you mean 'errorRate'?",
      "Invalid operator 'GREATER'. Did you mean 'GREATER_THAN'?",
      'Invalid threshold type: expected a number, got string "50"',
    ],
  ],
  [
    'nested condition, named by its path',
    'THRESHOLD',
    {
      logicalOperator: 'OR',
      conditions: [
        { metric: 'errorRate', operator: 'GREATER_THAN', threshold: 1 },
        { metric: 'totalErrors', operator: 'GT', threshold: 1 },
      ],
    },
    ["conditions[1]: Invalid operator 'GT'. Did you mean 'GREATER_THAN'?"],
  ],
  [
    'NOT with two conditions',
    'THRESHOLD',
    {
      logicalOperator: 'NOT',
      conditions: [
        { metric: 'errorRate', operator: 'GREATER_THAN', threshold: 1 },
        { metric: 'errorRate', operator: 'LESS_THAN', threshold: 1 },
      ],
    },
    ['NOT takes exactly one condition, got 2'],
  ],
  [
    'unknown logical operator',
    'THRESHOLD',
    {
      logicalOperator: 'XOR',
      conditions: [{ metric: 'errorRate', operator: 'GREATER_THAN', threshold: 1 }],
    },
    ["Invalid logical operator 'XOR'. Did you mean 'OR'?"],
  ],
  [
    'logical operators in RATE_CHANGE',
    'RATE_CHANGE',
    {
      logicalOperator: 'AND',
      conditions: [{ metric: 'errorRate', operator: 'GREATER_THAN', threshold: 1 }],
    },
    [
      'RATE_CHANGE takes a single condition { metric, operator, threshold, windowMinutes }; logical operators are for THRESHOLD rules',
    ],
  ],
  [
    'RATE_CHANGE window beyond 720',
    'RATE_CHANGE',
    { metric: 'totalEvents', operator: 'GREATER_THAN', threshold: 10, windowMinutes: 721 },
    ['Invalid windowMinutes 721: must be an integer from 1 to 720'],
  ],
];

void t.test('create: a bad ruleConfig is 400 with the exact messages', async (t) => {
  for (const [label, ruleType, ruleConfig, messages] of BAD_CONFIGS) {
    const res = await api.send('POST', '', ruleBody(uniqueName('bad'), { ruleType, ruleConfig }));
    const error = await expectError(t, res, 400, 'VALIDATION_FAILED', ['ruleConfig']);
    t.same(error.errors, { ruleConfig: messages.join('; ') }, label);
  }
});

void t.test(
  'the same bad ruleConfig gives the same messages on create, update and test',
  async (t) => {
    const rule = await api.create(ruleBody(uniqueName('same messages')));
    for (const [label, ruleType, ruleConfig, messages] of BAD_CONFIGS) {
      const put = await api.send('PUT', `/${rule.id}`, { ruleType, ruleConfig });
      const error = await expectError(t, put, 400, 'VALIDATION_FAILED', ['ruleConfig']);
      t.same(error.errors, { ruleConfig: messages.join('; ') }, `update: ${label}`);
      const result = await api.test(ruleBody('test', { ruleType, ruleConfig }));
      t.same(result.validationErrors, messages, `test: ${label}`);
    }
    t.same(await api.get(rule.id), rule, 'no failed update changed the rule');
  },
);

void t.test('404 for an unknown id on every endpoint that takes one', async (t) => {
  const rule = await api.create(ruleBody(uniqueName('exists')));
  // Beyond int4 no rule can have the id: still an unknown id, not a bad request.
  for (const unknown of [rule.id + 1000, 2147483647, 2147483648, '99999999999999999999']) {
    const calls: [string, string, unknown?][] = [
      ['GET', `/${unknown}`],
      ['PUT', `/${unknown}`, { description: 'x' }],
      ['DELETE', `/${unknown}`],
      ['POST', `/${unknown}/enable`],
      ['POST', `/${unknown}/disable`],
      ['POST', `/${unknown}/archive`],
      ['POST', `/test/${unknown}`],
    ];
    for (const [method, path, body] of calls) {
      const res = await api.send(method, path, body);
      const error = await expectError(t, res, 404, 'NOT_FOUND');
      t.equal(error.message, 'Rule not found', `${method} ${path}`);
    }
  }
  t.same(await api.get(rule.id), rule, 'the existing rule is untouched');
});

void t.test('400 for a path id that is not a positive integer', async (t) => {
  for (const id of ['abc', '1.5', '-1', '0', '01', '+1', '1e3', '0x1f', '12abc', ' 1', '%31%32x']) {
    const calls: [string, string, unknown?][] = [
      ['GET', `/${id}`],
      ['PUT', `/${id}`, { description: 'x' }],
      ['DELETE', `/${id}`],
      ['POST', `/${id}/enable`],
      ['POST', `/${id}/disable`],
      ['POST', `/${id}/archive`],
      ['POST', `/test/${id}`],
    ];
    for (const [method, path, body] of calls) {
      const res = await api.send(method, path, body);
      const error = await expectError(t, res, 400, 'VALIDATION_FAILED', ['id']);
      t.same(error.errors, { id: 'id must be a positive integer' }, `${method} ${path}`);
    }
  }
});

void t.test('409 for a duplicate name on create; the first rule is untouched', async (t) => {
  const name = uniqueName('duplicate');
  const first = await api.create(ruleBody(name));
  const res = await api.send('POST', '', ruleBody(name, { severity: 'LOW', priority: 5 }));
  const error = await expectError(t, res, 409, 'CONFLICT');
  t.equal(error.message, 'A rule with this name already exists');
  t.same(await api.get(first.id), first);
  const rows = await svc.db.sql`SELECT id FROM rules WHERE name = ${name}`;
  t.equal(rows.length, 1, 'one row with that name');
});

void t.test('two concurrent creates of one name: exactly one 201 and one 409', async (t) => {
  for (let round = 0; round < 10; round++) {
    const name = uniqueName('race');
    const answers = await Promise.all([
      api.send('POST', '', ruleBody(name)),
      api.send('POST', '', ruleBody(name, { severity: 'LOW' })),
    ]);
    const statuses = answers.map((r) => r.status).sort();
    t.same(statuses, [201, 409], `round ${round}: one created, one conflict`);
    await Promise.all(answers.map((r) => r.arrayBuffer()));
    const rows = await svc.db.sql`SELECT id FROM rules WHERE name = ${name}`;
    t.equal(rows.length, 1, `round ${round}: one row`);
  }
});

void t.test('two rules renamed to one free name at once: one 200, one 409', async (t) => {
  for (let round = 0; round < 5; round++) {
    const first = await api.create(ruleBody(uniqueName('rename race a')));
    const second = await api.create(ruleBody(uniqueName('rename race b')));
    const name = uniqueName('contested');
    const answers = await Promise.all([
      api.send('PUT', `/${first.id}`, { name }),
      api.send('PUT', `/${second.id}`, { name }),
    ]);
    t.same(
      answers.map((r) => r.status).sort(),
      [200, 409],
      `round ${round}: one renamed, one conflict`,
    );
    await Promise.all(answers.map((r) => r.arrayBuffer()));
    const rows = await svc.db.sql`SELECT id FROM rules WHERE name = ${name}`;
    t.equal(rows.length, 1, `round ${round}: one row has the name`);
  }
});

void t.test('409 for a rename via PUT onto another rule’s name; nothing changes', async (t) => {
  const taken = await api.create(ruleBody(uniqueName('taken')));
  const other = await api.create(ruleBody(uniqueName('other')));
  const rowBefore = await storedRow(svc.db, other.id);
  const res = await api.send('PUT', `/${other.id}`, { name: taken.name, description: 'x' });
  const error = await expectError(t, res, 409, 'CONFLICT');
  t.equal(error.message, 'A rule with this name already exists');
  t.same(await storedRow(svc.db, other.id), rowBefore, 'the renamed rule is unchanged');
  t.same(await api.get(taken.id), taken, 'the owner of the name is unchanged');

  const same = await api.put(other.id, { name: other.name });
  t.equal(same.version, other.version, 'renaming a rule to its own name changes nothing');
});

void t.test('PUT is partial: only the fields present change, version +1', async (t) => {
  const rule = await api.create(
    ruleBody(uniqueName('partial'), {
      description: 'before',
      notificationChannels: ['email'],
      notificationConfig: { email: { to: 'ops@example.com' } },
      createdBy: 'bob',
    }),
  );
  await ageRule(rule.id);
  const updated = await api.put(rule.id, { description: 'after' });
  t.equal(updated.description, 'after');
  t.equal(updated.version, 2, 'version +1');
  t.not(updated.updatedAt, OLD, 'updatedAt moves');
  t.match(updated.updatedAt, LOCAL_DATE_TIME);
  t.same((await storedTimes(svc.db, rule.id)).updatedAt, updated.updatedAt);
  const changed = ['description', 'version', 'updatedAt'];
  t.same(without(updated, ...changed), without(rule, ...changed), 'every other field as it was');
  t.equal(updated.createdAt, rule.createdAt);
  t.same(await api.get(rule.id), updated);
});

void t.test(
  'PUT with nothing that differs changes nothing: no version, no updatedAt',
  async (t) => {
    const body = ruleBody(uniqueName('no change'), {
      description: 'same',
      priority: 3,
      notificationChannels: ['slack'],
      notificationConfig: {
        slack: { channel: '#a' },
        email: { subject: 's', to: 'x@example.com' },
      },
      suppressionWindowMinutes: 10,
      maxAlertsPerHour: 4,
      createdBy: 'carol',
    });
    const rule = await api.create(body);
    await ageRule(rule.id);
    const rowBefore = await storedRow(svc.db, rule.id);
    const same: unknown[] = [
      {},
      body,
      { description: 'same', priority: 3 },
      // The same config without its default window: equal once normalised.
      { ruleConfig: { metric: 'errorRate', operator: 'GREATER_THAN', threshold: 50 } },
      {
        ruleConfig: {
          threshold: 50,
          windowMinutes: 5,
          operator: 'GREATER_THAN',
          metric: 'errorRate',
        },
      },
      { ruleType: 'THRESHOLD' },
      {
        notificationConfig: {
          email: { to: 'x@example.com', subject: 's' },
          slack: { channel: '#a' },
        },
      },
      { notificationChannels: ['slack'], suppressionWindowMinutes: 10 },
    ];
    for (const update of same) {
      const answer = await api.put(rule.id, update);
      t.equal(answer.version, 1, `version unchanged for ${JSON.stringify(update)}`);
      t.equal(answer.updatedAt, OLD, 'updatedAt unchanged');
      t.same(await storedRow(svc.db, rule.id), rowBefore, 'the row is byte for byte the same');
    }
  },
);

void t.test('PUT null clears description, notificationConfig and createdBy', async (t) => {
  const rule = await api.create(
    ruleBody(uniqueName('nulls'), {
      description: 'to clear',
      notificationConfig: { email: { to: 'x@example.com' } },
      createdBy: 'dave',
    }),
  );
  const cleared = await api.put(rule.id, { description: null });
  t.equal(cleared.description, null);
  t.equal(cleared.version, 2);
  t.equal(cleared.drlHash, rule.drlHash, 'the description is not in the DRL');
  const all = await api.put(rule.id, { notificationConfig: null, createdBy: null });
  t.equal(all.notificationConfig, null);
  t.equal(all.createdBy, null);
  t.equal(all.version, 3);
  const again = await api.put(rule.id, { description: null, createdBy: null });
  t.equal(again.version, 3, 'clearing what is already null changes nothing');
  const [row] = await svc.db.sql<
    { description: string | null; notification_config: unknown; created_by: string | null }[]
  >`SELECT description, notification_config, created_by FROM rules WHERE id = ${rule.id}`;
  t.same(row, { description: null, notification_config: null, created_by: null }, 'SQL NULLs');

  for (const field of ['name', 'ruleType', 'ruleConfig', 'severity', 'priority']) {
    const res = await api.send('PUT', `/${rule.id}`, { [field]: null });
    await expectError(t, res, 400, 'VALIDATION_FAILED', [field]);
  }
});

void t.test(
  'PUT: name, severity, priority or ruleConfig regenerate the DRL and hash',
  async (t) => {
    let rule = await api.create(ruleBody(uniqueName('regenerate')));
    const changes: [string, Record<string, unknown>, RegExp][] = [
      ['name', { name: uniqueName('renamed') }, /renamed/],
      ['severity', { severity: 'LOW' }, /"LOW"/],
      ['priority', { priority: 42 }, /^\s*salience 42$/m],
      [
        'ruleConfig',
        {
          ruleConfig: {
            metric: 'latencyP99',
            operator: 'GREATER_THAN',
            threshold: 250,
            windowMinutes: 10,
          },
        },
        /\$m\.value\("latencyP99", 10\) > 250\.0/,
      ],
    ];
    for (const [label, change, inDrl] of changes) {
      const updated = await api.put(rule.id, change);
      t.equal(updated.version, rule.version + 1, `${label}: version +1`);
      t.not(updated.generatedDrl, rule.generatedDrl, `${label}: DRL regenerated`);
      t.not(updated.drlHash, rule.drlHash, `${label}: hash changed`);
      t.equal(updated.drlHash, sha256(updated.generatedDrl), `${label}: hash of the new DRL`);
      t.match(updated.generatedDrl, inDrl, `${label}: the DRL says it`);
      const [row] = await svc.db.sql<{ generated_drl: string; drl_hash: string }[]>`
      SELECT generated_drl, drl_hash FROM rules WHERE id = ${rule.id}`;
      t.same(row, { generated_drl: updated.generatedDrl, drl_hash: updated.drlHash }, 'stored');
      rule = updated;
    }
    t.same(rule.ruleConfig, {
      metric: 'latencyP99',
      operator: 'GREATER_THAN',
      threshold: 250,
      windowMinutes: 10,
    });
  },
);

void t.test('PUT: description, channels and throttling keep the DRL and hash', async (t) => {
  let rule = await api.create(ruleBody(uniqueName('keep drl')));
  const changes: Record<string, unknown>[] = [
    { description: 'now described' },
    { notificationConfig: { slack: { channel: '#x' } } },
    { notificationChannels: ['slack'] },
    {
      notificationChannels: ['email', 'slack:oncall'],
      notificationConfig: { slack: { channel: '#y' }, email: { to: 'e@x.org' } },
    },
    { suppressionWindowMinutes: 5 },
    { maxAlertsPerHour: 99 },
    { createdBy: 'erin' },
  ];
  for (const change of changes) {
    const updated = await api.put(rule.id, change);
    t.equal(updated.version, rule.version + 1, `${JSON.stringify(change)}: version +1`);
    t.equal(updated.generatedDrl, rule.generatedDrl, 'same DRL');
    t.equal(updated.drlHash, rule.drlHash, 'same hash');
    rule = updated;
  }
  t.same(rule.notificationChannels, ['email', 'slack:oncall']);
  t.equal(rule.maxAlertsPerHour, 99);
});

void t.test('PUT: a new ruleType revalidates the stored ruleConfig', async (t) => {
  const tree = await api.create(
    ruleBody(uniqueName('tree'), {
      ruleConfig: {
        logicalOperator: 'AND',
        conditions: [{ metric: 'errorRate', operator: 'GREATER_THAN', threshold: 5 }],
      },
    }),
  );
  const res = await api.send('PUT', `/${tree.id}`, { ruleType: 'RATE_CHANGE' });
  const error = await expectError(t, res, 400, 'VALIDATION_FAILED', ['ruleConfig']);
  t.same(error.errors, {
    ruleConfig:
      'RATE_CHANGE takes a single condition { metric, operator, threshold, windowMinutes }; logical operators are for THRESHOLD rules',
  });
  t.same(await api.get(tree.id), tree, 'unchanged');

  const wide = await api.create(
    ruleBody(uniqueName('wide'), {
      ruleConfig: {
        metric: 'totalEvents',
        operator: 'GREATER_THAN',
        threshold: 5,
        windowMinutes: 1000,
      },
    }),
  );
  const tooWide = await api.send('PUT', `/${wide.id}`, { ruleType: 'RATE_CHANGE' });
  const wideError = await expectError(t, tooWide, 400, 'VALIDATION_FAILED', ['ruleConfig']);
  t.same(wideError.errors, {
    ruleConfig: 'Invalid windowMinutes 1000: must be an integer from 1 to 720',
  });

  const leaf = await api.create(ruleBody(uniqueName('leaf')));
  const rate = await api.put(leaf.id, { ruleType: 'RATE_CHANGE' });
  t.equal(rate.ruleType, 'RATE_CHANGE');
  t.equal(rate.version, 2);
  t.same(rate.ruleConfig, leaf.ruleConfig);
  t.match(rate.generatedDrl, /percentChange\("errorRate", 5\)/, 'the DRL follows the type');
  t.not(rate.drlHash, leaf.drlHash);

  // An ANOMALY rule stored before the type had keys can be moved to another type.
  const anomaly = await api.get(
    await storeLegacyRule(svc.db, uniqueName('anomaly'), 'ANOMALY', { sensitivity: 3 }),
  );
  const newConfig = await api.send('PUT', `/${anomaly.id}`, { ruleConfig: { sensitivity: 4 } });
  const newConfigError = await expectError(t, newConfig, 400, 'VALIDATION_FAILED', ['ruleConfig']);
  t.match(newConfigError.errors, {
    ruleConfig: /^Unknown property 'sensitivity'. ANOMALY keys are metric/,
  });
  const toThreshold = await api.send('PUT', `/${anomaly.id}`, { ruleType: 'THRESHOLD' });
  const anomalyError = await expectError(t, toThreshold, 400, 'VALIDATION_FAILED', ['ruleConfig']);
  t.same(anomalyError.errors, {
    ruleConfig:
      "Unknown property 'sensitivity'; Missing required property 'metric'; Missing required property 'operator'; Missing required property 'threshold'",
  });
  const fixed = await api.put(anomaly.id, {
    ruleType: 'THRESHOLD',
    ruleConfig: { metric: 'totalErrors', operator: 'GREATER_THAN', threshold: 10 },
  });
  t.equal(fixed.ruleType, 'THRESHOLD');
  t.same(fixed.ruleConfig, {
    metric: 'totalErrors',
    operator: 'GREATER_THAN',
    threshold: 10,
    windowMinutes: 5,
  });
  // The THRESHOLD config is not an ANOMALY config: the type cannot change alone.
  const back = await api.send('PUT', `/${fixed.id}`, { ruleType: 'ANOMALY' });
  const backError = await expectError(t, back, 400, 'VALIDATION_FAILED', ['ruleConfig']);
  t.match(backError.errors, { ruleConfig: /ANOMALY keys are metric/ });
  t.same(await api.get(fixed.id), fixed, 'unchanged');
});

void t.test('PUT: a changed ruleConfig is normalised and stored with its defaults', async (t) => {
  const rule = await api.create(ruleBody(uniqueName('normalise on put')));
  const updated = await api.put(rule.id, {
    ruleConfig: {
      logicalOperator: 'OR',
      windowMinutes: 30,
      conditions: [
        { metric: 'errorRate', operator: 'GREATER_THAN', threshold: 5 },
        { metric: 'totalErrors', operator: 'GREATER_THAN', threshold: 5, windowMinutes: 2 },
      ],
    },
  });
  const normalised = {
    logicalOperator: 'OR',
    windowMinutes: 30,
    conditions: [
      { metric: 'errorRate', operator: 'GREATER_THAN', threshold: 5, windowMinutes: 30 },
      { metric: 'totalErrors', operator: 'GREATER_THAN', threshold: 5, windowMinutes: 2 },
    ],
  };
  t.same(updated.ruleConfig, normalised);
  t.same(await storedConfig(rule.id), normalised);
});

void t.test('PUT: invalid fields are 400 and change nothing', async (t) => {
  const rule = await api.create(ruleBody(uniqueName('bad put')));
  const rowBefore = await storedRow(svc.db, rule.id);
  const cases: [Record<string, unknown>, string[]][] = [
    [{ name: '' }, ['name']],
    [{ severity: 'HUGE' }, ['severity']],
    [{ status: 'PAUSED' }, ['status']],
    [{ version: 7 }, ['version']],
    [{ triggerCount: 7 }, ['triggerCount']],
    [{ unknown: 1, priority: 0.5 }, ['unknown', 'priority']],
    [{ ruleConfig: { metric: 'errorRate', operator: 'GREATER', threshold: 1 } }, ['ruleConfig']],
    [{ notificationChannels: ['pager'] }, ['notificationChannels.0']],
  ];
  for (const [body, fields] of cases) {
    const res = await api.send('PUT', `/${rule.id}`, body);
    await expectError(t, res, 400, 'VALIDATION_FAILED', fields);
  }
  const notObject = await api.send('PUT', `/${rule.id}`, [1]);
  await expectError(t, notObject, 400, 'VALIDATION_FAILED', ['body']);
  t.same(await storedRow(svc.db, rule.id), rowBefore, 'the row is unchanged');
});

void t.test('PUT leaves the status as it is', async (t) => {
  const rule = await api.create(ruleBody(uniqueName('status kept')));
  await api.action(rule.id, 'disable');
  const updated = await api.put(rule.id, { description: 'paused and edited', priority: 9 });
  t.equal(updated.status, 'PAUSED');
  await api.action(rule.id, 'archive');
  const archived = await api.put(rule.id, { name: uniqueName('archived and renamed') });
  t.equal(archived.status, 'ARCHIVED');
});

void t.test('concurrent PUTs: every 200 is one version, the rest are 409', async (t) => {
  const rule = await api.create(ruleBody(uniqueName('concurrent put')));
  const answers = await Promise.all(
    Array.from({ length: 6 }, (_, i) => api.send('PUT', `/${rule.id}`, { priority: i + 1 })),
  );
  const statuses = answers.map((r) => r.status);
  await Promise.all(answers.map((r) => r.arrayBuffer()));
  t.ok(
    statuses.every((s) => s === 200 || s === 409),
    `only 200 or 409: ${statuses.join(',')}`,
  );
  const ok = statuses.filter((s) => s === 200).length;
  t.ok(ok >= 1, 'at least one update went through');
  const after = await api.get(rule.id);
  t.equal(after.version, 1 + ok, 'one version per update that answered 200');
});

void t.test('DELETE: 204 without a body, then 404 everywhere', async (t) => {
  const rule = await api.create(ruleBody(uniqueName('to delete')));
  const res = await api.send('DELETE', `/${rule.id}`);
  t.equal(res.status, 204);
  t.equal(await res.text(), '', 'no body');
  t.equal((await svc.db.sql`SELECT 1 FROM rules WHERE id = ${rule.id}`).length, 0, 'row gone');
  await expectError(t, await api.send('GET', `/${rule.id}`), 404, 'NOT_FOUND');
  await expectError(t, await api.send('DELETE', `/${rule.id}`), 404, 'NOT_FOUND');
  await expectError(t, await api.send('PUT', `/${rule.id}`, { priority: 1 }), 404, 'NOT_FOUND');
  t.notOk(
    (await api.list()).some((r) => r.id === rule.id),
    'not listed',
  );
  const again = await api.create(ruleBody(rule.name));
  t.not(again.id, rule.id, 'the name is free again, under a new id');
});

void t.test(
  'DRL injection: any name round-trips and cannot change the DRL structure',
  async (t) => {
    const name =
      'a" salience 100 then System.exit(0);\nend\nrule "evil"\n  when\\ \\" \r\t é ✓ 😀 \u2028 $m';
    const rule = await api.create(ruleBody(name, { priority: 0 }));
    t.equal(rule.name, name, 'the answer has the name as sent');
    t.equal((await api.get(rule.id)).name, name, 'GET returns it byte for byte');
    const [row] = await svc.db.sql<
      { name: string }[]
    >`SELECT name FROM rules WHERE id = ${rule.id}`;
    t.equal(row?.name, name, 'stored as sent');
    const search = await api.list(`/search?q=${encodeURIComponent('salience 100 then')}`);
    t.same(
      search.map((r) => r.id),
      [rule.id],
      'found by search',
    );

    const drl = rule.generatedDrl;
    t.same(drl.match(/^\s*salience .*$/gm), ['    salience 0'], 'exactly one salience, 0');
    t.equal(drl.match(/^rule /gm)?.length, 1, 'exactly one rule');
    t.equal(drl.match(/^end$/gm)?.length, 1, 'exactly one end');
    t.notMatch(drl, /^\s*then\s*System/m);
    t.ok(/^[\x20-\x7e\n]*$/.test(drl), 'the DRL is printable ASCII and newlines only');
    t.ok(
      drl.includes(
        'rule "a\\" salience 100 then System.exit(0);\\nend\\nrule \\"evil\\"\\n  when\\\\ \\\\\\" \\r\\t \\u00E9 \\u2713 \\uD83D\\uDE00 \\u2028 $m"',
      ),
      'the name is one escaped Java string literal',
    );
    t.equal(rule.drlHash, sha256(drl));

    const tested = await api.testStored(rule.id);
    t.equal(tested.compilationStatus, 'SUCCESS', 'the DRL compiles back to the same rule');
    t.equal(tested.generatedDrl, drl, 'testing the stored rule generates the same DRL');

    // The key of an indexed metric is user text too.
    const metric = 'eventsByType[a", 5) > 0 )\n    then System.exit(0);\nend\nrule "b\\]';
    const keyed = await api.create(
      ruleBody('injection through a metric key', {
        priority: 1,
        ruleConfig: { metric, operator: 'GREATER_THAN', threshold: 1 },
      }),
    );
    t.equal((keyed.ruleConfig as { metric: string }).metric, metric, 'the key round-trips');
    t.same(keyed.generatedDrl.match(/^\s*salience .*$/gm), ['    salience 1']);
    t.equal(keyed.generatedDrl.match(/^rule /gm)?.length, 1, 'exactly one rule');
    t.equal(keyed.generatedDrl.match(/^end$/gm)?.length, 1, 'exactly one end');
    t.equal(keyed.generatedDrl.match(/^\s*then$/gm)?.length, 1, 'exactly one then');
    const keyedTest = await api.testStored(keyed.id);
    t.same(keyedTest.validationErrors, [], 'it compiles back to the same condition');
    t.equal(keyedTest.compilationStatus, 'WARNING', 'valid; warned only for an unseen key');
    t.equal(keyedTest.generatedDrl, keyed.generatedDrl);
  },
);

void t.test('a known rule path with the wrong method: 405 with Allow', async (t) => {
  const cases: [string, string, string][] = [
    ['PATCH', '/1', 'GET, PUT, DELETE'],
    ['POST', '/1', 'GET, PUT, DELETE'],
    ['GET', '/1/enable', 'POST'],
    ['GET', '/test', 'POST'],
    ['GET', '/regenerate-drls', 'POST'],
    ['POST', '/statistics', 'GET'],
    ['DELETE', '/active', 'GET'],
  ];
  for (const [method, path, allow] of cases) {
    const res = await api.send(method, path);
    t.equal(res.headers.get('allow'), allow, `${method} ${path}: Allow`);
    await expectError(t, res, 405, 'METHOD_NOT_ALLOWED');
  }
});
