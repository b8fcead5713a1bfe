// Hostile input, fixed seed: 1,500 generated requests over every endpoint of the OpenAPI document,
// the raw-socket cases (truncated, slow and broken HTTP) and 150 fuzzed STOMP sessions against a
// child service: no 5xx, every 4xx a JSON error body, no hang, still healthy, exit 0 on SIGTERM.
import t from 'tap';
import { runDatabase } from '../support/run-databases.ts';
import { fuzzProblems, headWithBody, runFuzz } from '../support/reliability/fuzz-run.ts';

const SEED = 20261122;

void t.test('fixed-seed fuzz run', async (t) => {
  const db = await runDatabase();
  t.teardown(() => db.cleanup());
  const r = await runFuzz(db, {
    seed: SEED,
    requests: 1500,
    // One at a time: this test is about input; `npm run bench:fuzz` runs 8 at once.
    concurrency: 1,
    stompSessions: 150,
    slowMs: 2_000,
    slowlorisConnections: 50,
    slowlorisSeconds: 3,
  });
  const statuses = [...r.http.statuses].map(([s, n]) => `${s}: ${n}`).join(', ');
  t.comment(
    `seed ${SEED}: ${r.http.requests} requests over ${r.endpoints} endpoints (${statuses})`,
  );
  t.comment(`HEAD answered with a body: ${headWithBody(r)} (reported)`);
  t.equal(r.http.requests, 1500, 'every request sent');
  t.ok(r.endpoints >= 25, 'endpoints listed by the OpenAPI document');
  t.ok(r.http.byTarget.size >= r.endpoints, 'every endpoint fuzzed');
  t.equal(r.http.fiveXx, 0, 'no 5xx');
  t.equal(r.http.badErrorBodies, 0, 'every 4xx has the JSON error body');
  t.same(fuzzProblems(r), [], 'no failure (seeds above replay with FUZZ_REPLAY=...)');
  t.equal(r.finalHealth, 200, 'still healthy');
  t.equal(r.exit.code, 0, 'drains and exits 0 (no request left hanging)');
});
