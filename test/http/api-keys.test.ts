// API keys through their life: created (the key in that answer only), listed (never a key or a
// hash), used through either header, mistyped, revoked, expired; allowedSources per event and
// per batch item; a per-key rate limit with Retry-After; lastUsedAt written lazily.
import t from 'tap';
import { waitUntil } from '../service/alerts-helpers.ts';
import { expectError, readBatch } from '../support/events.ts';
import { keyHeaders } from '../support/keys.ts';
import { startTestService } from '../support/service.ts';

const svc = await startTestService(t);

interface CreatedKey {
  id: number;
  key: string;
  prefix: string;
  scope: string;
  lastUsedAt: string | null;
  revokedAt: string | null;
}

async function create(body: Record<string, unknown>): Promise<CreatedKey> {
  const res = await svc.request('/api/v1/keys', { json: body });
  t.equal(res.status, 201, `created ${JSON.stringify(body)}`);
  return (await res.json()) as CreatedKey;
}

const as = (key: string, path: string, json?: unknown) =>
  svc.request(path, { headers: keyHeaders(key), ...(json === undefined ? {} : { json }) });

const listed = async (): Promise<Record<string, unknown>[]> =>
  (await (await svc.request('/api/v1/keys')).json()) as Record<string, unknown>[];

t.test('the key is shown once; lists show its prefix, never the key or a hash', async (t) => {
  const made = await create({ name: 'producer', scope: 'ingest' });
  t.match(made.key, /^vgl_ingest_/);
  t.ok(made.key.startsWith(made.prefix));
  const text = JSON.stringify(await listed());
  t.notOk(text.includes(made.key), 'the key is not listed');
  t.notOk(text.includes(made.key.slice(made.prefix.length)), 'nor its secret part');
  t.notMatch(text, /hash/i, 'nor any hash');
  const entry = (await listed()).find((k) => k.id === made.id);
  t.match(entry, { name: 'producer', scope: 'ingest', prefix: made.prefix, revokedAt: null });
  t.notOk('key' in (entry ?? {}), 'no key field');
});

t.test('a used key works, a mistyped one is told apart, a revoked one is refused', async (t) => {
  const made = await create({ name: 'reader', scope: 'read' });
  t.equal((await as(made.key, '/api/v1/metrics')).status, 200);
  const typo = made.key.slice(0, -1) + (made.key.endsWith('a') ? 'b' : 'a');
  const mistyped = await expectError(t, await as(typo, '/api/v1/metrics'), 401, 'UNAUTHORIZED');
  t.match(mistyped.message, /checksum/);
  const unknown = await expectError(
    t,
    await as('vgl_read_' + 'x'.repeat(40), '/api/v1/metrics'),
    401,
    'UNAUTHORIZED',
  );
  t.notMatch(unknown.message, /revoked/);

  const revoked = await svc.request(`/api/v1/keys/${made.id}`, { method: 'DELETE' });
  t.equal(revoked.status, 204);
  // Revoked through this instance: in force before the DELETE was answered.
  const refused = await expectError(t, await as(made.key, '/api/v1/metrics'), 401, 'UNAUTHORIZED');
  t.match(refused.message, /revoked/);
  t.match(
    (await listed()).find((k) => k.id === made.id),
    { revokedAt: String },
  );
  await expectError(
    t,
    await svc.request('/api/v1/keys/999999', { method: 'DELETE' }),
    404,
    'NOT_FOUND',
  );
  await expectError(
    t,
    await svc.request('/api/v1/keys/abc', { method: 'DELETE' }),
    400,
    'VALIDATION_FAILED',
    ['id'],
  );
});

t.test('a key stops working when it expires', async (t) => {
  const expiresAt = new Date(Date.now() + 1500).toISOString();
  const made = await create({ name: 'short-lived', scope: 'read', expiresAt });
  t.equal((await as(made.key, '/api/v1/metrics')).status, 200, 'works before');
  const after = await waitUntil(
    () => as(made.key, '/api/v1/metrics'),
    (res) => res.status === 401,
    'the key to expire',
  );
  const body = await expectError(t, after, 401, 'UNAUTHORIZED');
  t.match(body.message, /expired/);
});

t.test('bad key bodies are 400s naming the field', async (t) => {
  const bad: [unknown, string[]][] = [
    [{ scope: 'read' }, ['name']],
    [{ name: 'x', scope: 'root' }, ['scope']],
    [{ name: 'x', scope: 'read', expiresAt: 'tomorrow' }, ['expiresAt']],
    [{ name: 'x', scope: 'read', expiresAt: '2001-01-01T00:00:00Z' }, ['expiresAt']],
    [{ name: 'x', scope: 'read', allowedSources: ['web'] }, ['allowedSources']],
    [{ name: 'x', scope: 'ingest', rateLimitPerSecond: 0 }, ['rateLimitPerSecond']],
    [{ name: 'x', scope: 'ingest', owner: 'me' }, ['owner']],
  ];
  for (const [body, fields] of bad) {
    t.comment(JSON.stringify(body));
    await expectError(
      t,
      await svc.request('/api/v1/keys', { json: body }),
      400,
      'VALIDATION_FAILED',
      fields,
    );
  }
});

t.test('allowedSources: a leaked ingest key cannot speak for other producers', async (t) => {
  const made = await create({ name: 'web', scope: 'ingest', allowedSources: ['web'] });
  const ok = await as(made.key, '/api/v1/events', { eventType: 'click', source: 'web' });
  t.equal(ok.status, 202);
  const other = await as(made.key, '/api/v1/events', { eventType: 'click', source: 'billing' });
  await expectError(t, other, 403, 'SOURCE_NOT_ALLOWED', ['source']);
  const batch = await readBatch(
    await as(made.key, '/api/v1/events/batch', [
      { eventType: 'click', source: 'web' },
      { eventType: 'click', source: 'billing' },
    ]),
  );
  t.match(batch, { accepted: 1, rejected: 1 });
  t.match(batch.results[1], { status: 'error', index: 1, errors: { source: /allowedSources/ } });
});

t.test('a rate limit per key: 429 with Retry-After, others unaffected', async (t) => {
  const slow = await create({ name: 'slow', scope: 'ingest', rateLimitPerSecond: 0.01 });
  const event = { eventType: 'limited', source: 'test' };
  t.equal((await as(slow.key, '/api/v1/events', event)).status, 202, 'the first passes');
  const over = await as(slow.key, '/api/v1/events', event);
  t.ok(Number(over.headers.get('retry-after')) >= 90, 'Retry-After in seconds');
  await expectError(t, over, 429, 'RATE_LIMITED');
  const batch = await as(slow.key, '/api/v1/events/batch', [event, event]);
  await expectError(t, batch, 429, 'RATE_LIMITED');
  t.equal((await svc.request('/api/v1/events', { json: event })).status, 202, 'admin unaffected');

  const reader = await create({ name: 'slow reader', scope: 'read', rateLimitPerSecond: 0.01 });
  t.equal((await as(reader.key, '/api/v1/metrics')).status, 200);
  await expectError(t, await as(reader.key, '/api/v1/metrics'), 429, 'RATE_LIMITED');
});

t.test('lastUsedAt is written after use, in the background', async (t) => {
  const made = await create({ name: 'tracked', scope: 'read' });
  t.equal(made.lastUsedAt, null);
  await as(made.key, '/api/v1/metrics');
  const entry = await waitUntil(
    async () => (await listed()).find((k) => k.id === made.id),
    (k) => k?.lastUsedAt !== null,
    'lastUsedAt to be written',
  );
  t.type(entry?.lastUsedAt, 'string');
});
