// Rule request bodies: field rules, unknown fields by name, ruleConfig errors, update and test bodies.
import t from 'tap';
import { testRule } from '../../src/domain/rules/rule-test.ts';
import { checkRuleBody } from '../../src/schemas/rule.ts';
import { ruleRequest as body, ruleErrors as errorsOf } from '../support/rules.ts';
import { fakeMetrics } from '../domain/rules/fake-metrics.ts';

void t.test('create: defaults applied, ruleConfig normalised', (t) => {
  t.same(checkRuleBody('create', body()), {
    ok: true,
    value: {
      name: 'High error rate',
      description: null,
      ruleType: 'THRESHOLD',
      ruleConfig: { metric: 'errorRate', operator: 'GREATER_THAN', threshold: 5, windowMinutes: 5 },
      severity: 'HIGH',
      priority: 0,
      notificationChannels: [],
      notificationConfig: null,
      suppressionWindowMinutes: 30,
      maxAlertsPerHour: 10,
      createdBy: null,
    },
  });
  const full = checkRuleBody(
    'create',
    body({
      description: 'd',
      priority: -5,
      notificationChannels: ['email', 'slack:oncall', 'webhook'],
      notificationConfig: {
        email: { to: 'ops@example.com' },
        slack: { channel: '#ops' },
        webhook: { timeoutMs: 1000 },
      },
      suppressionWindowMinutes: 0,
      maxAlertsPerHour: 1,
      createdBy: 'ana',
    }),
  );
  t.match(full, {
    ok: true,
    value: {
      description: 'd',
      priority: -5,
      suppressionWindowMinutes: 0,
      maxAlertsPerHour: 1,
      createdBy: 'ana',
    },
  });
  t.equal(checkRuleBody('create', body({ name: 'x'.repeat(255) })).ok, true);
  t.equal(checkRuleBody('create', body({ name: '\u{1F600}'.repeat(255) })).ok, true);
  t.match(
    checkRuleBody(
      'create',
      body({
        description: 'd'.repeat(2000),
        maxAlertsPerHour: 3600,
        suppressionWindowMinutes: 10080,
      }),
    ),
    { ok: true, value: { maxAlertsPerHour: 3600, suppressionWindowMinutes: 10080 } },
    'each bound itself is allowed',
  );
  t.equal(
    checkRuleBody('create', body({ name: 'a" salience 100 then System.exit(0);\n' })).ok,
    true,
  );
  t.end();
});

