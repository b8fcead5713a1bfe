// Producer-silent rules end to end (issue 18 section 4): a producer that stops sending fires its
// rule within threshold + 2 seconds (read from the alert's own values and the stored event's
// receipt time, not from the test's clock), and the silence survives a restart of the service
// (the newest stored event per watched key is read back).
import { Type } from '@sinclair/typebox';
import t from 'tap';
import { EventSchema } from '../../src/schemas/event-responses.ts';
import { readAs } from '../support/events.ts';
import { expectJson, rulesApi } from '../support/rules.ts';
import { startTestService, type TestService } from '../support/service.ts';
import { alertsOf, evaluationsPass, waitUntil, type Alert } from './alerts-helpers.ts';
import { sleep } from './helpers.ts';

const THRESHOLD_SECONDS = 2;
const env = { RULE_EVALUATION_MS: '200' };
const BY_TYPE = 'secondsSinceLastEventByType[checkout]';
const BY_SOURCE = 'secondsSinceLastEventBySource[web]';

const AckSchema = Type.Object({ eventId: Type.String() }, { additionalProperties: true });

/** Posts a `checkout` event from `web` every 200 ms until stopped; answers the last one's id. */
function produce(svc: TestService): { stop(): Promise<string> } {
  let running = true;
  let last = '';
  const loop = (async () => {
    while (running) {
      const res = await svc.request('/api/v1/events', {
        json: { eventType: 'checkout', source: 'web', severity: 'INFO' },
      });
      if (res.status !== 202) throw new Error(`POST /api/v1/events: ${res.status}`);
      last = (await readAs(AckSchema, res)).eventId;
      await sleep(200);
    }
  })();
  return {
    async stop() {
      running = false;
      await loop;
      return last;
    },
  };
}

async function receivedAt(svc: TestService, eventId: string): Promise<number> {
  const event = await readAs(EventSchema, await svc.request(`/api/v1/events/${eventId}`));
  return Date.parse(event.receivedAt);
}

const firedAt = (alert: Alert): number => Date.parse(alert.firedAt);

void t.test('a producer that stops sending fires its rule within threshold + 2 s', async (t) => {
  const svc = await startTestService(t, env);
  const api = rulesApi(svc);
  const producer = produce(svc);
  let lastEvent: string;
  let rule: { id: number };
  try {
    // "No checkout events from web for 2 s": an AND of the type's and the source's silence.
    rule = await api.create({
      name: 'Checkout from web went quiet',
      ruleType: 'THRESHOLD',
      ruleConfig: {
        logicalOperator: 'AND',
        conditions: [
          { metric: BY_TYPE, operator: 'GREATER_THAN', threshold: THRESHOLD_SECONDS },
          { metric: BY_SOURCE, operator: 'GREATER_THAN', threshold: THRESHOLD_SECONDS },
        ],
      },
      severity: 'HIGH',
      suppressionWindowMinutes: 0,
    });
    // While the producer sends, evaluations pass (more than 2 s of them) and nothing fires.
    await evaluationsPass(svc, 15);
    t.same(await alertsOf(svc, rule.id), [], 'no alert while the producer sends');
  } finally {
    lastEvent = await producer.stop();
  }
  const [alert] = await waitUntil(
    () => alertsOf(svc, rule.id),
    (alerts) => alerts.length === 1,
    'the producer-silent alert',
  );
  if (alert === undefined) throw new Error('no alert');
  const silence = firedAt(alert) - (await receivedAt(svc, lastEvent));
  t.ok(silence > THRESHOLD_SECONDS * 1000, `fired after the threshold (${silence} ms)`);
  t.ok(silence <= (THRESHOLD_SECONDS + 2) * 1000, `within threshold + 2 s (${silence} ms)`);
  const byType = alert.valuesAtFire[BY_TYPE] ?? Number.NaN;
  t.ok(byType > THRESHOLD_SECONDS && byType <= THRESHOLD_SECONDS + 2, `value at fire ${byType}`);
  t.equal(alert.state, 'FIRING');
  t.match(alert.explanationText, /^secondsSinceLastEventByType\[checkout\] = [\d.]+ > 2; /);

  // The producer is back: the incident resolves with the value at recovery.
  const back = produce(svc);
  try {
    await waitUntil(
      () => alertsOf(svc, rule.id),
      (alerts) => alerts[0]?.state === 'RESOLVED',
      'the incident resolved',
    );
  } finally {
    await back.stop();
  }
  const [resolved] = await alertsOf(svc, rule.id);
  t.ok((resolved?.valuesAtResolve?.[BY_TYPE] ?? Number.NaN) <= THRESHOLD_SECONDS);
});

void t.test('the silence survives a restart: it counts from the stored event', async (t) => {
  const before = await startTestService(t, env);
  const producer = produce(before);
  await evaluationsPass(before, 2);
  const lastEvent = await producer.stop();
  const last = await receivedAt(before, lastEvent);
  // Evaluations that the silence outlasts before the service stops.
  await evaluationsPass(before, 15);
  await before.service.stop();

  const after = await startTestService(t, env, { database: before.db });
  const api = rulesApi(after);
  const rule = await api.create({
    name: 'Web went quiet',
    ruleType: 'THRESHOLD',
    ruleConfig: { metric: BY_SOURCE, operator: 'GREATER_THAN', threshold: 1 },
    severity: 'HIGH',
  });
  const [alert] = await waitUntil(
    () => alertsOf(after, rule.id),
    (alerts) => alerts.length === 1,
    'the alert after the restart',
  );
  if (alert === undefined) throw new Error('no alert');
  // Counted from the stored event, not from the restart or the rule's activation.
  const value = alert.valuesAtFire[BY_SOURCE] ?? Number.NaN;
  t.ok(
    Math.abs(value * 1000 - (firedAt(alert) - last)) < 1,
    `value ${value} s = time since the stored event (${firedAt(alert) - last} ms)`,
  );
  t.ok(value > 2, 'longer than the service has been running the rule');
  const tested = await expectJson(
    Type.Object(
      {
        simulationResult: Type.Object({ currentValues: Type.Record(Type.String(), Type.Number()) }),
      },
      { additionalProperties: true },
    ),
    await after.request(`/api/v1/rules/test/${rule.id}`, { method: 'POST' }),
    200,
  );
  t.ok((tested.simulationResult.currentValues[BY_SOURCE] ?? 0) > value);
});
