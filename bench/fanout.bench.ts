/**
 * `npm run bench:fanout`: STOMP fan-out to 1,000 /topic/metrics sessions: how far apart the
 * sessions receive each tick (idle and under ingest), the front thread's CPU per tick, and what
 * the subscribed sessions cost an ingest at c=50 (rounds alternate unsubscribed / subscribed).
 */
import { loadConfig } from '../src/config.ts';
import { ingestSpreadKnobs, intKnob } from './harness/knobs.ts';
import { startService } from './harness/bench-service.ts';
import { log, median } from './load-generators/run-load.ts';
import { runFanout, type Fanout, type FanoutWindow } from './load-generators/stomp-fanout.ts';
import type { EventSpread } from './load-generators/event-mix.ts';
import { errorText, loadAverage, machineNote, out, serviceNote } from './report/bench-notes.ts';
import { LOAD_COLUMNS, loadRow } from './report/load-table.ts';
import { num, printTable } from './report/print-table.ts';
import { profileDirFor, summariseProfiles } from './report/profile-summary.ts';

// Knobs (env): FANOUT_SESSIONS, FANOUT_CONNECTIONS (autocannon c), ROUNDS, FANOUT_DURATION (s),
// WARMUP (s), FANOUT_IDLE (s), FANOUT_SEED (events stored first, so the snapshot names all
// INGEST_TYPES types), SEED_BATCH, SEED_CONNECTIONS, INGEST_TYPES, INGEST_SOURCES, INGEST_USERS.
// PROFILE=1 profiles the service; service variables pass through.
const ROUNDS = intKnob('ROUNDS', 3);
const WARMUP = intKnob('WARMUP', 3, 0);
const SPREAD: EventSpread = ingestSpreadKnobs();
const FANOUT_SESSIONS = intKnob('FANOUT_SESSIONS', 1000);
const FANOUT_CONNECTIONS = intKnob('FANOUT_CONNECTIONS', 50);
const FANOUT_DURATION = intKnob('FANOUT_DURATION', 10);
const FANOUT_IDLE = intKnob('FANOUT_IDLE', 10);
const FANOUT_SEED = intKnob('FANOUT_SEED', 20_000, 0);
const SEED_BATCH = intKnob('SEED_BATCH', 1000);
const SEED_CONNECTIONS = intKnob('SEED_CONNECTIONS', 4);

const TARGET_SPREAD_MS = 100;
const TARGET_DROP = 0.1;