void t.test('create: each field rule, errors keyed by field', (t) => {
  const cases: [string, Record<string, unknown>, Record<string, string>][] = [
    ['name empty', { name: '' }, { name: 'name must be a string of 1 to 255 characters' }],
    [
      'name too long',
      { name: 'x'.repeat(256) },
      { name: 'name must be a string of 1 to 255 characters' },
    ],
    ['name not a string', { name: 5 }, { name: 'name must be a string of 1 to 255 characters' }],
    [
      'ruleType',
      { ruleType: 'threshold' },
      { ruleType: 'ruleType must be one of THRESHOLD, RATE_CHANGE, ANOMALY, PATTERN' },
    ],
    [
      'severity',
      { severity: 'low' },
      { severity: 'severity must be one of LOW, MEDIUM, HIGH, CRITICAL' },
    ],
    [
      'ruleConfig not an object',
      { ruleConfig: [1] },
      { ruleConfig: 'ruleConfig must be an object' },
    ],
    [
      'priority fraction',
      { priority: 1.5 },
      { priority: 'priority must be an integer from -2147483648 to 2147483647' },
    ],
    [
      'priority string',
      { priority: '1' },
      { priority: 'priority must be an integer from -2147483648 to 2147483647' },
    ],
    [
      'priority beyond int',
      { priority: 2 ** 31 },
      { priority: 'priority must be an integer from -2147483648 to 2147483647' },
    ],
    [
      'suppression negative',
      { suppressionWindowMinutes: -1 },
      {
        suppressionWindowMinutes:
          'suppressionWindowMinutes must be an integer from 0 to 10080 (0 = no suppression)',
      },
    ],
    [
      'maxAlertsPerHour 0',
      { maxAlertsPerHour: 0 },
      { maxAlertsPerHour: 'maxAlertsPerHour must be an integer from 1 to 3600' },
    ],
    [
      'maxAlertsPerHour fraction',
      { maxAlertsPerHour: 2.5 },
      { maxAlertsPerHour: 'maxAlertsPerHour must be an integer from 1 to 3600' },
    ],
    [
      'channel item',
      { notificationChannels: ['email', 'sms'] },
      {
        'notificationChannels.1':
          "notificationChannels.1: 'sms' is not a channel type (email, slack, webhook) for its default contact point, or <type>:<contact point name> (e.g. slack:oncall).",
      },
    ],
    [
      'channels not an array',
      { notificationChannels: 'email' },
      {
        notificationChannels:
          'notificationChannels must be an array of at most 20 distinct entries, each a channel type (email, slack, webhook) for its default contact point, or <type>:<contact point name> (e.g. slack:oncall)',
      },
    ],
    [
      'channel twice',
      { notificationChannels: ['email', 'email'] },
      { notificationChannels: 'notificationChannels must not list a channel twice' },
    ],
    [
      'notificationConfig array',
      { notificationConfig: [] },
      { notificationConfig: 'notificationConfig must be an object or null' },
    ],
    [
      'description number',
      { description: 5 },
      { description: 'description must be a string of at most 2000 characters, or null' },
    ],
    [
      'description too long',
      { description: 'd'.repeat(2001) },
      { description: 'description must be a string of at most 2000 characters, or null' },
    ],
    [
      'name of 256 characters of two UTF-16 units',
      { name: '\u{1F600}'.repeat(256) },
      { name: 'name must be a string of 1 to 255 characters' },
    ],
    [
      'maxAlertsPerHour over 3600',
      { maxAlertsPerHour: 3601 },
      { maxAlertsPerHour: 'maxAlertsPerHour must be an integer from 1 to 3600' },
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
      'ANOMALY, its own keys',
      { ruleType: 'ANOMALY', ruleConfig: { metric: 'eventRate', sensitivity: 3 } },
      {
        ruleConfig:
          "Unknown property 'sensitivity'. ANOMALY keys are metric, eventType, source, bucketMinutes, algorithm, seasonality, timezone, bounds, direction, alertWindowMinutes, minFraction, minExpected, minDeviation, minHistoryMinutes, pendingSeconds, keepFiringSeconds",
      },
    ],
    [
      'createdBy too long',
      { createdBy: 'x'.repeat(256) },
      { createdBy: 'createdBy must be a string of at most 255 characters, or null' },
    ],
    [
      'unknown and assigned fields, by name',
      { foo: 1, 'a/b': 2, id: 3, status: 'ACTIVE', version: 2 },
      {
        foo: 'foo is not a known field',
        'a/b': 'a/b is not a known field',
        id: 'id is assigned by the service and cannot be set',
        status:
          'status cannot be set here: use POST /api/v1/rules/{id}/enable, /disable or /archive',
        version: 'version is assigned by the service and cannot be set',
      },
    ],
  ];
  for (const [name, over, errors] of cases) {
    t.same(checkRuleBody('create', body(over)), { ok: false, errors }, name);
  }
  t.same(errorsOf(checkRuleBody('create', {})), {
    name: 'name is required',
    ruleType: 'ruleType is required',
    ruleConfig: 'ruleConfig is required',
    severity: 'severity is required',
  });
  for (const notAnObject of [null, [], 'x', 5]) {
    t.same(checkRuleBody('create', notAnObject), {
      ok: false,
      errors: { body: 'must be a JSON object' },
    });
  }
  t.same(
    checkRuleBody('create', body({ description: null, notificationConfig: null, createdBy: null }))
      .ok,
    true,
  );
  t.end();
});

