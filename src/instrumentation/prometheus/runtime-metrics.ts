/**
 * @module GET /metrics: the storage pool, the STOMP endpoint, notification deliveries and the
 * build, each read from the numbers its owner keeps on the front thread.
 */
import type { StoragePool } from '../../actors/storage-pool.ts';
import type { DeliveryLimiterStats } from '../../notify/delivery-limiter.ts';
import type { StompStats } from '../../stomp/endpoint.ts';
import type { NotificationCounts } from '../../notify/notification-counts.ts';
import type { Exposition } from './exposition.ts';
import { counter, gauge, type MetricSource } from './metric-source.ts';

export interface RuntimeMetricsDeps {
  readonly pool: Pick<StoragePool, 'stats'>;
  /** The STOMP endpoint's numbers (attached after the routes are built, hence a function). */
  readonly stomp: () => StompStats;
  readonly notifications: NotificationCounts;
  readonly notifyQueue: () => DeliveryLimiterStats;
  readonly version: string;
}

export function addRuntimeMetrics(exposition: Exposition, deps: RuntimeMetricsDeps): void {
  const { pool, stomp, notifyQueue } = deps;
  const sources: MetricSource[] = [
    {
      name: 'vigil_build_info',
      help: 'Always 1; the version label says which Vigil answers',
      kind: 'gauge',
      labelNames: ['version'],
      read: () => [{ labels: { version: deps.version }, value: 1 }],
    },
    gauge('vigil_storage_threads', 'Storage worker threads', () => pool.stats().threads),
    gauge(
      'vigil_storage_tasks_running',
      'Storage tasks a worker is running (each runs up to DB_CONNECTIONS_PER_WORKER at once)',
      () => pool.stats().running,
    ),
    gauge(
      'vigil_storage_tasks_queued',
      'Storage tasks waiting for a free worker slot',
      () => pool.stats().queued,
    ),
    counter(
      'vigil_storage_tasks_completed_total',
      'Storage tasks finished (inserts, reads, alert writes)',
      () => pool.stats().completed,
    ),
    gauge('vigil_stomp_sessions', 'Open STOMP sessions (/ws)', () => stomp().sessions),
    gauge('vigil_stomp_subscriptions', 'STOMP subscriptions', () => stomp().subscriptions),
    counter(
      'vigil_stomp_frames_delivered_total',
      'MESSAGE frames sent to subscribers',
      () => stomp().delivered,
    ),
    counter(
      'vigil_stomp_frames_dropped_total',
      'MESSAGE frames skipped for a subscriber too slow to read (the next one is newer)',
      () => stomp().skipped,
    ),
    counter(
      'vigil_stomp_tail_dropped_total',
      '/topic/events frames dropped: over a subscription rate, or its socket backed up',
      () => stomp().tailDropped,
    ),
    counter(
      'vigil_stomp_slow_sessions_closed_total',
      'Sessions closed for not reading (over the buffer limit, or skipped too long)',
      () => stomp().closedSlow,
    ),
    {
      name: 'vigil_notifications_total',
      help: 'Notification deliveries by channel type and outcome (delivered, failed, dropped)',
      kind: 'counter',
      labelNames: ['channel', 'outcome'],
      read: () =>
        deps.notifications
          .read()
          .map(({ channel, outcome, count }) => ({ labels: { channel, outcome }, value: count })),
    },
    gauge(
      'vigil_notifications_in_flight',
      'Notification deliveries being sent (at most NOTIFY_CONCURRENCY)',
      () => notifyQueue().inFlight,
    ),
    gauge(
      'vigil_notifications_queued',
      'Notification deliveries waiting for a slot (at most NOTIFY_QUEUE_MAX)',
      () => notifyQueue().queued,
    ),
  ];
  for (const source of sources) exposition.add(source);
}
