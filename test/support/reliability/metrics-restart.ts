/**
 * Metrics across a restart (issue 33): producers ingest, the service is stopped (SIGTERM) or
 * killed (kill -9, alone or with its embedded PostgreSQL) mid-stream and restarted on the same
 * data; once every event sent is settled, GET /api/v1/metrics must count exactly the events the
 * table holds, as an uninterrupted run counting those events would.
 */
import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type postgres from 'postgres';
import { freePort } from '../free-port.ts';
import { keyHeaders } from '../keys.ts';
import { childrenOf, postmasterPid, waitPostgresGone } from '../processes.ts';
import { embeddedDataDir, externalDatabase, type RunDatabase } from '../run-databases.ts';
import { spawnVigil, stopServer, type ServerProcess } from '../service-process.ts';
import { startIngestLoad } from './ingest-load.ts';

export type RestartFault = 'SIGTERM' | 'kill -9' | 'kill -9 with postgres';

/** The figures of GET /api/v1/metrics that the events decide exactly. */
export interface ExactFigures {
  readonly totalEvents: number;
  readonly totalErrors: number;
  readonly eventsByType: Readonly<Record<string, number>>;
  readonly eventsBySeverity: Readonly<Record<string, number>>;
  readonly errorsByType: Readonly<Record<string, number>>;
  readonly lastHourEvents: number;
  readonly uniqueUsers: number;
  /** userId -> eventCount of the top users listed. */
  readonly topUsers: Readonly<Record<string, number>>;
}

export interface MetricsSnapshotBody {
  readonly summary: { totalEvents: number; uniqueUsers: number; errorRate: number };
  readonly eventsByType: Record<string, number>;
  readonly eventsBySeverity: Record<string, number>;
  readonly errorMetrics: { totalErrors: number; errorsByType: Record<string, number> };
  readonly timeWindows: { last1Hour: { events: number } };
  readonly topUsers: { userId: string; eventCount: number }[];
  readonly restoredFrom?: {
    checkpointAt: string | null;
    replayedEvents: number;
    restoredAt: string;
    restoreMs: number;
    rebuilt?: { reason: string };
  };
}

export const figuresOf = (m: MetricsSnapshotBody): ExactFigures => ({
  totalEvents: m.summary.totalEvents,
  totalErrors: m.errorMetrics.totalErrors,
  eventsByType: m.eventsByType,
  eventsBySeverity: m.eventsBySeverity,
  errorsByType: m.errorMetrics.errorsByType,
  lastHourEvents: m.timeWindows.last1Hour.events,
  uniqueUsers: m.summary.uniqueUsers,
  topUsers: Object.fromEntries(m.topUsers.map((u) => [u.userId, u.eventCount])),
});

/**
 * What an uninterrupted run counts for the stored events (all of this run's, all inside the
 * hour): computed from the table, row by row. `topN`: how many top users the snapshot lists.
 */
export async function expectedFigures(sql: postgres.Sql, topN: number): Promise<ExactFigures> {
  const rows = await sql<{ event_type: string; severity: string; user_id: string | null }[]>`
    SELECT event_type, severity, user_id FROM events`;
  const byType: Record<string, number> = {};
  const bySeverity: Record<string, number> = { INFO: 0, WARNING: 0, ERROR: 0, CRITICAL: 0 };
  const errorsByType: Record<string, number> = {};
  const users = new Map<string, number>();
  let errors = 0;
  for (const r of rows) {
    byType[r.event_type] = (byType[r.event_type] ?? 0) + 1;
    bySeverity[r.severity] = (bySeverity[r.severity] ?? 0) + 1;
    const isError = r.severity === 'ERROR' || r.severity === 'CRITICAL';
    if (isError) {
      errors++;
      errorsByType[r.event_type] = (errorsByType[r.event_type] ?? 0) + 1;
    }
    if (r.user_id !== null) users.set(r.user_id, (users.get(r.user_id) ?? 0) + 1);
  }
  // Ties broken as the snapshot may break them: only users whose count is decided are compared.
  const ranked = [...users].sort((a, b) => b[1] - a[1]);
  const cut = ranked[topN - 1]?.[1] ?? 0;
  const topUsers = Object.fromEntries(ranked.filter(([, n]) => n > cut));
  return {
    totalEvents: rows.length,
    totalErrors: errors,
    eventsByType: byType,
    eventsBySeverity: bySeverity,
    errorsByType,
    lastHourEvents: rows.length,
    uniqueUsers: users.size,
    topUsers,
  };
}

export async function readMetrics(proc: ServerProcess): Promise<MetricsSnapshotBody> {
  const res = await fetch(`${proc.url}/api/v1/metrics`, { headers: keyHeaders() });
  if (res.status !== 200) throw new Error(`GET /metrics answered ${res.status}`);
  return (await res.json()) as MetricsSnapshotBody;
}

