/**
 * Helpers for the alert tests against the running service: the stored alert and the /topic/alerts
 * message as strict schemas, listing alerts over HTTP, a steady stream of ERROR events that keeps a
 * rule's condition true, waiting for evaluations, and polling.
 */
import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import { PageFields } from '../../src/schemas/paging.ts';
import { expectJson } from '../support/rules.ts';
import type { TestService } from '../support/service.ts';
import { sleep } from './helpers.ts';

const INSTANT = '^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\\.[0-9]{3}Z$';

export const DeliverySchema = Type.Object(
  {
    channel: Type.String({ pattern: '^(email|slack|webhook)(:[A-Za-z0-9][A-Za-z0-9_.-]*)?$' }),
    ok: Type.Boolean(),
    attempts: Type.Integer({ minimum: 0 }),
    status: Type.Optional(Type.Integer()),
    error: Type.Optional(Type.String()),
    at: Type.String({ pattern: INSTANT }),
  },
  { additionalProperties: false },
);

const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);
const Values = Type.Record(Type.String(), Type.Number());

/** A stored alert as GET /api/v1/alerts and /topic/alerts give it, field for field. */
export const AlertSchema = Type.Object(
  {
    id: Type.Integer({ minimum: 1 }),
    ruleId: Type.Integer({ minimum: 1 }),
    ruleName: Type.String(),
    ruleVersion: Type.Integer({ minimum: 1 }),
    severity: Type.Union([
      Type.Literal('LOW'),
      Type.Literal('MEDIUM'),
      Type.Literal('HIGH'),
      Type.Literal('CRITICAL'),
    ]),
    state: Type.Union([Type.Literal('FIRING'), Type.Literal('RESOLVED')]),
    firedAt: Type.String({ pattern: INSTANT }),
    triggeredAt: Type.String({ pattern: INSTANT }),
    resolvedAt: Nullable(Type.String({ pattern: INSTANT })),
    resolvedReason: Nullable(Type.String({ minLength: 1 })),
    valuesAtFire: Values,
    valuesAtResolve: Nullable(Values),
    acknowledgedAt: Nullable(Type.String({ pattern: INSTANT })),
    acknowledgedBy: Nullable(Type.String({ minLength: 1 })),
    acknowledgeComment: Nullable(Type.String()),
    explanation: Nullable(Type.Object({ result: Type.Boolean() })),
    resolveExplanation: Nullable(Type.Object({ result: Type.Boolean() })),
    explanationText: Type.String(),
    silenced: Type.Boolean(),
    silenceId: Nullable(Type.Integer({ minimum: 1 })),
    heldByBudget: Type.Boolean(),
    matchedConditions: Type.Array(Type.String(), { minItems: 1 }),
    currentValues: Type.Record(Type.String(), Type.Number()),
    condition: Type.String({ minLength: 1 }),
    message: Type.String({ minLength: 1 }),
    deliveries: Type.Array(DeliverySchema),
    resolveDeliveries: Type.Array(DeliverySchema),
  },
  { additionalProperties: false },
);
export type Alert = Static<typeof AlertSchema>;

/** A MESSAGE on /topic/alerts: the alert and what just happened to it. */
export const AlertMessageSchema = Type.Composite(
  [
    AlertSchema,
    Type.Object({
      transition: Type.Union([
        Type.Literal('FIRING'),
        Type.Literal('RESOLVED'),
        Type.Literal('ACKNOWLEDGED'),
      ]),
    }),
  ],
  { additionalProperties: false },
);
export type AlertMessage = Static<typeof AlertMessageSchema>;

/**
 * What an alert said when it fired (the fields that a resolution, an acknowledgement or a delivery
 * do not change): alerts read at different moments compare equal on these.
 */
export function atFire(alert: Alert): Partial<Alert> {
  const changing = new Set([
    'state',
    'resolvedAt',
    'resolvedReason',
    'valuesAtResolve',
    'resolveExplanation',
    'acknowledgedAt',
    'acknowledgedBy',
    'acknowledgeComment',
    'deliveries',
  ]);
  return Object.fromEntries(Object.entries(alert).filter(([key]) => !changing.has(key)));
}

export const AlertPageSchema = Type.Object(
  { content: Type.Array(AlertSchema), ...PageFields },
  { additionalProperties: false },
);
export type AlertPage = Static<typeof AlertPageSchema>;

/** GET `path` (default /api/v1/alerts) with `query`: must be a 200 page of alerts. */
export async function alertPage(
  svc: TestService,
  query = '',
  path = '/api/v1/alerts',
): Promise<AlertPage> {
  return expectJson(AlertPageSchema, await svc.request(`${path}${query}`), 200);
}

/** Every alert of `ruleId` (or all), newest first. */
export async function alertsOf(svc: TestService, ruleId?: number): Promise<Alert[]> {
  const query = ruleId === undefined ? '?size=100' : `?size=100&ruleId=${ruleId}`;
  const page = await alertPage(svc, query);
  if (page.totalElements > 100) throw new Error('more than 100 alerts: page through them');
  return page.content;
}

/** Polls `read` until `ready` holds for its value; throws after `timeoutMs` with the last one. */
export async function waitUntil<T>(
  read: () => Promise<T> | T,
  ready: (value: T) => boolean,
  what: string,
  timeoutMs = 20_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (ready(value)) return value;
    if (Date.now() > deadline) {
      throw new Error(`timed out waiting for ${what}: ${JSON.stringify(value)}`);
    }
    await sleep(50);
  }
}

const TicksSchema = Type.Object({ ticks: Type.Integer({ minimum: 0 }) });

async function ticks(svc: TestService): Promise<number> {
  const res = await svc.request('/api/v1/rules/evaluation-stats?last=1');
  const body: unknown = await res.json();
  if (res.status !== 200 || !Value.Check(TicksSchema, body))
    throw new Error(`evaluation-stats: ${res.status} ${JSON.stringify(body)}`);
  return body.ticks;
}

/**
 * Waits until the evaluator has run `n` more ticks than now (evaluation-stats counts them). A
 * check that a rule did not fire (or resolve) waits for these, evaluations that would have done
 * it, rather than for some time to pass. One tick more than asked: the first may have been under
 * way already.
 */
export async function evaluationsPass(svc: TestService, n: number): Promise<void> {
  const start = await ticks(svc);
  await waitUntil(
    () => ticks(svc),
    (now) => now >= start + n + 1,
    `${n} more evaluations`,
  );
}

/**
 * Posts a few ERROR events at once and then every 250 ms until stopped, so that a condition on
 * the last minute's errors stays true across minute boundaries (errorRate 100 while only these
 * events arrive).
 */
export function pumpErrors(svc: TestService, perRound = 3): { stop(): Promise<void> } {
  let running = true;
  const post = async (): Promise<void> => {
    const events = Array.from({ length: perRound }, () => ({
      eventType: 'checkout.failed',
      source: 'alerts-test',
      severity: 'ERROR',
    }));
    const res = await svc.request('/api/v1/events/batch', { json: events });
    const text = await res.text();
    if (res.status !== 202) throw new Error(`POST /api/v1/events/batch: ${res.status} ${text}`);
  };
  const loop = (async () => {
    while (running) {
      await post();
      await sleep(250);
    }
  })();
  return {
    async stop() {
      running = false;
      await loop;
    },
  };
}

/** The API's local date-time (DESIGN 6) of an ISO instant: `...T19:30:00.123Z` → `...T19:30:00.123`. */
export const localTime = (instant: string): string => instant.replace(/Z$/, '');
