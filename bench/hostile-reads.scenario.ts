/**
 * `CHAOS=reads npm run bench:chaos`: ingest latency alone, then with 10 read keys each asking for
 * PATTERN rule tests that replay the last hour (~70,000 stored events of the types the rule reads)
 * as fast as they are answered (issue 29: expensive reads never share ingest's capacity). The same
 * paced producer runs in both phases; the figure is ingest p99 with the reads over p99 alone.
 */
import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { insertEvents } from '../src/db/events-repository.ts';
import type { NewEvent } from '../src/domain/event.ts';
import { freePort } from '../test/support/shared.ts';
import { keyHeaders } from '../test/support/shared.ts';
import {
  brokenPromises,
  checkStored,
  startIngestLoad,
  type IngestReport,
} from '../test/support/shared.ts';
import { runDatabase } from '../test/support/shared.ts';
import { spawnVigil, stopServer } from '../test/support/shared.ts';

export interface HostileReadsResult {
  readonly seeded: number;
  readonly alone: IngestReport;
  readonly withReads: IngestReport;
  /** Rule-test answers by status during the second phase. */
  readonly ruleTests: ReadonlyMap<number, number>;
  readonly problems: readonly string[];
  readonly exitCode: number | null;
}

const HOUR = 3_600_000;

/** The bounds this scenario is about, when set on the bench's command line. */
const serviceVariables = (): Record<string, string> =>
  Object.fromEntries(
    Object.entries(process.env).filter(
      (entry): entry is [string, string] =>
        /^(RULE_TEST_|READS_(WORKERS|CONNECTIONS)|EVENT_PAGES_|DB_QUERY_TIMEOUT_MS)/.test(
          entry[0],
        ) && entry[1] !== undefined,
    ),
  );

function hourOfEvents(count: number, now: number): NewEvent[] {
  return Array.from({ length: count }, (_, i) => {
    const at = now - HOUR + Math.floor((i * (HOUR - 60_000)) / count);
    return {
      eventType: i % 3 === 0 ? 'checkout' : 'login',
      source: 'seed',
      timestamp: at,
      receivedAt: at,
      userId: `u${i % 5000}`,
      sessionId: null,
      severity: 'INFO',
      tags: {},
      metadata: { i },
    };
  });
}

const PATTERN_RULE = {
  name: 'Login then checkout',
  ruleType: 'PATTERN',
  severity: 'LOW',
  ruleConfig: {
    partitionBy: 'userId',
    withinMinutes: 30,
    steps: [{ eventType: 'login' }, { eventType: 'checkout' }],
  },
};

export async function runHostileReads(options: {
  readonly seeded: number;
  readonly phaseMs: number;
  readonly requestsPerSecond: number;
  readonly honourRetryAfter: boolean;
  readonly log: (line: string) => void;
}): Promise<HostileReadsResult> {
  const db = await runDatabase();
  const problems: string[] = [];
  const proc = await spawnVigil({
    port: await freePort(),
    // Service variables given to the bench (RULE_TEST_MAX_RUNNING=...) reach the service.
    env: { ...db.env, LOG_LEVEL: 'error', ...serviceVariables() },
    name: 'vigil(reads)',
  });
  try {
    options.log(`reads: seeding ${options.seeded} events of the last hour`);
    const now = Date.now();
    const events = hourOfEvents(options.seeded, now);
    for (let i = 0; i < events.length; i += 5000)
      await insertEvents(db.sql, events.slice(i, i + 5000), now);
    const keys = await Promise.all(
      Array.from({ length: 10 }, async (_, i) => {
        const res = await fetch(`${proc.url}/api/v1/keys`, {
          method: 'POST',
          headers: { ...keyHeaders(), 'content-type': 'application/json' },
          body: JSON.stringify({ name: `reader ${i}`, scope: 'read' }),
        });
        return ((await res.json()) as { key: string }).key;
      }),
    );
    const phase = async (tag: string): Promise<IngestReport> => {
      const load = startIngestLoad({
        url: proc.url,
        connections: 8,
        tag,
        requestsPerSecond: options.requestsPerSecond,
      });
      await sleep(options.phaseMs);
      const report = await load.stop();
      problems.push(...brokenPromises(await checkStored(db.sql, tag, report)));
      return report;
    };
    options.log('reads: ingest alone');
    const alone = await phase(`reads-alone-${randomBytes(3).toString('hex')}`);
    options.log('reads: ingest with 10 read keys replaying PATTERN rule tests');
    const ruleTests = new Map<number, number>();
    let reading = true;
    const reader = async (key: string): Promise<void> => {
      while (reading) {
        const res = await fetch(`${proc.url}/api/v1/rules/test`, {
          method: 'POST',
          headers: { ...keyHeaders(key), 'content-type': 'application/json' },
          body: JSON.stringify(PATTERN_RULE),
        });
        await res.arrayBuffer();
        ruleTests.set(res.status, (ruleTests.get(res.status) ?? 0) + 1);
        // Retry-After honoured, or (honourRetryAfter false) a client that comes back at once.
        if (res.status !== 200) {
          const wait = options.honourRetryAfter
            ? Number(res.headers.get('retry-after') ?? 1)
            : 0.05;
          await sleep(wait * 1000);
        }
      }
    };
    const readers = keys.map((key) => reader(key));
    const withReads = await phase(`reads-with-${randomBytes(3).toString('hex')}`);
    reading = false;
    await Promise.all(readers);
    const exit = await stopServer(proc);
    return { seeded: options.seeded, alone, withReads, ruleTests, problems, exitCode: exit.code };
  } finally {
    if (proc.exit() === null) await stopServer(proc);
    await db.cleanup();
  }
}
