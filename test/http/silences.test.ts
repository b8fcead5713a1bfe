// Silences over HTTP (issue 18, docs/silences.md): created (a start in the past taken as the
// request's time), each fault of the body a 400 naming its field, a ruleId naming no rule a 422;
// listed newest first with the state and ruleId filters and paging; read one; ended (an active one
// kept, expired; a pending one removed); scopes; the bound on silences not expired; and the
// table refusing what the API refuses.
import { Type } from '@sinclair/typebox';
import t from 'tap';
import { MAX_OPEN_SILENCES } from '../../src/domain/silences/silence.ts';
import { PageSchema } from '../../src/schemas/paging.ts';
import { SilenceSchema } from '../../src/schemas/silence.ts';
import { expectError } from '../support/events.ts';
import { keyHeaders } from '../support/keys.ts';
import { expectJson, ruleBody, rulesApi } from '../support/rules.ts';
import { startTestService } from '../support/service.ts';

const svc = await startTestService(t);
const rules = rulesApi(svc);

/** The answer's silence, with no field beyond those documented. */
const Silence = Type.Object(SilenceSchema.properties, { additionalProperties: false });
const SilencePage = PageSchema(Silence);

const MINUTE = 60_000;
const DAY = 24 * 60 * MINUTE;
const iso = (ms: number): string => new Date(ms).toISOString();
/** Instants relative to now; the margins (minutes) dwarf any test's own duration. */
const inMinutes = (minutes: number): string => iso(Date.now() + minutes * MINUTE);

const send = (method: string, path = '', json?: unknown, headers?: Record<string, string>) =>
  svc.request(`/api/v1/silences${path}`, {
    method,
    ...(json === undefined ? {} : { json }),
    ...(headers === undefined ? {} : { headers }),
  });

const body = (over: Record<string, unknown> = {}): Record<string, unknown> => ({
  startsAt: inMinutes(-5),
  endsAt: inMinutes(60),
  comment: 'database upgrade',
  createdBy: 'ann',
  ...over,
});

const create = async (over: Record<string, unknown> = {}) =>
  expectJson(Silence, await send('POST', '', body(over)), 201);

const rule = await rules.create(ruleBody('silenced rule'));
const otherRule = await rules.create(ruleBody('listed rule', { severity: 'LOW' }));

void t.test('create answers 201 with the silence and its state', async (t) => {
  const before = Date.now();
  const active = await create({ ruleId: rule.id });
  const after = Date.now();
  t.match(active, {
    ruleId: rule.id,
    severity: null,
    comment: 'database upgrade',
    createdBy: 'ann',
    state: 'active',
  });
  const start = Date.parse(active.startsAt);
  t.ok(start >= before && start <= after, 'a start in the past is the time of the request');
  const [row] = await svc.db.sql<{ rule_id: number; severity: null; starts_at: Date }[]>`
    SELECT rule_id, severity, starts_at FROM silences WHERE id = ${active.id}`;
  t.same(row, { rule_id: rule.id, severity: null, starts_at: new Date(active.startsAt) });

  // An hour ahead, written in UTC+02:00: answered in UTC, to the millisecond.
  const startMs = Date.now() + 60 * MINUTE;
  const startsAt = iso(startMs + 120 * MINUTE).replace('Z', '+02:00');
  const pending = await create({ severity: 'CRITICAL', startsAt, endsAt: inMinutes(120) });
  t.match(pending, { ruleId: null, severity: 'CRITICAL', state: 'pending' });
  t.equal(pending.startsAt, iso(startMs), 'the start as given, in UTC');
  t.ok(pending.id > active.id, 'ids grow');

  const window = await create({ ruleId: null, severity: null, comment: 'maintenance' });
  t.match(window, { ruleId: null, severity: null, state: 'active' }, 'neither: every rule');
});