function report(fan: Fanout, note: string): void {
  out(`## STOMP fan-out: ${num(fan.sessions)} sessions on /topic/metrics (one subscriber process)`);
  out();
  const spreadRow = (
    name: string,
    { spread: s, window: w, frontCpuMs }: FanoutWindow,
  ): string[] => [
    name,
    String(s.ticks),
    `${s.minReceivers === Infinity ? 0 : s.minReceivers} / ${fan.sessions}`,
    num(s.p50Ms, 1),
    num(s.p99Ms, 1),
    num(s.maxMs, 1),
    `${s.ticksOnTime} / ${s.ticks}`,
    num(s.snapshotBytes),
    num(frontCpuMs / Math.max(1, s.ticks), 1),
    num((w.cpuPercent / 100) * (w.windowMs / Math.max(1, s.ticks)), 1),
    String(Object.values(w.closes).reduce((a, b) => a + b, 0) + w.errorFrames),
  ];
  printTable(
    [
      { title: 'ticks measured while' },
      { title: 'ticks', align: 'right' },
      { title: 'min receivers', align: 'right' },
      { title: 'spread p50 ms', align: 'right' },
      { title: 'p99 ms', align: 'right' },
      { title: 'max ms', align: 'right' },
      { title: `all within ${TARGET_SPREAD_MS} ms`, align: 'right' },
      { title: 'snapshot bytes', align: 'right' },
      { title: 'service front CPU ms/tick', align: 'right' },
      { title: 'subscriber CPU ms/tick', align: 'right' },
      { title: 'closed / ERROR', align: 'right' },
    ],
    [
      spreadRow(`idle, ${FANOUT_IDLE} s`, fan.idle),
      spreadRow(`ingest c=${FANOUT_CONNECTIONS}, ${ROUNDS} rounds`, fan.busy),
    ],
  );
  out();
  // Rounds alternate (unsubscribed, subscribed): each pair ran under the same outside load.
  const pairs = fan.with.rounds.map((r, i) => [
    fan.without.rounds[i]?.reqPerSec ?? NaN,
    r.reqPerSec,
  ]);
  const drop = median(pairs.map(([without = NaN, withSubs = NaN]) => 1 - withSubs / without));
  printTable(
    [...LOAD_COLUMNS, { title: 'change', align: 'right' }],
    [loadRow(fan.without, ['–']), loadRow(fan.with, [`${num(-100 * drop, 1)} %`])],
  );
  out();
  out(
    `Spread = last minus first session receiving a tick, as timestamped by the subscriber process ` +
      `(a tick is told by its snapshot content; message-id is per session). Sessions opened in ` +
      `${num(fan.openMs)} ms. The subscribers are a minimal WebSocket client (bench/load-generators/raw-websocket.ts: ` +
      `every session reads into one shared buffer and keeps only the bytes that name the tick), so the ` +
      `subscriber process needs less CPU per tick than the service and keeps up with its sends; with ` +
      `\`ws\` it needed about 4 times the service's CPU and its own backlog was most of the spread. ` +
      `Service front CPU = the front thread's user + system time (/proc) per tick: idle, that is the ` +
      `fan-out's cost; under ingest it includes serving the ingest. ` +
      `Snapshot: ${num(FANOUT_SEED)} events over ${num(SPREAD.types)} types stored first. ` +
      `Ingest: autocannon c=${FANOUT_CONNECTIONS}, ${ROUNDS} rounds of ${FANOUT_DURATION} s (after ` +
      `${WARMUP} s of warm-up each) with the sessions unsubscribed and subscribed in turn; change = ` +
      `median of the changes within each pair (req/s ${pairs.map(([a = NaN, b = NaN]) => `${num(a)} → ${num(b)}`).join(', ')}).`,
  );
  const late =
    fan.busy.spread.ticks -
    fan.busy.spread.ticksOnTime +
    fan.idle.spread.ticks -
    fan.idle.spread.ticksOnTime;
  out(
    `Targets: every tick to all sessions within ${TARGET_SPREAD_MS} ms ${late === 0 ? 'met' : `MISSED (${late} ticks)`}; ` +
      `ingest drop < ${100 * TARGET_DROP} % ${drop < TARGET_DROP ? 'met' : 'MISSED'} (${num(100 * drop, 1)} %).`,
  );
  out(note);
  out();
}

async function main(): Promise<number> {
  const loadAtStart = loadAverage();
  const started = Date.now();
  const problems: string[] = [];
  log(`fan-out bench: ${FANOUT_SESSIONS} sessions; load average at start ${loadAtStart}`);
  const config = loadConfig(process.env);
  const profileDir = profileDirFor('fanout');
  const service = await startService(profileDir === undefined ? {} : { profileDir });
  let fan: Fanout;
  try {
    log(`service pid ${service.pid}, ${service.url}`);
    fan = await runFanout(service, {
      sessions: FANOUT_SESSIONS,
      connections: FANOUT_CONNECTIONS,
      rounds: ROUNDS,
      durationSec: FANOUT_DURATION,
      warmupSec: WARMUP,
      idleSec: FANOUT_IDLE,
      seedEvents: FANOUT_SEED,
      seedBatch: SEED_BATCH,
      seedConnections: SEED_CONNECTIONS,
      spread: SPREAD,
      targetSpreadMs: TARGET_SPREAD_MS,
    });
  } finally {
    await service.stop().catch((error: unknown) => problems.push(errorText(error)));
  }
  report(fan, machineNote(loadAtStart));
  out(serviceNote(config, started));
  if (profileDir !== undefined) {
    out();
    out(`CPU profiles in ${profileDir}:`);
    out(await summariseProfiles(profileDir));
  }

  for (const s of [fan.without, fan.with]) {
    if (s.non2xx > 0 || s.errors > 0)
      problems.push(`${s.name}: ${s.non2xx} non-2xx, ${s.errors} errors`);
  }
  if (fan.sessions !== FANOUT_SESSIONS) {
    problems.push(`only ${fan.sessions} of ${FANOUT_SESSIONS} sessions subscribed`);
  }
  for (const problem of problems) out(`FAIL ${problem}`);
  return problems.length === 0 ? 0 : 1;
}

process.exitCode = await main();
