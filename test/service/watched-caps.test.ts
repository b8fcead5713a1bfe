// Rules see what they watch (issue 29): one ingest key fills the event-type cap (1,000 distinct
// types in one batch, from a key limited by allowedSources) and another the source cap; then
// rules on eventsByType[payment.failed] and eventsBySource[billing] fire on the exact counts, the
// snapshot counts what each rule names by name (ANOMALY and PATTERN filters too), and the
// snapshot's `limits` and GET /metrics' vigil_metrics_cap_fills_total report the fills.
import parsePrometheusTextFormat from 'parse-prometheus-text-format';
import t from 'tap';
import { readBatch } from '../support/events.ts';
import { keyHeaders } from '../support/keys.ts';
import { rulesApi } from '../support/rules.ts';
import { startTestService, type TestService } from '../support/service.ts';
import { alertsOf, waitUntil } from './alerts-helpers.ts';
import { getMetrics, waitForMetrics } from './helpers.ts';

const CAP = 1000;
const env = { RULE_EVALUATION_MS: '200', METRICS_REFRESH_MS: '100' };

async function createKey(svc: TestService, body: Record<string, unknown>): Promise<string> {
  const res = await svc.request('/api/v1/keys', { json: body });
  if (res.status !== 201) throw new Error(`POST /api/v1/keys: ${res.status} ${await res.text()}`);
  return ((await res.json()) as { key: string }).key;
}

/** POST /api/v1/events/batch with `key`: every item must be accepted. */
async function sendBatch(svc: TestService, key: string, items: unknown[]): Promise<void> {
  const res = await svc.request('/api/v1/events/batch', {
    headers: keyHeaders(key),
    json: items,
  });
  const batch = await readBatch(res);
  if (batch.accepted !== items.length) throw new Error(`batch: ${JSON.stringify(batch)}`);
}

/** The rule is known to the metrics actor (its status comes from there). */
async function loaded(svc: TestService, id: number): Promise<void> {
  await waitUntil(
    async () => (await svc.request(`/api/v1/rules/${id}/status`)).status,
    (status) => status === 200,
    `rule ${id} in the evaluator`,
  );
}

async function capFills(svc: TestService): Promise<Record<string, string>> {
  const text = await (await svc.request('/metrics')).text();
  const family = parsePrometheusTextFormat(text).find(
    (f) => f.name === 'vigil_metrics_cap_fills_total',
  );
  const fills: Record<string, string> = {};
  for (const metric of family?.metrics ?? []) {
    if ('value' in metric && metric.labels?.cap !== undefined)
      fills[metric.labels.cap] = metric.value;
  }
  return fills;
}

