/**
 * @module The alerting part: contact points, the alert sink (store, publish, notify), the rule set
 * kept in step with the actor, and in a cluster the leader lease and the reset watch.
 */
import { backfillAnomalies } from '../actors/anomaly-backfill.ts';
import type { RunningCluster } from '../actors/cluster-link.ts';
import { seedNewestEvents } from '../actors/newest-events-seed.ts';
import type { StoragePool } from '../actors/storage-pool.ts';
import { createAlertSink, type AlertSink } from '../alerting/alert-sink.ts';
import { createRuleSync, type RuleSync } from '../alerting/rule-sync.ts';
import { startLeadership, type Leadership } from '../cluster/leadership.ts';
import { watchMetricsResets, type MetricsResetWatch } from '../cluster/metrics-reset-watch.ts';
import type { Config } from '../config.ts';
import type { Logger } from '../log.ts';
import {
  CLUSTER_RELOAD_MS,
  createContactPointDirectory,
  RELOAD_MS as CONTACT_POINTS_RELOAD_MS,
  type ContactPointDirectory,
} from '../notify/contact-point-directory.ts';
import { deliverAlert } from '../notify/deliver.ts';
import { createDeliveryLimiter, type DeliveryLimiter } from '../notify/delivery-limiter.ts';
import { NotificationCounts } from '../notify/notification-counts.ts';
import { notifyOptionsFrom } from '../notify/notify-options.ts';
import type { Timers } from '../timers.ts';
import type { MetricsPart } from './metrics.ts';
import { startPart, type StopStack } from './stop-stack.ts';

export interface AlertingPart {
  readonly alertSink: AlertSink;
  readonly ruleSync: RuleSync;
  readonly contactPoints: ContactPointDirectory;
  readonly leadership: Leadership | null;
  readonly metricsResets: MetricsResetWatch | null;
  readonly notificationCounts: NotificationCounts;
  readonly limiter: DeliveryLimiter;
}

export interface AlertingInputs {
  readonly config: Config;
  readonly pool: StoragePool;
  readonly metrics: MetricsPart;
  readonly cluster: RunningCluster | null;
  /** Publishes on /topic/alerts (late-stomp.ts: nothing until the endpoint exists). */
  readonly publishAlert: (json: string) => void;
  readonly contactPointTimers: Pick<Timers, 'setInterval' | 'clearInterval'> | undefined;
  readonly log: Logger;
}

export async function startAlerting(
  inputs: AlertingInputs,
  stack: StopStack,
): Promise<AlertingPart> {
  const part = await startPart(inputs.log, (own) => startInOrder(inputs, own));
  const { ruleSync, contactPoints, metricsResets, alertSink, leadership } = part;
  // Evaluation stops before the last alerts are stored (the actor, here), so none arrives after
  // the pool closed; the lease goes after the last fenced write, so another instance takes over
  // at once.
  stack.push('alerting', async () => {
    ruleSync.stop();
    contactPoints.stop();
    metricsResets?.stop();
    await inputs.metrics.stop();
    await alertSink.drain();
    await leadership?.stop();
  });
  return part;
}

async function startInOrder(inputs: AlertingInputs, own: StopStack): Promise<AlertingPart> {
  const { config, pool, metrics, cluster, log } = inputs;
  const contactPoints = createContactPointDirectory(
    pool,
    log,
    inputs.contactPointTimers,
    config.NATS_URL === undefined ? CONTACT_POINTS_RELOAD_MS : CLUSTER_RELOAD_MS,
  );
  own.push('contact points', () => contactPoints.stop());
  const unloaded = await contactPoints.reload();
  if (unloaded !== null) throw new Error(`could not load the contact points: ${unloaded}`);
  const notify = notifyOptionsFrom(config);
  const limiter = createDeliveryLimiter(
    { concurrency: config.NOTIFY_CONCURRENCY, queueMax: config.NOTIFY_QUEUE_MAX },
    { log },
  );
  const notificationCounts = new NotificationCounts();
  // Cluster mode: set once the lease loop starts; until then this instance is not the leader.
  let leadership: Leadership | null = null;
  const alertSink = createAlertSink({
    pool,
    publish: inputs.publishAlert,
    deliver: (alert, rule) => deliverAlert(alert, rule, notify, limiter, contactPoints),
    log,
    notificationCounts,
    ...(config.NATS_URL === undefined
      ? {}
      : {
          writer: () => leadership?.writer() ?? 'not-leader',
          onFenced: () => leadership?.fenced(),
        }),
  });
  // Listening before the first rule load: it may resolve incidents of rules no longer ACTIVE.
  metrics.actor.onAlert((transition) => alertSink.accept(transition));
  // Before the first rule load: it makes the actor ask for the producers its rules watch.
  seedNewestEvents(pool, metrics.actor, log);
  backfillAnomalies(pool, metrics.actor, log);
  const ruleSync = createRuleSync(pool, metrics.actor, log);
  own.push('rule sync', () => ruleSync.stop());
  await ruleSync.changed();
  leadership = startLeadership(config, {
    pool,
    metrics: metrics.actor,
    ruleSync,
    redeliver: () => alertSink.redeliver(),
    log,
    ...(cluster === null ? {} : { instanceId: cluster.instanceId }),
  });
  const leading = leadership;
  if (leading !== null) own.push('leadership', () => leading.stop());
  // Alone: what a previous process stored and did not get to notify is sent now.
  else void alertSink.redeliver();
  // Cluster mode: a reset made through any instance resets this one too (docs/cluster.md).
  const metricsResets =
    config.NATS_URL === undefined ? null : watchMetricsResets(pool, metrics.actor, log);
  if (metricsResets !== null) own.push('metrics reset watch', () => metricsResets.stop());
  return {
    alertSink,
    ruleSync,
    contactPoints,
    leadership,
    metricsResets,
    notificationCounts,
    limiter,
  };
}
