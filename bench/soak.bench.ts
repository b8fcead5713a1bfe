/**
 * `npm run bench:soak`: SOAK_SECONDS (default 600) at half capacity with reads, STOMP subscribers and
 * rules; every 10 s: RSS (/proc), health latency (event-loop proxy), rates; then every 202 checked.
 */
import http from 'node:http';
import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { freePort } from '../test/support/shared.ts';
import { intKnob } from './harness/knobs.ts';
import { num, printTable } from './report/print-table.ts';
import { runDatabase } from '../test/support/shared.ts';
import { brokenPromises, checkStored, startIngestLoad } from '../test/support/shared.ts';
import { mib, percentile, probeHealth, startSampler } from '../test/support/shared.ts';
import { spawnVigil, stopServer } from '../test/support/shared.ts';
import { KEY_HEADERS, keyedFetch, keyRefused } from './load-generators/client-key.ts';
import { subscribe } from '../test/support/shared.ts';

const SECONDS = intKnob('SOAK_SECONDS', 600);
const SAMPLE_SECONDS = intKnob('SOAK_SAMPLE_SECONDS', 10);
const CONNECTIONS = intKnob('SOAK_CONNECTIONS', 8);
const SUBSCRIBERS = intKnob('SOAK_SUBSCRIBERS', 20);
const READS_PER_SECOND = intKnob('SOAK_READS_PER_SECOND', 20);
const RATE_OVERRIDE = intKnob('SOAK_RATE', 0, 0);

const log = (line: string): void => {
  process.stderr.write(`${line}\n`);
};

const db = await runDatabase();
const proc = await spawnVigil({
  port: await freePort(),
  env: { ...db.env, LOG_LEVEL: 'warn' },
  name: 'vigil(soak)',
});
const tag = `soak-${randomBytes(4).toString('hex')}`;
const json = { 'content-type': 'application/json' };