void t.test(
  'after one key fills the caps, the rules watching a type and a source fire',
  async (t) => {
    const svc = await startTestService(t, env);
    const api = rulesApi(svc);

    // A key that may speak for one source only still sends 1,000 distinct types in one batch.
    const typesKey = await createKey(svc, {
      name: 'flood-types',
      scope: 'ingest',
      allowedSources: ['flood'],
    });
    await sendBatch(
      svc,
      typesKey,
      Array.from({ length: CAP }, (_, i) => ({ eventType: `junk.${i}`, source: 'flood' })),
    );
    const sourcesKey = await createKey(svc, { name: 'flood-sources', scope: 'ingest' });
    await sendBatch(
      svc,
      sourcesKey,
      Array.from({ length: CAP }, (_, i) => ({ eventType: 'junk.0', source: `src-${i}` })),
    );
    // One more of each: past the caps, they count under (other).
    await sendBatch(svc, typesKey, [{ eventType: 'junk.extra', source: 'flood' }]);
    const full = await waitForMetrics(
      svc,
      (s) => s.limits.eventTypes.overflowed && s.limits.sources.overflowed,
      'both caps full',
    );
    t.equal(full.eventsByType['(other)'], 1);
    t.equal(full.eventsBySource['(other)'], 1, 'flood and src-0..998 took the 1,000 names');
    t.match(full.limits.eventTypes, { cap: CAP, used: CAP, watched: 0, fills: 1 });
    t.match(full.limits.sources, { cap: CAP, used: CAP, watched: 0, fills: 1 });
    t.same(await capFills(svc), { eventTypes: '1', sources: '1', users: '0' });

    // The rules come after the caps filled: what they name counts exactly from then on.
    const byType = await api.create({
      name: 'Payments failing',
      ruleType: 'THRESHOLD',
      ruleConfig: {
        metric: 'eventsByType[payment.failed]',
        operator: 'GREATER_THAN_OR_EQUAL',
        threshold: 3,
        windowMinutes: 5,
      },
      severity: 'CRITICAL',
      suppressionWindowMinutes: 0,
    });
    const bySource = await api.create({
      name: 'Billing busy',
      ruleType: 'THRESHOLD',
      ruleConfig: {
        metric: 'eventsBySource[billing]',
        operator: 'GREATER_THAN_OR_EQUAL',
        threshold: 3,
        windowMinutes: 5,
      },
      severity: 'CRITICAL',
      suppressionWindowMinutes: 0,
    });
    const anomaly = await api.create({
      name: 'Checkouts drop',
      ruleType: 'ANOMALY',
      ruleConfig: {
        metric: 'eventRate',
        eventType: 'checkout.done',
        bucketMinutes: 1,
        algorithm: 'basic',
        direction: 'below',
      },
      severity: 'HIGH',
    });
    const pattern = await api.create({
      name: 'Card tests',
      ruleType: 'PATTERN',
      ruleConfig: {
        partitionBy: 'userId',
        withinMinutes: 5,
        steps: [
          {
            eventType: 'card.declined',
            where: [{ field: 'source', operator: 'EQUALS', value: 'gateway' }],
            times: { min: 2 },
          },
        ],
      },
      severity: 'HIGH',
      suppressionWindowMinutes: 0,
    });
    for (const rule of [byType, bySource, anomaly, pattern]) await loaded(svc, rule.id);

    const producer = await createKey(svc, { name: 'shop', scope: 'ingest' });
    await sendBatch(svc, producer, [
      ...Array.from({ length: 3 }, () => ({
        eventType: 'payment.failed',
        source: 'billing',
        severity: 'CRITICAL',
      })),
      ...Array.from({ length: 4 }, () => ({ eventType: 'checkout.done', source: 'shop' })),
      ...Array.from({ length: 2 }, () => ({
        eventType: 'card.declined',
        source: 'gateway',
        userId: 'u1',
      })),
    ]);

    const [typeAlert] = await waitUntil(
      () => alertsOf(svc, byType.id),
      (alerts) => alerts.length === 1,
      'the payment.failed rule fired',
    );
    t.equal(typeAlert?.severity, 'CRITICAL');
    await waitUntil(
      () => alertsOf(svc, bySource.id),
      (alerts) => alerts.length === 1,
      'the billing rule fired',
    );
    await waitUntil(
      () => alertsOf(svc, pattern.id),
      (alerts) => alerts.length === 1,
      'the PATTERN rule fired',
    );

    const s = await getMetrics(svc);
    t.equal(s.eventsByType['payment.failed'], 3, 'counted by name, exactly');
    t.equal(s.eventsBySource.billing, 3);
    t.equal(s.eventsByType['checkout.done'], 4, "the ANOMALY filter's type");
    t.equal(s.eventsBySource.shop, undefined, 'a source no rule names, past the cap');
    t.equal(s.eventsBySource['(other)'], 1 + 4, 'shop counts under (other)');
    t.equal(s.eventsByType['card.declined'], 2, "the PATTERN step's type");
    t.equal(s.eventsBySource.gateway, 2, "the PATTERN where's source");
    t.equal(s.eventsByType['(other)'], 1, 'the flood past the cap, and nothing more');
    t.match(s.limits.eventTypes, { cap: CAP, used: CAP, watched: 3, overflowed: true, fills: 1 });
    t.match(s.limits.sources, { cap: CAP, used: CAP, watched: 2, overflowed: true, fills: 1 });
    t.same(await capFills(svc), { eventTypes: '1', sources: '1', users: '0' }, 'once per fill');
  },
);
