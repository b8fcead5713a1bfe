/**
 * Idempotent ingest across a crash (issue 22): producers post keyed events at full speed, the
 * service is killed with SIGKILL mid-stream, and once a restarted service is up every request of
 * the cut ingest is sent again with its key, those acknowledged, failed, in doubt and never sent
 * alike, as a producer retrying everything in doubt would. Each key must then be stored exactly
 * once, and each retry of an acknowledged event must answer that event's eventId.
 */
import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { freePort } from '../free-port.ts';
import { externalDatabase } from '../run-databases.ts';
import { spawnVigil, stopServer, type Exit } from '../service-process.ts';
import { startIngestLoad, type IngestReport } from './ingest-load.ts';

export interface IdempotentCrashOptions {
  readonly databaseUrl: string;
  readonly events: number;
  readonly connections: number;
  /** Events per request: 1 posts to /events, more to /events/batch. */
  readonly batchSize: number;
  /** SIGKILL once this many events are acknowledged. */
  readonly killAtAcked: number;
}

export interface IdempotentCrashResult {
  readonly ackedBeforeKill: number;
  /** The ingest the kill cut (requests refused after the kill are not resent in it). */
  readonly cut: IngestReport;
  /** Every request of the cut ingest sent again, after the restart. */
  readonly retried: IngestReport;
  /** Stored rows of each event, by sequence number (absent: none). */
  readonly rowsPerSeq: ReadonlyMap<number, number>;
  /** Stored idempotency keys of this run. */
  readonly keys: number;
  /** Events acknowledged in the cut ingest whose retry answered another eventId. */
  readonly changedAcks: readonly number[];
  readonly finalExit: Exit;
}

export async function runIdempotentCrash(
  options: IdempotentCrashOptions,
): Promise<IdempotentCrashResult> {
  const db = externalDatabase(options.databaseUrl);
  const tag = `idem-crash-${randomBytes(4).toString('hex')}`;
  const port = await freePort();
  const load = (url: string, retryRefused: boolean) =>
    startIngestLoad({
      url,
      connections: options.connections,
      total: options.events,
      batchSize: options.batchSize,
      tag,
      idempotencyKeys: true,
      retryRefused,
      timeoutMs: 15_000,
    });
  try {
    const first = await spawnVigil({ port, env: db.env, name: 'vigil#1' });
    const cutLoad = load(first.url, false);
    while (cutLoad.acked() < options.killAtAcked && cutLoad.settled() < options.events) {
      await sleep(2);
    }
    const ackedBeforeKill = cutLoad.acked();
    first.signal('SIGKILL');
    await first.exited;
    const cut = await cutLoad.done;

    const second = await spawnVigil({ port, env: db.env, name: 'vigil#2', readyTimeoutMs: 60_000 });
    const retried = await load(second.url, true).done;
    const finalExit = await stopServer(second);

    const rows = await db.sql<{ session_id: string; n: number }[]>`
      SELECT session_id, count(*)::int4 AS n FROM events WHERE source = ${tag} GROUP BY 1`;
    const rowsPerSeq = new Map(rows.map((r) => [Number(r.session_id.slice(tag.length + 1)), r.n]));
    const [keys] = await db.sql<{ n: number }[]>`
      SELECT count(*)::int4 AS n FROM idempotency_keys WHERE key LIKE ${`${tag}-%`}`;
    const changedAcks: number[] = [];
    for (const [seq, outcome] of cut.outcomes) {
      const again = retried.outcomes.get(seq);
      if (outcome.kind === 'acked' && (again?.kind !== 'acked' || again.id !== outcome.id)) {
        changedAcks.push(seq);
      }
    }
    return {
      ackedBeforeKill,
      cut,
      retried,
      rowsPerSeq,
      keys: keys?.n ?? 0,
      changedAcks,
      finalExit,
    };
  } finally {
    await db.cleanup();
  }
}