/** The snapshot once it counts `total` events (each commit reaches it within a refresh or two). */
export async function metricsCounting(
  proc: ServerProcess,
  total: number,
  timeoutMs = 15_000,
): Promise<MetricsSnapshotBody> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const metrics = await readMetrics(proc);
    if (metrics.summary.totalEvents === total || Date.now() > deadline) return metrics;
    await sleep(100);
  }
}

/** Keeps only the users whose count the expected figures decide (see expectedFigures). */
export const decidedTopUsers = (
  seen: ExactFigures,
  expected: ExactFigures,
): Readonly<Record<string, number>> =>
  Object.fromEntries(
    Object.keys(expected.topUsers).map((user) => [user, seen.topUsers[user] ?? 0]),
  );

export interface RestartOptions {
  /** External PostgreSQL URL, or null for the service's embedded PostgreSQL. */
  readonly databaseUrl: string | null;
  readonly fault: RestartFault;
  readonly events: number;
  readonly connections: number;
  /** Requests (of 5 events) per second: the ingest must outlast the fault. */
  readonly requestsPerSecond: number;
  /** The fault comes once this many events are acknowledged (after a checkpoint or two). */
  readonly faultAtAcked: number;
  readonly env?: Readonly<Record<string, string>>;
  /**
   * Also a THRESHOLD rule on the error rate (10 % of the events are errors): FIRING before the
   * fault; after it, the result says its state and its alerts.
   */
  readonly withRule?: boolean;
}

export interface RuleAfterRestart {
  readonly state: string;
  /** Its alerts (incidents), all of them: one means no duplicate. */
  readonly alerts: number;
  readonly firingAlerts: number;
}

export interface RestartResult {
  readonly seen: ExactFigures;
  readonly expected: ExactFigures;
  readonly restoredFrom: MetricsSnapshotBody['restoredFrom'];
  readonly ackedBeforeFault: number;
  readonly acked: number;
  readonly rule: RuleAfterRestart | null;
}