void t.test('every fault of the body is a 400 naming its field; nothing is stored', async (t) => {
  const [{ n: stored } = { n: 0 }] = await svc.db.sql<{ n: number }[]>`
    SELECT count(*)::int AS n FROM silences`;
  const cases: [string, unknown, string[]][] = [
    ['an empty object', {}, ['startsAt', 'endsAt', 'comment', 'createdBy']],
    ['an array', [body()], ['body']],
    ['no zone', body({ startsAt: '2026-11-25T10:00:00' }), ['startsAt']],
    ['not an instant', body({ endsAt: 'tomorrow' }), ['endsAt']],
    ['day 30 of February', body({ endsAt: '2099-02-30T10:00:00Z' }), ['endsAt']],
    ['a number', body({ startsAt: Date.now() }), ['startsAt']],
    ['an end in the past', body({ endsAt: inMinutes(-1) }), ['endsAt']],
    [
      'an end before the start',
      body({ startsAt: inMinutes(60), endsAt: inMinutes(30) }),
      ['endsAt'],
    ],
    [
      'over 90 days',
      body({ startsAt: inMinutes(60), endsAt: iso(Date.now() + 91 * DAY) }),
      ['endsAt'],
    ],
    [
      'a start over 365 days ahead',
      body({ startsAt: iso(Date.now() + 366 * DAY), endsAt: iso(Date.now() + 367 * DAY) }),
      ['startsAt'],
    ],
    ['an empty comment', body({ comment: '' }), ['comment']],
    ['a comment of 501 characters', body({ comment: 'x'.repeat(501) }), ['comment']],
    ['a NUL in the comment', body({ comment: 'a\u0000b' }), ['comment']],
    ['a createdBy of 101 characters', body({ createdBy: 'x'.repeat(101) }), ['createdBy']],
    ['ruleId 0', body({ ruleId: 0 }), ['ruleId']],
    ['ruleId 1.5', body({ ruleId: 1.5 }), ['ruleId']],
    ['ruleId as text', body({ ruleId: '7' }), ['ruleId']],
    ['ruleId past int4', body({ ruleId: 2147483648 }), ['ruleId']],
    ['an unknown severity', body({ severity: 'URGENT' }), ['severity']],
    ['an unknown field', body({ reason: 'x' }), ['reason']],
  ];
  for (const [what, json, fields] of cases) {
    t.comment(what);
    await expectError(t, await send('POST', '', json), 400, 'VALIDATION_FAILED', fields);
  }
  const typo = await expectError(
    t,
    await send('POST', '', { ...body(), startAt: inMinutes(1) }),
    400,
    'VALIDATION_FAILED',
    ['startAt'],
  );
  t.equal(typo.errors?.startAt, "startAt is not a known field. Did you mean 'startsAt'?");
  const severity = await expectError(
    t,
    await send('POST', '', body({ severity: 'URGENT' })),
    400,
    'VALIDATION_FAILED',
    ['severity'],
  );
  t.equal(
    severity.errors?.severity,
    'severity must be one of LOW, MEDIUM, HIGH, CRITICAL, or null',
  );

  const unknownRule = await expectError(
    t,
    await send('POST', '', body({ ruleId: 999_999 })),
    422,
    'UNKNOWN_RULE',
  );
  t.match(unknownRule.message, /999999/);
  const [{ n } = { n: -1 }] = await svc.db.sql<{ n: number }[]>`
    SELECT count(*)::int AS n FROM silences`;
  t.equal(n, stored, 'nothing stored');
});

void t.test('the list: newest first, filtered by state and ruleId, paged', async (t) => {
  const expired = await create({ ruleId: otherRule.id, comment: 'first' });
  t.equal((await send('DELETE', `/${expired.id}`)).status, 204);
  const active = await create({ ruleId: otherRule.id, comment: 'second' });
  const pending = await create({
    ruleId: otherRule.id,
    comment: 'third',
    startsAt: inMinutes(30),
    endsAt: inMinutes(90),
  });
  const list = async (query: string) =>
    expectJson(SilencePage, await send('GET', `?ruleId=${otherRule.id}${query}`), 200);

  const all = await list('');
  t.same(
    all.content.map((s) => [s.id, s.state]),
    [
      [pending.id, 'pending'],
      [active.id, 'active'],
      [expired.id, 'expired'],
    ],
    'newest first, each with its state',
  );
  t.equal(all.totalElements, 3);
  for (const state of ['pending', 'active', 'expired'] as const) {
    const page = await list(`&state=${state}`);
    t.same(
      page.content.map((s) => s.state),
      [state],
      `state=${state}`,
    );
  }
  const second = await list('&size=2&page=1');
  t.same(
    second.content.map((s) => s.id),
    [expired.id],
    'page 1 of size 2',
  );
  t.match(second, { totalElements: 3, totalPages: 2, last: true, first: false, number: 1 });

  const everyone = await expectJson(SilencePage, await send('GET', '?size=100'), 200);
  t.ok(
    everyone.content.some((s) => s.ruleId === null),
    'without ruleId every silence is listed, those of any rule too',
  );
  t.same(
    (await expectJson(SilencePage, await send('GET', '?ruleId=2147483647'), 200)).content,
    [],
    'a rule without silences: an empty page',
  );

  await expectError(
    t,
    await send('GET', '?state=ACTIVE&ruleId=abc&page=-1'),
    400,
    'VALIDATION_FAILED',
    ['state', 'ruleId', 'page'],
  );
});

void t.test('one silence by id; 404 JSON otherwise', async (t) => {
  const made = await create({ severity: 'HIGH' });
  t.same(await expectJson(Silence, await send('GET', `/${made.id}`), 200), made);
  await expectError(t, await send('GET', '/999999999'), 404, 'NOT_FOUND');
  await expectError(t, await send('GET', '/99999999999999999999'), 404, 'NOT_FOUND');
  await expectError(t, await send('GET', '/abc'), 400, 'VALIDATION_FAILED', ['id']);
  await expectError(t, await send('GET', '/0'), 400, 'VALIDATION_FAILED', ['id']);
});