void t.test('ruleConfig problems: one key, the rule test messages joined', (t) => {
  const ruleConfig = { metric: 'errRate', operator: 'GREATER', threshold: '5' };
  const tested = testRule(
    { name: 'x', ruleType: 'THRESHOLD', ruleConfig, severity: 'LOW' },
    fakeMetrics(),
  );
  t.same(checkRuleBody('create', body({ ruleConfig })), {
    ok: false,
    errors: { ruleConfig: tested.validationErrors.join('; ') },
  });
  t.equal(
    tested.validationErrors.join('; '),
    `Metric 'errRate' not found. Did you mean 'errorRate'?; Invalid operator 'GREATER'. Did you mean 'GREATER_THAN'?; Invalid threshold type: expected a number, got string "5"`,
  );
  t.same(
    errorsOf(checkRuleBody('create', body({ ruleConfig, name: '' }))),
    {
      name: 'name must be a string of 1 to 255 characters',
    },
    'schema errors come first; ruleConfig content is checked once the shape is right',
  );
  t.end();
});

void t.test('text PostgreSQL cannot store is refused with its path', (t) => {
  t.same(errorsOf(checkRuleBody('create', body({ name: 'a\u0000b' }))), {
    name: 'must not contain the NUL character (U+0000)',
  });
  t.same(errorsOf(checkRuleBody('create', body({ description: 'a\ud800b' }))), {
    description: 'must not contain an unpaired surrogate (not valid Unicode)',
  });
  t.same(
    errorsOf(
      checkRuleBody(
        'create',
        body({
          ruleConfig: { metric: 'eventsByType[a\u0000]', operator: 'GREATER_THAN', threshold: 1 },
        }),
      ),
    ),
    { 'ruleConfig.metric': 'must not contain the NUL character (U+0000)' },
  );
  t.same(
    errorsOf(
      checkRuleBody('create', body({ notificationConfig: { 'k\u0000': { x: ['\u0000'] } } })),
    ),
    {
      notificationConfig: 'keys must not contain the NUL character (U+0000)',
      'notificationConfig.k\u0000.x.0': 'must not contain the NUL character (U+0000)',
    },
  );
  t.equal(checkRuleBody('create', body({ name: 'emoji \u{1F600} ok' })).ok, true);
  let deep: unknown = 1;
  for (let i = 0; i < 100_000; i++) deep = [deep];
  // Every rule type's config is judged by its own keys first; a config 100,000 levels deep is
  // refused like any other bad config, without a stack overflow.
  t.match(errorsOf(checkRuleBody('create', body({ ruleType: 'PATTERN', ruleConfig: { deep } }))), {
    ruleConfig: /^Unknown property 'deep'/,
  });
  t.match(errorsOf(checkRuleBody('create', body({ ruleType: 'THRESHOLD', ruleConfig: deep }))), {
    ruleConfig: /must be an object|nest deeper/,
  });
  t.end();
});

