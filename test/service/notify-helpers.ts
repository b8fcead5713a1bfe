/**
 * Helpers for the notification tests against the running service: a receiver on 127.0.0.1 that
 * gives every request the same answer, and a rule that fires (errorRate > 20 while ERROR events
 * are pumped) until its first alert carries its delivery results, created after the contact
 * points it names.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { contactPointsApi, type NewContactPoint } from '../support/contact-points.ts';
import { rulesApi } from '../support/rules.ts';
import type { TestService } from '../support/service.ts';
import { alertsOf, pumpErrors, waitUntil, type Alert } from './alerts-helpers.ts';

interface Teardown {
  teardown(fn: () => unknown): void;
}

export interface FixedReceiver {
  readonly port: number;
  /** Requests received so far. */
  readonly requests: () => number;
  /**
   * Requests received so far that carried this `Idempotency-Key` (a transitionId): a test counts
   * the attempts of the one notification it waits for, not whatever else reached the receiver
   * by then (a RESOLVED of the same rule, a redelivery of another).
   */
  readonly requestsFor: (transitionId: string) => number;
}

/** A node:http server on 127.0.0.1:0 answering `status` with `body` (text/plain) to everything. */
export async function startFixedReceiver(
  t: Teardown,
  status: number,
  body: string,
): Promise<FixedReceiver> {
  let requests = 0;
  const byKey = new Map<string, number>();
  const server = createServer((req, res) => {
    requests++;
    const key = req.headers['idempotency-key'];
    if (typeof key === 'string') byKey.set(key, (byKey.get(key) ?? 0) + 1);
    res.writeHead(status, { 'content-type': 'text/plain' });
    res.end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return {
    port: (server.address() as AddressInfo).port,
    requests: () => requests,
    requestsFor: (transitionId) => byKey.get(transitionId) ?? 0,
  };
}

export interface NotifyingRule {
  readonly name: string;
  readonly severity: 'LOW' | 'MEDIUM' | 'HIGH' | 'CRITICAL';
  readonly notificationChannels: readonly string[];
  readonly notificationConfig?: unknown;
  /** Created first (the destinations and their secrets); the rule names them. */
  readonly contactPoints?: readonly NewContactPoint[];
}

/**
 * Creates a THRESHOLD rule (errorRate > 20 over 1 minute) with these channels, keeps its
 * condition true until its first alert has its delivery results stored, and returns that alert.
 */
export async function firstDeliveredAlert(
  svc: TestService,
  { contactPoints = [], ...rule }: NotifyingRule,
): Promise<Alert> {
  for (const point of contactPoints) await contactPointsApi(svc).create(point);
  const created = await rulesApi(svc).create({
    ...rule,
    ruleType: 'THRESHOLD',
    ruleConfig: { metric: 'errorRate', operator: 'GREATER_THAN', threshold: 20, windowMinutes: 1 },
  });
  const pump = pumpErrors(svc);
  try {
    const [alert] = await waitUntil(
      () => alertsOf(svc, created.id),
      (alerts) => (alerts[0]?.deliveries.length ?? 0) > 0,
      'the delivery results on the stored alert',
    );
    return alert as Alert;
  } finally {
    await pump.stop();
  }
}
