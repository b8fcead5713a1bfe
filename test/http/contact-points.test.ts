// Contact points over HTTP (issue 17): create, list, get, update and delete; the secrets they hold
// never come back, on any read path (contact points, rules, the OpenAPI document); a PUT of what
// GET returned keeps them; one default per type; names unique; 400 / 404 / 409 with their codes.
import t from 'tap';
import { contactPointsApi, type NewContactPoint } from '../support/contact-points.ts';
import { expectError } from '../support/events.ts';
import { ruleBody, rulesApi } from '../support/rules.ts';
import { startTestService } from '../support/service.ts';

const svc = await startTestService(t);
const api = contactPointsApi(svc);
const rules = rulesApi(svc);

const SLACK_URL = 'https://hooks.slack.com/services/T0SECRET1/B0SECRET2/slacksecret3';
const HOOK_URL = 'https://hooks.example.com/vigil/hooksecret4?key=querysecret5';
const TOKEN = 'Bearer tokensecret6';
/** Every secret this file stores: none may appear in any answer. */
const SECRETS = /SECRET|secret\d/;

const slack = (over: Partial<NewContactPoint> = {}): NewContactPoint => ({
  name: 'oncall',
  type: 'slack',
  isDefault: true,
  settings: { webhookUrl: SLACK_URL, channel: '#ops' },
  ...over,
});
const webhook = (over: Partial<NewContactPoint> = {}): NewContactPoint => ({
  name: 'ops-hook',
  type: 'webhook',
  settings: { url: HOOK_URL, headers: { Authorization: TOKEN }, timeoutMs: 3000 },
  ...over,
});

/** The settings as PostgreSQL holds them. */
const storedSettings = async (id: number): Promise<unknown> => {
  const [row] = await svc.db.sql<{ settings: unknown }[]>`
    SELECT settings FROM contact_points WHERE id = ${id}`;
  return row?.settings;
};

void t.test(
  'create answers 201 with the id, secrets redacted; the secrets are stored',
  async (t) => {
    const point = await api.create(slack());
    t.match(point, {
      name: 'oncall',
      type: 'slack',
      isDefault: true,
      settings: { webhookUrl: 'https://hooks.slack.com/****', channel: '#ops' },
    });
    t.same(await storedSettings(point.id), { webhookUrl: SLACK_URL, channel: '#ops' });

    const hook = await api.create(webhook());
    t.same(hook.settings, {
      url: 'https://hooks.example.com/****',
      headers: { Authorization: '****' },
      timeoutMs: 3000,
    });
    t.equal(hook.isDefault, false, 'isDefault defaults to false');
    t.same(await storedSettings(hook.id), webhook().settings);

    const email = await api.create({
      name: 'mail',
      type: 'email',
      settings: { to: ['ops@example.com'], subject: 'S' },
    });
    t.same(email.settings, { to: ['ops@example.com'], subject: 'S' }, 'addresses are shown');
  },
);

void t.test('no read path shows a secret', async (t) => {
  await api.create(webhook({ name: 'reads-hook', isDefault: true }));
  await rules.create(
    ruleBody('names contact points', {
      notificationChannels: ['slack', 'webhook:reads-hook'],
      notificationConfig: { slack: { channel: '#alerts' } },
    }),
  );
  const reads = ['/api/v1/contact-points', '/api/v1/rules', '/api/v1/openapi.json'];
  const points = await api.list();
  for (const point of points) reads.push(`/api/v1/contact-points/${point.id}`);
  for (const path of reads) {
    const res = await svc.request(path);
    t.equal(res.status, 200, path);
    const text = await res.text();
    t.notMatch(text, SECRETS, `${path} holds no secret`);
    t.notOk(text.includes(TOKEN), `${path} holds no header value`);
  }
  const doc = await (await svc.request('/api/v1/openapi.json')).text();
  t.match(doc, /contact-points/, 'the document has the routes');
  t.notMatch(
    doc,
    /hooks\.slack\.com\/services\/T[A-Z0-9]+\/B[A-Z0-9]+\/[A-Za-z0-9]+/,
    'no example is a real Slack URL',
  );
});