/** GET (or POST `body`) with the test key; the parsed answer, or a throw on a status >= 300. */
export async function api(proc: ServerProcess, path: string, body?: unknown): Promise<unknown> {
  const res = await fetch(`${proc.url}${path}`, {
    method: body === undefined ? 'GET' : 'POST',
    headers: { ...keyHeaders(), 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  if (res.status >= 300) throw new Error(`${path}: ${res.status} ${text}`);
  return JSON.parse(text) as unknown;
}

/** The alerts (incidents) of a rule, all of them. */
export const alertsOf = async (proc: ServerProcess, ruleId: number): Promise<{ state: string }[]> =>
  (
    (await api(proc, `/api/v1/alerts?size=100&ruleId=${ruleId}`)) as {
      content: { state: string }[];
    }
  ).content;

const ticksOf = async (proc: ServerProcess): Promise<number> =>
  ((await api(proc, '/api/v1/rules/evaluation-stats?last=1')) as { ticks: number }).ticks;

/** Polls until `ready`, at most `timeoutMs`; throws with `what` then. */
async function until<T>(read: () => Promise<T>, ready: (v: T) => boolean, what: string) {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const value = await read();
    if (ready(value)) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(100);
  }
}

export async function runMetricsRestart(options: RestartOptions): Promise<RestartResult> {
  const db: RunDatabase =
    options.databaseUrl === null ? await embeddedDataDir() : externalDatabase(options.databaseUrl);
  const tag = `restart-${randomBytes(4).toString('hex')}`;
  const port = await freePort();
  // Checkpoints every second: the fault lands after some, with events committed since.
  const env = { ...db.env, METRICS_CHECKPOINT_SECONDS: '1', ...options.env };
  try {
    const first = await spawnVigil({ port, env, name: 'vigil#1' });
    let ruleId: number | null = null;
    if (options.withRule === true) {
      const rule = (await api(first, '/api/v1/rules', {
        name: 'errors over 5 %',
        ruleType: 'THRESHOLD',
        ruleConfig: {
          metric: 'errorRate',
          operator: 'GREATER_THAN',
          threshold: 5,
          windowMinutes: 5,
        },
        severity: 'HIGH',
      })) as { id: number };
      ruleId = rule.id;
    }
    const load = startIngestLoad({
      url: first.url,
      connections: options.connections,
      total: options.events,
      tag,
      batchSize: 5,
      requestsPerSecond: options.requestsPerSecond,
      retryRefused: true,
      timeoutMs: 15_000,
    });
    while (load.acked() < options.faultAtAcked && load.settled() < options.events) await sleep(2);
    const ackedBeforeFault = load.acked();
    if (ruleId !== null) {
      const id = ruleId;
      await until(
        () => alertsOf(first, id),
        (alerts) => alerts.length > 0,
        'the rule to fire',
      );
    }
    let postgresPids: number[] = [];
    if (db.pgDataDir !== null) {
      const pid = postmasterPid(db.pgDataDir);
      if (pid !== null) postgresPids = [pid, ...childrenOf(pid)];
    }
    if (options.fault === 'SIGTERM') await stopServer(first);
    else {
      if (options.fault === 'kill -9') first.signal('SIGKILL');
      else first.signalGroup('SIGKILL');
      await first.exited;
      if (options.fault === 'kill -9 with postgres') await waitPostgresGone(postgresPids);
    }
    const second = await spawnVigil({ port, env, name: 'vigil#2', readyTimeoutMs: 60_000 });
    const report = await load.done;
    const expected = await expectedFigures(db.sql, 10);
    const metrics = await metricsCounting(second, expected.totalEvents);
    let rule: RuleAfterRestart | null = null;
    if (ruleId !== null) {
      // Ten evaluations after the restored snapshot: a duplicate would have fired by then.
      const ticks = await ticksOf(second);
      await until(
        () => ticksOf(second),
        (now) => now >= ticks + 10,
        '10 evaluations',
      );
      const status = (await api(second, `/api/v1/rules/${ruleId}/status`)) as { state: string };
      const alerts = await alertsOf(second, ruleId);
      rule = {
        state: status.state,
        alerts: alerts.length,
        firingAlerts: alerts.filter((a) => a.state === 'FIRING').length,
      };
    }
    await stopServer(second);
    return {
      seen: figuresOf(metrics),
      expected,
      restoredFrom: metrics.restoredFrom,
      ackedBeforeFault,
      acked: report.acked,
      rule,
    };
  } finally {
    await db.cleanup();
  }
}

/** POSTs `n` events of `eventType` in one batch; answers their ids (all must be accepted). */
export async function postBatch(proc: ServerProcess, eventType: string, n: number): Promise<void> {
  const res = await fetch(`${proc.url}/api/v1/events/batch`, {
    method: 'POST',
    headers: { ...keyHeaders(), 'content-type': 'application/json' },
    body: JSON.stringify(
      Array.from({ length: n }, (_, i) => ({ eventType, source: 'reset', userId: `u${i % 3}` })),
    ),
  });
  if (res.status !== 202) throw new Error(`batch answered ${res.status}: ${await res.text()}`);
  await res.arrayBuffer();
}

export async function resetMetricsOf(proc: ServerProcess): Promise<void> {
  const res = await fetch(`${proc.url}/api/v1/metrics/reset`, {
    method: 'POST',
    headers: keyHeaders(),
  });
  if (res.status !== 200) throw new Error(`reset answered ${res.status}`);
  await res.arrayBuffer();
}

export interface ResetRestartResult {
  readonly beforeFault: MetricsSnapshotBody;
  readonly afterRestart: MetricsSnapshotBody;
}

/**
 * Events, a reset, more events, then kill -9 with no periodic checkpoint (0): the one the reset
 * wrote is all there is; the restart must count the events after the reset, exactly.
 */
export async function runResetRestart(databaseUrl: string): Promise<ResetRestartResult> {
  const db = externalDatabase(databaseUrl);
  const port = await freePort();
  const env = { ...db.env, METRICS_CHECKPOINT_SECONDS: '0', METRICS_REFRESH_MS: '100' };
  try {
    const first = await spawnVigil({ port, env, name: 'vigil#1' });
    await postBatch(first, 'before.reset', 50);
    await metricsCounting(first, 50);
    await resetMetricsOf(first);
    await postBatch(first, 'after.reset', 30);
    const beforeFault = await metricsCounting(first, 30);
    first.signalGroup('SIGKILL');
    await first.exited;
    const second = await spawnVigil({ port, env, name: 'vigil#2', readyTimeoutMs: 60_000 });
    const afterRestart = await readMetrics(second);
    await stopServer(second);
    return { beforeFault, afterRestart };
  } finally {
    await db.cleanup();
  }
}

/**
 * Events, a stop (its checkpoint), the checkpoint's bytes overwritten with `body`, a start: the
 * actor logs it and counts the stored events of the last hour again.
 */
export async function runBadCheckpointRestart(
  databaseUrl: string,
  body: Buffer,
): Promise<MetricsSnapshotBody> {
  const db = externalDatabase(databaseUrl);
  const port = await freePort();
  const env = { ...db.env, METRICS_CHECKPOINT_SECONDS: '0' };
  try {
    const first = await spawnVigil({ port, env, name: 'vigil#1' });
    await postBatch(first, 'stored', 40);
    await metricsCounting(first, 40);
    await stopServer(first);
    await db.sql`UPDATE metrics_checkpoints SET body = ${body}`;
    const second = await spawnVigil({ port, env, name: 'vigil#2', readyTimeoutMs: 60_000 });
    const metrics = await readMetrics(second);
    await stopServer(second);
    return metrics;
  } finally {
    await db.cleanup();
  }
}