try {
  // Capacity: 10 s at full speed from the same number of connections.
  let rate = RATE_OVERRIDE;
  if (rate === 0) {
    log('soak: measuring capacity (10 s at full speed)');
    const probe = startIngestLoad({
      url: proc.url,
      connections: CONNECTIONS,
      tag: `${tag}-capacity`,
    });
    await sleep(10_000);
    const report = await probe.stop();
    rate = Math.max(1, Math.round(report.acked / 10 / 2));
    log(`soak: capacity ${num(report.acked / 10)} events/s; soaking at ${num(rate)} events/s`);
  }

  // Rules: one that fires (10 % of events are ERROR), one that never does, one rate change.
  const rules = [
    {
      name: `${tag} error rate`,
      ruleType: 'THRESHOLD',
      severity: 'HIGH',
      ruleConfig: { metric: 'errorRate', operator: 'GREATER_THAN', threshold: 5, windowMinutes: 1 },
      suppressionWindowMinutes: 0,
      maxAlertsPerHour: 600,
    },
    {
      name: `${tag} never`,
      ruleType: 'THRESHOLD',
      severity: 'LOW',
      ruleConfig: { metric: 'totalEvents', operator: 'GREATER_THAN', threshold: 1e15 },
    },
    {
      name: `${tag} surge`,
      ruleType: 'RATE_CHANGE',
      severity: 'MEDIUM',
      ruleConfig: {
        metric: 'totalEvents',
        operator: 'GREATER_THAN',
        threshold: 50,
        windowMinutes: 1,
      },
      suppressionWindowMinutes: 1,
    },
  ];
  for (const rule of rules) {
    const res = await keyedFetch(`${proc.url}/api/v1/rules`, {
      method: 'POST',
      headers: json,
      body: JSON.stringify(rule),
    });
    if (res.status !== 201) throw new Error(`rule not created: ${res.status} ${await res.text()}`);
  }

  const subscribers = await Promise.all(
    Array.from({ length: SUBSCRIBERS }, () =>
      subscribe(`ws://127.0.0.1:${proc.port}/ws`, ['/topic/metrics', '/topic/alerts']),
    ),
  );
  const ingestTimes: { at: number; ms: number; ok: boolean }[] = [];
  const load = startIngestLoad({
    url: proc.url,
    connections: CONNECTIONS,
    tag,
    requestsPerSecond: rate,
    timeoutMs: 30_000,
    onOutcome: (_seq, outcome, startedAt, ms) =>
      ingestTimes.push({ at: startedAt + ms, ms, ok: outcome.kind === 'acked' }),
  });

  // Readers: a mix of the read endpoints at READS_PER_SECOND.
  const reads = [
    '/api/v1/events?page=0&size=20',
    '/api/v1/events?page=50&size=100',
    '/api/v1/events/type/reliability.3?size=50',
    '/api/v1/metrics',
    '/api/v1/rules',
    '/api/v1/alerts?size=50',
    '/api/v1/events/evt_1',
    '/api/v1/rules/statistics',
  ];
  const readTimes: { at: number; ms: number; ok: boolean }[] = [];
  let reading = true;
  /** Reads answered 401 or 403: the key was refused, and the read figures mean nothing. */
  let refusedReads = 0;
  const agent = new http.Agent({ keepAlive: true, maxSockets: 4 });
  const readers = (async () => {
    let i = 0;
    while (reading) {
      const path = reads[i++ % reads.length] as string;
      const t0 = performance.now();
      const ok = await new Promise<boolean>((resolve) => {
        const req = http.get(`${proc.url}${path}`, { agent, headers: KEY_HEADERS }, (res) => {
          res.resume();
          if (keyRefused(res.statusCode ?? 0)) refusedReads++;
          res.on('end', () =>
            resolve(
              (res.statusCode ?? 0) < 400 || (res.statusCode === 404 && path.endsWith('evt_1')),
            ),
          );
        });
        req.on('error', () => resolve(false));
      });
      readTimes.push({ at: Date.now(), ms: performance.now() - t0, ok });
      await sleep(1000 / READS_PER_SECOND);
    }
  })();

  const health = startSampler(250, () => probeHealth(proc.url));
  const rows: (string | number)[][] = [];
  const rssSeries: number[] = [];
  const started = Date.now();
  let windowStart = started;
  log(`soak: ${SECONDS} s, sampling every ${SAMPLE_SECONDS} s`);
  while (Date.now() - started < SECONDS * 1000) {
    await sleep(SAMPLE_SECONDS * 1000 - ((Date.now() - started) % (SAMPLE_SECONDS * 1000)));
    const now = Date.now();
    const inWindow = <T extends { at: number }>(xs: readonly T[]): T[] =>
      xs.filter((x) => x.at >= windowStart && x.at < now);
    const ingest = inWindow(ingestTimes);
    const read = inWindow(readTimes);
    const probes = health.samples
      .filter((s) => s.at >= windowStart && s.at < now)
      .map((s) => s.value);
    const messages = subscribers.map(
      (s) => s.messageTimes.filter((t) => t >= windowStart && t < now).length,
    );
    const rss = proc.rssKiB() ?? 0;
    rssSeries.push(rss);
    rows.push([
      Math.round((now - started) / 1000),
      mib(rss),
      num(
        percentile(
          probes.map((p) => p.ms),
          50,
        ),
        1,
      ),
      num(
        percentile(
          probes.map((p) => p.ms),
          99,
        ),
        1,
      ),
      num(Math.max(0, ...probes.map((p) => p.ms)), 1),
      probes.filter((p) => p.status !== 200).length,
      num(ingest.filter((x) => x.ok).length / ((now - windowStart) / 1000)),
      num(
        percentile(
          ingest.filter((x) => x.ok).map((x) => x.ms),
          99,
        ),
        1,
      ),
      ingest.filter((x) => !x.ok).length,
      read.length,
      num(
        percentile(
          read.map((x) => x.ms),
          99,
        ),
        1,
      ),
      read.filter((x) => !x.ok).length,
      `${Math.min(...messages)}–${Math.max(...messages)}`,
    ]);
    log(`soak: ${rows.length * SAMPLE_SECONDS} s, RSS ${mib(rss)} MiB`);
    windowStart = now;
  }
  const report = await load.stop();
  reading = false;
  await readers;
  agent.destroy();
  await health.stop();
  const alerts = await db.sql<{ n: string }[]>`SELECT count(*)::text AS n FROM alerts`;
  const subscribersClosed = subscribers.filter((s) => s.closed() !== null).length;
  await Promise.all(subscribers.map((s) => s.close()));

  process.stdout.write(
    `# Vigil soak: ${SECONDS} s at ${num(rate)} events/s (half capacity) from ${CONNECTIONS} connections, ` +
      `${READS_PER_SECOND} reads/s, ${SUBSCRIBERS} STOMP subscribers (metrics + alerts), ${rules.length} active rules; ${db.kind} PostgreSQL\n\n`,
  );
  printTable(
    [
      { title: 's', align: 'right' },
      { title: 'RSS MiB', align: 'right' },
      { title: 'health p50 ms', align: 'right' },
      { title: 'health p99 ms', align: 'right' },
      { title: 'health max ms', align: 'right' },
      { title: 'health not 200', align: 'right' },
      { title: 'ingest 202/s', align: 'right' },
      { title: 'ingest p99 ms', align: 'right' },
      { title: 'ingest not 202', align: 'right' },
      { title: 'reads', align: 'right' },
      { title: 'read p99 ms', align: 'right' },
      { title: 'read errors', align: 'right' },
      { title: 'STOMP msgs per subscriber', align: 'right' },
    ],
    rows,
  );
  // Least-squares slope of RSS over the second half (the first half includes warm-up), MiB/min.
  const half = rssSeries.slice(Math.floor(rssSeries.length / 2));
  const xs = half.map((_, k) => k * SAMPLE_SECONDS);
  const mean = (v: readonly number[]): number =>
    v.reduce((a, b) => a + b, 0) / Math.max(1, v.length);
  const mx = mean(xs);
  const my = mean(half);
  const sxx = xs.reduce((a, x) => a + (x - mx) ** 2, 0);
  const slope =
    sxx === 0
      ? 0
      : (xs.reduce((a, x, k) => a + (x - mx) * ((half[k] as number) - my), 0) / sxx / 1024) * 60;
  const check = await checkStored(db.sql, tag, report);
  process.stdout.write(
    `\nRSS: first sample ${mib(rssSeries[0] ?? null)} MiB, last ${mib(rssSeries[rssSeries.length - 1] ?? null)} MiB, ` +
      `max ${mib(Math.max(...rssSeries))} MiB; second half drifts ${slope.toFixed(2)} MiB/min.\n` +
      `Event-loop delay is not exposed by the service: health latency above is its proxy. ` +
      `Actor queue depths (storage pool, metrics actor) are not exposed either: not measured.\n` +
      `Ingest: ${num(check.acked)} acknowledged, ${num(check.rows)} stored, ${check.lost} lost, ${check.duplicated} duplicated; ` +
      `answers: ${[...report.counts].map(([k, v]) => `${k}: ${num(v)}`).join(', ')}. Alerts stored: ${alerts[0]?.n ?? '?'}. ` +
      `Subscribers closed by the service: ${subscribersClosed}.\n`,
  );
  const problems = brokenPromises(check);
  const exit = await stopServer(proc);
  if (exit.code !== 0) problems.push(`exit ${exit.code} after SIGTERM`);
  if (subscribersClosed > 0) problems.push(`${subscribersClosed} subscribers closed`);
  if (refusedReads > 0)
    problems.push(`${refusedReads} reads answered 401 or 403: the key was refused`);
  process.stdout.write(
    problems.length === 0
      ? '\nEvery check held.\n'
      : `\nFAILED:\n${problems.map((p) => `- ${p}`).join('\n')}\n`,
  );
  process.exitCode = problems.length === 0 ? 0 : 1;
} finally {
  if (proc.exit() === null) await stopServer(proc);
  await db.cleanup();
}