void t.test('DELETE ends an active silence and removes a pending one', async (t) => {
  const active = await create({ ruleId: rule.id });
  const before = Date.now();
  t.equal((await send('DELETE', `/${active.id}`)).status, 204);
  const ended = await expectJson(Silence, await send('GET', `/${active.id}`), 200);
  t.equal(ended.state, 'expired', 'kept, expired');
  t.ok(Date.parse(ended.endsAt) <= Date.now(), 'it ended when it was deleted');
  t.ok(Date.parse(ended.endsAt) >= before, '... not before');
  t.equal(ended.startsAt, active.startsAt, 'its start is kept');

  t.equal((await send('DELETE', `/${active.id}`)).status, 204, 'an expired one: 204 again');
  const again = await expectJson(Silence, await send('GET', `/${active.id}`), 200);
  t.equal(again.endsAt, ended.endsAt, '... unchanged');

  const pending = await create({ startsAt: inMinutes(30), endsAt: inMinutes(60) });
  t.equal((await send('DELETE', `/${pending.id}`)).status, 204);
  await expectError(t, await send('GET', `/${pending.id}`), 404, 'NOT_FOUND');
  await expectError(t, await send('DELETE', `/${pending.id}`), 404, 'NOT_FOUND');
  await expectError(t, await send('DELETE', '/abc'), 400, 'VALIDATION_FAILED', ['id']);
});

void t.test(
  'scopes: read lists and reads, only admin creates and ends; no key is 401',
  async (t) => {
    const res = await svc.request('/api/v1/keys', {
      json: { name: 'silence reader', scope: 'read' },
    });
    t.equal(res.status, 201);
    const read = keyHeaders(((await res.json()) as { key: string }).key);
    const made = await create();

    t.equal((await send('GET', '', undefined, read)).status, 200, 'read lists');
    t.equal((await send('GET', `/${made.id}`, undefined, read)).status, 200, 'read reads one');
    await expectError(t, await send('POST', '', body(), read), 403, 'FORBIDDEN');
    await expectError(t, await send('DELETE', `/${made.id}`, undefined, read), 403, 'FORBIDDEN');
    const none = { authorization: '' };
    await expectError(t, await send('GET', '', undefined, none), 401, 'UNAUTHORIZED');
    await expectError(t, await send('POST', '', body(), none), 401, 'UNAUTHORIZED');
    t.equal((await expectJson(Silence, await send('GET', `/${made.id}`), 200)).state, 'active');
  },
);

void t.test('the table refuses an empty range and an unknown severity', async (t) => {
  const insert = (endsAt: string, severity: string | null) => svc.db.sql`
    INSERT INTO silences (severity, starts_at, ends_at, comment, created_by)
    VALUES (${severity}, '2099-01-01T00:00:00Z', ${endsAt}, 'c', 'd')`;
  await t.rejects(insert('2099-01-01T00:00:00Z', null), { code: '23514' }, 'ends_at > starts_at');
  await t.rejects(insert('2099-01-02T00:00:00Z', 'URGENT'), { code: '23514' }, 'severity');
  await t.resolves(insert('2099-01-02T00:00:00Z', 'LOW'), 'a valid row');
});

void t.test(`at most ${MAX_OPEN_SILENCES} silences pending or active`, async (t) => {
  // Expired ones are history and do not count: fill up to the bound with open ones.
  await svc.db.sql`
    INSERT INTO silences (starts_at, ends_at, comment, created_by)
    SELECT now() - interval '1 hour', now() - interval '30 minutes', 'old', 'test'
    FROM generate_series(1, 5)`;
  const [{ open } = { open: 0 }] = await svc.db.sql<{ open: number }[]>`
    SELECT count(*)::int AS open FROM silences WHERE ends_at > now()`;
  await svc.db.sql`
    INSERT INTO silences (starts_at, ends_at, comment, created_by)
    SELECT now(), now() + interval '1 day', 'filler', 'test'
    FROM generate_series(1, ${MAX_OPEN_SILENCES - open})`;
  const refused = await expectError(t, await send('POST', '', body()), 422, 'SILENCE_LIMIT');
  t.match(refused.message, /1000/);

  const [filler] = await svc.db.sql<{ id: string }[]>`
    SELECT id FROM silences WHERE comment = 'filler' LIMIT 1`;
  t.equal((await send('DELETE', `/${filler?.id}`)).status, 204, 'ending one makes room');
  await create({ comment: 'fits again' });
  await expectError(t, await send('POST', '', body()), 422, 'SILENCE_LIMIT');
});
