// ALERTS_RETENTION_DAYS on real PostgreSQL (issue 23): resolved incidents that fired and resolved
// before the cut go, in chunks, with the digests no remaining incident names; an open (FIRING)
// incident stays however old, and so does a digest that still carries a kept incident.
import t from 'tap';
import { pruneResolvedAlerts } from '../../src/db/alerts-retention-repository.ts';
import { createTestDatabase } from '../support/database.ts';

const db = await createTestDatabase(t);
const { sql } = db;
const DAY = 86_400_000;
const NOW = Date.parse('2026-11-27T12:00:00.000Z');
const CUT = NOW - 30 * DAY;

const digest = async (ruleId: number): Promise<string> => {
  const [row] = await sql<{ id: string }[]>`
    INSERT INTO alert_digests (rule_id, rule_name, rule_version, severity, max_alerts_per_hour,
                               held_back, from_at, until_at, alerts)
    VALUES (${ruleId}, 'r', 1, 'LOW', 1, 2, to_timestamp(${(CUT - 50 * DAY) / 1000}::float8),
            to_timestamp(${(CUT - 49 * DAY) / 1000}::float8), '[]')
    RETURNING id::text`;
  return row?.id ?? '';
};

const alert = async (
  ruleId: number,
  triggered: number,
  resolved: number | null,
  digestId: string | null = null,
): Promise<string> => {
  const [row] = await sql<{ id: string }[]>`
    INSERT INTO alerts (rule_id, rule_name, rule_version, severity, triggered_at,
                        matched_conditions, current_values, condition_text, message, state,
                        resolved_at, held_by_budget, digest_id)
    VALUES (${ruleId}, 'r', 1, 'LOW', to_timestamp(${triggered / 1000}::float8), '[]', '{}', 'x',
            'm', ${resolved === null ? 'FIRING' : 'RESOLVED'},
            ${resolved === null ? null : new Date(resolved)}, ${digestId !== null}, ${digestId})
    RETURNING id::text`;
  return row?.id ?? '';
};

const lonelyDigest = await digest(1);
const sharedDigest = await digest(2);
const kept = {
  open: await alert(1, CUT - 400 * DAY, null),
  resolvedAfterCut: await alert(1, CUT - DAY, CUT + 1),
  recent: await alert(2, NOW - DAY, NOW - 1),
  carriedWithKept: await alert(2, CUT - 49 * DAY, CUT + DAY, sharedDigest),
};
const gone = [
  await alert(1, CUT - 100 * DAY, CUT - 99 * DAY),
  await alert(1, CUT - 50 * DAY, CUT - 49 * DAY, lonelyDigest),
  await alert(1, CUT - 50 * DAY, CUT - 49 * DAY, lonelyDigest),
  await alert(2, CUT - 50 * DAY, CUT - 49 * DAY, sharedDigest),
  await alert(3, CUT - 2, CUT - 1),
];

void t.test('resolved alerts past the cut go in chunks; open ones stay', async (t) => {
  t.equal(await pruneResolvedAlerts(sql, CUT, 2), 2, 'a chunk of 2');
  t.equal(await pruneResolvedAlerts(sql, CUT, 2), 2, 'another');
  t.equal(await pruneResolvedAlerts(sql, CUT, 2), 1, 'the last one: fewer than a chunk');
  t.equal(await pruneResolvedAlerts(sql, CUT, 2), 0, 'then none');
  const left = await sql<{ id: string }[]>`SELECT id::text FROM alerts ORDER BY id`;
  t.same(
    left.map((r) => r.id),
    Object.values(kept).sort((a, b) => Number(a) - Number(b)),
  );
  t.notOk(
    left.some((r) => gone.includes(r.id)),
    'none of those past the cut',
  );
});

void t.test('a digest goes with the last alert it carried', async (t) => {
  const digests = await sql<{ id: string }[]>`SELECT id::text FROM alert_digests ORDER BY id`;
  t.same(
    digests.map((r) => r.id),
    [sharedDigest],
    'the one still carrying a kept incident stays',
  );
});