void t.test(
  'update: every field optional, null clears nullable fields, config revalidated',
  (t) => {
    const current = {
      ruleType: 'THRESHOLD' as const,
      ruleConfig: { metric: 'errorRate', operator: 'GREATER_THAN', threshold: 5, windowMinutes: 5 },
    };
    t.same(checkRuleBody('update', {}, current), { ok: true, value: {} });
    t.same(
      checkRuleBody(
        'update',
        { description: null, notificationConfig: null, createdBy: null },
        current,
      ),
      {
        ok: true,
        value: { description: null, notificationConfig: null, createdBy: null },
      },
    );
    t.same(checkRuleBody('update', { priority: 3, name: 'new' }, current), {
      ok: true,
      value: { priority: 3, name: 'new' },
    });
    for (const field of [
      'name',
      'ruleType',
      'ruleConfig',
      'severity',
      'priority',
      'notificationChannels',
      'suppressionWindowMinutes',
      'maxAlertsPerHour',
    ]) {
      const result = checkRuleBody('update', { [field]: null }, current);
      t.equal(result.ok, false, `${field} cannot be null`);
      t.ok(field in errorsOf(result));
    }
    t.same(
      checkRuleBody(
        'update',
        {
          ruleConfig: {
            metric: 'errorRate',
            operator: 'LESS_THAN',
            threshold: 1,
            windowMinutes: 60,
          },
        },
        current,
      ),
      {
        ok: true,
        value: {
          ruleConfig: {
            metric: 'errorRate',
            operator: 'LESS_THAN',
            threshold: 1,
            windowMinutes: 60,
          },
        },
      },
    );
    t.same(
      checkRuleBody(
        'update',
        { ruleConfig: { metric: 'errRate', operator: 'LESS_THAN', threshold: 1 } },
        current,
      ),
      {
        ok: false,
        errors: { ruleConfig: `Metric 'errRate' not found. Did you mean 'errorRate'?` },
      },
    );
    t.same(checkRuleBody('update', { foo: 1, status: 'PAUSED' }, current), {
      ok: false,
      errors: {
        foo: 'foo is not a known field',
        status:
          'status cannot be set here: use POST /api/v1/rules/{id}/enable, /disable or /archive',
      },
    });

    // A new ruleType revalidates the stored config against it.
    const tree = {
      ruleType: 'THRESHOLD' as const,
      ruleConfig: { logicalOperator: 'NOT', conditions: [current.ruleConfig] },
    };
    t.same(checkRuleBody('update', { ruleType: 'RATE_CHANGE' }, tree), {
      ok: false,
      errors: {
        ruleConfig:
          'RATE_CHANGE takes a single condition { metric, operator, threshold, windowMinutes }; logical operators are for THRESHOLD rules',
      },
    });
    t.same(checkRuleBody('update', { ruleType: 'RATE_CHANGE' }, current), {
      ok: true,
      value: { ruleType: 'RATE_CHANGE', ruleConfig: current.ruleConfig },
    });
    const anomaly = { ruleType: 'ANOMALY' as const, ruleConfig: { sensitivity: 3 } };
    t.match(checkRuleBody('update', { ruleType: 'THRESHOLD' }, anomaly), {
      ok: false,
      errors: { ruleConfig: /Missing required property 'metric'/ },
    });
    t.same(
      checkRuleBody(
        'update',
        {
          ruleType: 'THRESHOLD',
          ruleConfig: { metric: 'totalEvents', operator: 'EQUALS', threshold: 0 },
        },
        anomaly,
      ),
      {
        ok: true,
        value: {
          ruleType: 'THRESHOLD',
          ruleConfig: { metric: 'totalEvents', operator: 'EQUALS', threshold: 0, windowMinutes: 5 },
        },
      },
    );
    // The current THRESHOLD config is not an ANOMALY config.
    t.match(checkRuleBody('update', { ruleType: 'ANOMALY' }, current), {
      ok: false,
      errors: { ruleConfig: /ANOMALY keys are metric/ },
    });
    // A legacy ANOMALY rule's new config is judged by the ANOMALY keys.
    t.match(checkRuleBody('update', { ruleConfig: { sensitivity: 4 } }, anomaly), {
      ok: false,
      errors: { ruleConfig: /^Unknown property 'sensitivity'. ANOMALY keys are metric/ },
    });
    t.same(checkRuleBody('update', { name: 'renamed' }, anomaly), {
      ok: true,
      value: { name: 'renamed' },
    });
    t.throws(() => checkRuleBody('update' as 'create', {}));
    t.end();
  },
);

void t.test('test body: the create fields; ruleConfig content is left to testRule', (t) => {
  t.same(checkRuleBody('test', body()), { ok: true, value: body() });
  const badConfig = body({ ruleConfig: 'not an object' });
  t.same(checkRuleBody('test', badConfig), { ok: true, value: badConfig });
  t.same(checkRuleBody('test', body({ ruleConfig: { metric: 'nope' } })).ok, true);
  t.same(
    checkRuleBody(
      'test',
      body({
        priority: 2,
        suppressionWindowMinutes: 0,
        notificationChannels: ['slack'],
        description: null,
      }),
    ).ok,
    true,
  );
  t.same(errorsOf(checkRuleBody('test', { ruleType: 'THRESHOLD', severity: 'LOW' })), {
    name: 'name is required',
    ruleConfig: 'ruleConfig is required',
  });
  t.same(errorsOf(checkRuleBody('test', body({ id: 1, extra: true }))), {
    id: 'id is assigned by the service and cannot be set',
    extra: 'extra is not a known field',
  });
  t.equal(
    checkRuleBody('test', body({ ruleType: 'PATTERN', ruleConfig: 'anything' })).ok,
    true,
    'every rule type is accepted; its config is judged by testRule',
  );
  t.same(errorsOf(checkRuleBody('test', body({ maxAlertsPerHour: 3601 }))), {
    maxAlertsPerHour: 'maxAlertsPerHour must be an integer from 1 to 3600',
  });
  t.end();
});
