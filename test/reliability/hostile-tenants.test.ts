// Hostile tenants (issue 29): ordinary keys used as an attacker would, all at once, against a
// running service (a child process, so that an exit is seen as one). Read keys run 10 PATTERN rule
// tests and backtests at once over stored events; an ingest key fills the type and source caps;
// 2x MAX_CONNECTIONS silent WebSockets are opened; a producer ingests throughout. The service never
// exits, every 202 is stored, keyed requests keep answering, and the rule watching
// eventsByType[payment.failed] fires although the caps are full.
import t from 'tap';
import WebSocket from 'ws';
import { runDatabase } from '../support/run-databases.ts';
import { freePort } from '../support/free-port.ts';
import { spawnVigil, stopServer } from '../support/service-process.ts';
import { keyHeaders } from '../support/keys.ts';
import { checkStored, startIngestLoad } from '../support/reliability/ingest-load.ts';
import { LOGIN_CONFIG } from '../domain/rules/kinds/pattern/fixtures.ts';

const MAX_CONNECTIONS = 100;
const SEEDED_LOGINS = 20_000;
const HEAVY_READS = 10;

interface Answer {
  readonly status: number;
  readonly retryAfter: string | null;
  readonly body: Record<string, unknown>;
}

void t.test('read, ingest and unauthenticated abuse at once', async (t) => {
  const db = await runDatabase();
  t.teardown(() => db.cleanup());
  const proc = await spawnVigil({
    port: await freePort(),
    env: { ...db.env, MAX_CONNECTIONS: String(MAX_CONNECTIONS), LOG_LEVEL: 'warn' },
    name: 'vigil(hostile)',
  });
  t.teardown(async () => {
    if (proc.exit() === null) await stopServer(proc);
  });
  const call = async (path: string, key: string | null, json?: unknown): Promise<Answer> => {
    const res = await fetch(`${proc.url}${path}`, {
      method: json === undefined ? 'GET' : 'POST',
      headers: {
        ...(key === null ? keyHeaders() : keyHeaders(key)),
        ...(json === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(json === undefined ? {} : { body: JSON.stringify(json) }),
    });
    const text = await res.text();
    let body: Record<string, unknown>;
    try {
      body = JSON.parse(text) as Record<string, unknown>;
    } catch {
      body = { text };
    }
    return { status: res.status, retryAfter: res.headers.get('retry-after'), body };
  };
  const keyOf = async (scope: string, extra: Record<string, unknown> = {}): Promise<string> => {
    const made = await call('/api/v1/keys', null, {
      name: `hostile ${scope} ${Math.random()}`,
      scope,
      ...extra,
    });
    t.equal(made.status, 201, `a ${scope} key made: ${JSON.stringify(made.body).slice(0, 200)}`);
    return made.body['key'] as string;
  };
  const readers = await Promise.all(Array.from({ length: HEAVY_READS / 2 }, () => keyOf('read')));
  const flooder = await keyOf('ingest', { allowedSources: ['flood'] });
  const sourceFlooder = await keyOf('ingest');

  // Material for the replays: failed and successful logins of many users in the last hour.
  for (let start = 0; start < SEEDED_LOGINS; start += 1000) {
    const batch = Array.from({ length: 1000 }, (_, i) => ({
      eventType: 'login',
      source: 'auth',
      userId: `u${(start + i) % 5000}`,
      metadata: { success: (start + i) % 4 === 3 },
    }));
    const answer = await call('/api/v1/events/batch', null, batch);
    t.equal(answer.status, 202, 'a seed batch stored');
  }
  const rule = await call('/api/v1/rules', null, {
    name: 'payments failing',
    ruleType: 'THRESHOLD',
    severity: 'CRITICAL',
    suppressionWindowMinutes: 0,
    ruleConfig: {
      metric: 'eventsByType[payment.failed]',
      operator: 'GREATER_THAN',
      threshold: 4,
      windowMinutes: 5,
    },
  });
  t.equal(rule.status, 201, `the watched rule made: ${JSON.stringify(rule.body).slice(0, 300)}`);
  const ruleId = rule.body['id'] as number;

  const tag = `hostile-${process.pid}-${Date.now()}`;
  const load = startIngestLoad({ url: proc.url, connections: 4, tag, requestsPerSecond: 200 });

  // 1. Heavy reads from read keys: PATTERN rule tests and backtests, all at once.
  const now = Date.now();
  const heavy = Array.from({ length: HEAVY_READS }, (_, i) => {
    const key = readers[Math.floor(i / 2)] as string;
    return i % 2 === 0
      ? call('/api/v1/rules/test', key, {
          name: `replay ${i}`,
          ruleType: 'PATTERN',
          severity: 'LOW',
          ruleConfig: LOGIN_CONFIG,
        })
      : call('/api/v1/rules/backtest', key, {
          rule: {
            name: `backtest ${i}`,
            ruleType: 'PATTERN',
            severity: 'LOW',
            ruleConfig: LOGIN_CONFIG,
          },
          from: new Date(now - 3_600_000).toISOString(),
          to: new Date(now).toISOString(),
        });
  });

  // 2. The caps filled: 1,000 types from a key limited to one source, 1,000 sources.
  const types = await call(
    '/api/v1/events/batch',
    flooder,
    Array.from({ length: 1000 }, (_, i) => ({ eventType: `junk.${i}`, source: 'flood' })),
  );
  t.equal(types.status, 202, '1,000 distinct types accepted');
  const sources = await call(
    '/api/v1/events/batch',
    sourceFlooder,
    Array.from({ length: 1000 }, (_, i) => ({ eventType: 'noise', source: `src-${i}` })),
  );
  t.equal(sources.status, 202, '1,000 distinct sources accepted');

  // 3. Twice MAX_CONNECTIONS sockets that never send CONNECT, from four loopback addresses (each
  // within the per-address bound): before issue 29 each took a MAX_CONNECTIONS place.
  const silent = await Promise.all(
    Array.from(
      { length: 2 * MAX_CONNECTIONS },
      (_, i) =>
        new Promise<WebSocket | null>((resolve) => {
          const ws = new WebSocket(`ws://127.0.0.1:${proc.port}/ws`, ['v12.stomp'], {
            localAddress: `127.0.0.${1 + (i % 4)}`,
          });
          ws.once('open', () => resolve(ws));
          ws.once('error', () => resolve(null));
          ws.once('unexpected-response', () => resolve(null));
        }),
    ),
  );
  t.teardown(() => {
    for (const ws of silent) ws?.terminate();
  });
  t.equal(
    silent.filter((ws) => ws !== null).length,
    2 * MAX_CONNECTIONS,
    'every silent socket opened (a pool of their own, not MAX_CONNECTIONS)',
  );
  const stomp = new WebSocket(`ws://127.0.0.1:${proc.port}/ws`, ['v12.stomp']);
  t.teardown(() => stomp.terminate());
  const connected = await new Promise<string>((resolve) => {
    stomp.once('open', () =>
      stomp.send(`CONNECT\naccept-version:1.2\nhost:vigil\npasscode:${readers[0] as string}\n\n\0`),
    );
    stomp.once('message', (data: Buffer) => resolve(data.toString('utf8').split('\n')[0] ?? ''));
    stomp.once('error', (error) => resolve(`error ${error.message}`));
  });
  t.equal(connected, 'CONNECTED', 'a STOMP session with a read key connects meanwhile');
  const whileSilent = await call('/api/v1/metrics', readers[0] as string);
  t.equal(whileSilent.status, 200, 'a keyed GET answers while the silent sockets are held');
  const ingestWhileSilent = await call('/api/v1/events', null, {
    eventType: 'payment.failed',
    source: 'billing',
  });
  t.equal(ingestWhileSilent.status, 202, 'keyed ingest answers while the silent sockets are held');

  // The watched type is counted exactly although the type cap is full, and its rule fires.
  for (let i = 0; i < 5; i++) {
    const answer = await call('/api/v1/events', null, {
      eventType: 'payment.failed',
      source: 'billing',
    });
    t.equal(answer.status, 202);
  }
  const deadline = Date.now() + 60_000;
  let fired = false;
  while (!fired && Date.now() < deadline) {
    const alerts = await call(`/api/v1/alerts?ruleId=${ruleId}`, null);
    const content = (alerts.body['content'] as { state?: string; status?: string }[]) ?? [];
    fired = content.length > 0;
    if (!fired) await new Promise((r) => setTimeout(r, 200));
  }
  t.ok(fired, 'the rule on eventsByType[payment.failed] fired with the type cap full');
  const snapshot = await call('/api/v1/metrics', readers[0] as string);
  const byType = (snapshot.body['eventsByType'] ?? {}) as Record<string, number>;
  t.equal(byType['payment.failed'], 6, 'payment.failed counted exactly, not as (other)');

  const answers = await Promise.all(heavy);
  for (const [i, a] of answers.entries()) {
    const refused = a.status === 429 || a.status === 503;
    t.ok(
      a.status === 200 || refused,
      `heavy read ${i}: ${a.status} ${JSON.stringify(a.body).slice(0, 160)}`,
    );
    if (refused) t.ok(a.retryAfter !== null, `heavy read ${i}: Retry-After on ${a.status}`);
  }
  t.ok(
    answers.some((a) => a.status === 200),
    'some heavy reads ran',
  );

  const report = await load.stop();
  t.equal(proc.exit(), null, 'the service never exited');
  const stored = await checkStored(db.sql, tag, report);
  t.ok(stored.acked > 0, `the producer was acknowledged (${stored.acked} events)`);
  t.equal(stored.lost, 0, 'every 202 stored');
  t.equal(stored.duplicated, 0, 'none twice');
  for (const ws of silent) ws?.terminate();
  t.equal((await stopServer(proc)).code, 0, 'exit 0 after SIGTERM');
});