void t.test('PUT of what GET returned keeps every secret', async (t) => {
  const point = await api.create(webhook({ name: 'round-trip' }));
  const read = await api.get(point.id);
  const again = await api.put(point.id, { ...read, name: 'round-trip-2' });
  t.equal(again.name, 'round-trip-2');
  t.same(await storedSettings(point.id), webhook().settings, 'secrets unchanged');

  await api.put(point.id, { settings: { timeoutMs: null, headers: { Authorization: '****' } } });
  t.same(
    await storedSettings(point.id),
    { url: HOOK_URL, headers: { Authorization: TOKEN } },
    'null removes, left out keeps, **** keeps the header',
  );
  // The stored header was given for hooks.example.com: a new origin must be given it again.
  for (const [settings, field] of [
    [{ url: 'https://new.example.com/hook' }, 'settings.headers'],
    [
      { url: 'https://new.example.com/hook', headers: { Authorization: '****' } },
      'settings.headers.Authorization',
    ],
  ] as const) {
    const refused = await api.send('PUT', `/${point.id}`, { settings });
    await expectError(t, refused, 400, 'VALIDATION_FAILED', [field]);
  }
  t.same(
    await storedSettings(point.id),
    { url: HOOK_URL, headers: { Authorization: TOKEN } },
    'nothing changed',
  );
  const samePlace = await api.put(point.id, { settings: { url: 'https://hooks.example.com/v2' } });
  t.equal(samePlace.settings.url, 'https://hooks.example.com/****', 'same origin: headers kept');
  const moved = await api.put(point.id, {
    settings: { url: 'https://new.example.com/hook', headers: { Authorization: 'Bearer new' } },
  });
  t.equal(moved.settings.url, 'https://new.example.com/****');
  t.same(await storedSettings(point.id), {
    url: 'https://new.example.com/hook',
    headers: { Authorization: 'Bearer new' },
  });

  await expectError(
    t,
    await api.send('PUT', `/${point.id}`, { type: 'slack' }),
    400,
    'VALIDATION_FAILED',
    ['type'],
  );
  await expectError(
    t,
    await api.send('PUT', `/${point.id}`, { settings: { url: 'ftp://x.test' } }),
    400,
    'VALIDATION_FAILED',
    ['settings.url'],
  );
  await expectError(
    t,
    await api.send('PUT', `/${point.id}`, { settings: { headers: { 'X-New': '****' } } }),
    400,
    'VALIDATION_FAILED',
    ['settings.headers.X-New'],
  );
});

void t.test('one default per type: a new default takes it from the old one', async (t) => {
  const first = await api.create(
    slack({ name: 'first-default', settings: { webhookUrl: SLACK_URL } }),
  );
  const second = await api.create(
    slack({ name: 'second-default', settings: { webhookUrl: SLACK_URL } }),
  );
  t.equal((await api.get(first.id)).isDefault, false);
  t.equal((await api.get(second.id)).isDefault, true);
  const defaults = (await api.list()).filter((p) => p.type === 'slack' && p.isDefault);
  t.same(
    defaults.map((p) => p.name),
    ['second-default'],
  );
  await api.put(first.id, { isDefault: true });
  t.equal((await api.get(second.id)).isDefault, false);
});

void t.test('errors: 400 naming the field, 404, 409 CONTACT_POINT_NAME_TAKEN', async (t) => {
  const cases: readonly (readonly [unknown, readonly string[]])[] = [
    [{ ...slack(), name: 'has space' }, ['name']],
    [{ ...slack(), name: 'a:b' }, ['name']],
    [{ ...slack(), type: 'sms' }, ['type']],
    [{ ...slack(), settings: {} }, ['settings.webhookUrl']],
    [{ ...slack(), settings: { webhookUrl: SLACK_URL, extra: 1 } }, ['settings.extra']],
    [
      { ...webhook(), settings: { url: HOOK_URL, headers: { Host: 'x' } } },
      ['settings.headers.Host'],
    ],
    [{ ...slack(), isDefault: 'yes' }, ['isDefault']],
    [
      { ...slack(), settings: { webhookUrl: 'https://hooks.slack.com/****' } },
      ['settings.webhookUrl'],
    ],
    [{ ...slack(), id: 3 }, ['id']],
    [{ name: 'x', type: 'email' }, ['settings']],
  ];
  for (const [body, fields] of cases) {
    const res = await api.send('POST', '', body);
    const error = await expectError(t, res, 400, 'VALIDATION_FAILED', fields);
    t.notMatch(JSON.stringify(error), SECRETS, 'the error repeats no secret');
  }
  await api.create(slack({ name: 'taken', isDefault: false }));
  await expectError(
    t,
    await api.send('POST', '', slack({ name: 'taken' })),
    409,
    'CONTACT_POINT_NAME_TAKEN',
  );
  const other = await api.create(slack({ name: 'other', isDefault: false }));
  await expectError(
    t,
    await api.send('PUT', `/${other.id}`, { name: 'taken' }),
    409,
    'CONTACT_POINT_NAME_TAKEN',
  );
  for (const method of ['GET', 'PUT', 'DELETE']) {
    const body = method === 'PUT' ? {} : undefined;
    await expectError(t, await api.send(method, '/999999', body), 404, 'NOT_FOUND');
    await expectError(t, await api.send(method, '/0', body), 400, 'VALIDATION_FAILED', ['id']);
  }
});

void t.test('delete: 204, then 404; rules naming it are kept', async (t) => {
  const point = await api.create(slack({ name: 'short-lived', isDefault: false }));
  const rule = await rules.create(
    ruleBody('names short-lived', { notificationChannels: ['slack:short-lived'] }),
  );
  await api.remove(point.id);
  await expectError(t, await api.send('GET', `/${point.id}`), 404, 'NOT_FOUND');
  await expectError(t, await api.send('DELETE', `/${point.id}`), 404, 'NOT_FOUND');
  t.same((await rules.get(rule.id)).notificationChannels, ['slack:short-lived']);
});

void t.test('a rule may name a contact point that does not exist', async (t) => {
  const rule = await rules.create(
    ruleBody('names nothing yet', {
      notificationChannels: ['email:nobody', 'webhook'],
      notificationConfig: { email: { subject: 'Later' } },
    }),
  );
  t.same(rule.notificationChannels, ['email:nobody', 'webhook']);
  t.same(rule.notificationConfig, { email: { subject: 'Later' } }, 'stored as given');
});
