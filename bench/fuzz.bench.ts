/**
 * `npm run bench:fuzz`: hostile input against the service as a child process: FUZZ_REQUESTS generated
 * HTTP requests (default 10,000) over every endpoint, raw-socket cases, slowloris, STOMP sessions.
 * FUZZ_SEED fixes the run; a failure prints its seed, and FUZZ_REPLAY=seed,seed replays those.
 */
import { intKnob } from './harness/knobs.ts';
import { num, printTable } from './report/print-table.ts';
import { runDatabase } from '../test/support/shared.ts';
import { fuzzProblems, headWithBody, runFuzz } from '../test/support/shared.ts';
import { mib } from '../test/support/shared.ts';

const SEED = intKnob('FUZZ_SEED', Date.now() % 2_000_000_000, 0);
const REQUESTS = intKnob('FUZZ_REQUESTS', 10_000);
const CONCURRENCY = intKnob('FUZZ_CONCURRENCY', 8);
const STOMP_SESSIONS = intKnob('FUZZ_STOMP_SESSIONS', 1_000);
const SLOWLORIS = intKnob('FUZZ_SLOWLORIS', 300, 0);
const REPLAY = (process.env.FUZZ_REPLAY ?? '')
  .split(',')
  .filter((s) => s !== '')
  .map(Number);

const db = await runDatabase();
process.stdout.write(
  `# Vigil fuzz run: seed ${SEED}, ${REPLAY.length > 0 ? `replaying ${REPLAY.join(', ')}` : `${num(REQUESTS)} HTTP requests`}, concurrency ${CONCURRENCY}, ${db.kind} PostgreSQL\n\n`,
);
let last = 0;
const result = await runFuzz(db, {
  seed: SEED,
  requests: REQUESTS,
  ...(REPLAY.length > 0 ? { replay: REPLAY } : {}),
  concurrency: CONCURRENCY,
  stompSessions: REPLAY.length > 0 ? 0 : STOMP_SESSIONS,
  slowMs: 5_000,
  slowlorisConnections: REPLAY.length > 0 ? 0 : SLOWLORIS,
  slowlorisSeconds: 20,
  onProgress: (done) => {
    if (done - last >= 1000) {
      last = done;
      process.stderr.write(`fuzz: ${done} requests\n`);
    }
  },
}).finally(() => db.cleanup());

const { http } = result;
const classes = ['2xx', '3xx', '4xx', '5xx', 'no answer', 'closed while sending a large body'];
process.stdout.write(
  `## HTTP: ${num(http.requests)} requests over the ${result.endpoints} endpoints of /api/v1/openapi.json (seeds ${result.seeds.from}..${result.seeds.to})\n\n`,
);
printTable(
  [{ title: 'request' }, ...classes.map((c) => ({ title: c, align: 'right' as const }))],
  [...http.byTarget]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([target, counts]) => [target, ...classes.map((c) => num(counts.get(c) ?? 0))]),
);
process.stdout.write('\n');
printTable(
  [{ title: 'body generator' }, { title: 'requests', align: 'right' }],
  [...http.byBodyKind].sort((a, b) => b[1] - a[1]).map(([k, n]) => [k, num(n)]),
);
process.stdout.write(
  `\nStatuses: ${[...http.statuses]
    .sort((a, b) => a[0] - b[0])
    .map(([s, n]) => `${s}: ${num(n)}`)
    .join(', ')}. ` +
    `5xx: ${http.fiveXx}; 4xx without the JSON error body: ${http.badErrorBodies}; no answer: ${http.noAnswer}; ` +
    `slowest answer ${num(http.maxMs)} ms; HEAD answered with a body (protocol bug, reported): ${headWithBody(result)}.\n\n`,
);

process.stdout.write('## Raw sockets\n\n');
printTable(
  [
    { title: 'case' },
    { title: 'answers' },
    { title: 'closed by the service after ms', align: 'right' },
    { title: 'problems' },
  ],
  result.raw.map((c) => [
    c.name,
    c.answers.map((a) => `${a.status}${a.byServer ? ' (uWS)' : ''}`).join(', ') || '–',
    c.closedAfterMs === null ? 'still open' : num(c.closedAfterMs),
    c.problems.join('; ') || '–',
  ]),
);
process.stdout.write(
  `\nSlowest health answer while the raw cases ran: ${num(result.rawHealthMaxMs)} ms.\n`,
);
if (result.slowloris !== null) {
  const s = result.slowloris;
  process.stdout.write(
    `Slowloris: ${SLOWLORIS} connections trickling headers for 20 s: ${s.closedByServer} closed by the service, ${s.open} still open; ` +
      `health meanwhile: slowest ${num(s.healthMaxMs)} ms, ${s.healthFailures} failures.\n`,
  );
}

process.stdout.write(`\n## STOMP: ${num(result.stomp.sessions)} fuzzed sessions\n\n`);
process.stdout.write(
  `Frames received: ${[...result.stomp.framesReceived].map(([k, v]) => `${k} ${num(v)}`).join(', ')}; ` +
    `close codes: ${[...result.stomp.closeCodes].map(([k, v]) => `${k}: ${num(v)}`).join(', ')}; failures: ${result.stomp.failures.length}.\n`,
);
process.stdout.write(
  `\nAt the end: health ${result.finalHealth}, RSS ${mib(result.rssStartKiB)} -> ${mib(result.rssEndKiB)} MiB, ` +
    `exit ${result.exit.code} after SIGTERM.\n`,
);

const problems = fuzzProblems(result);
if (problems.length === 0) {
  process.stdout.write(
    '\nEvery check held: no 5xx, every 4xx a JSON error body, no hang, no crash.\n',
  );
} else {
  const seeds = [
    ...new Set(
      http.failures
        .filter(
          (f) =>
            !(
              f.request.startsWith('HEAD ') &&
              f.problems.every((p) => p.includes('HPE_INVALID_CONSTANT'))
            ),
        )
        .map((f) => f.seed),
    ),
  ];
  process.stdout.write(
    `\nFAILURES (${problems.length}):\n${problems
      .slice(0, 100)
      .map((p) => `- ${p}`)
      .join('\n')}\n`,
  );
  if (seeds.length > 0)
    process.stdout.write(
      `\nReplay: FUZZ_REPLAY=${seeds.slice(0, 50).join(',')} npm run bench:fuzz\n`,
    );
  process.exitCode = 1;
}
