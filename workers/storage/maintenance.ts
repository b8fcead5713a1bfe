/** @module The storage worker's upkeep: retention, pruning, and the start-up ping. */
import { pruneResolvedAlerts } from '../../src/db/alerts-retention-repository.ts';
import * as partitions from '../../src/db/event-partitions-repository.ts';
import * as idempotency from '../../src/db/idempotent-insert.ts';
import type { MaintenanceHandlers } from '../../src/protocol/storage/index.ts';
import type { AreaTable, StorageContext } from './context.ts';

export const maintenanceHandlers = ({
  sql,
  guarded,
}: StorageContext): AreaTable<MaintenanceHandlers> => ({
  pruneIdempotencyKeys: ({ before, limit }) =>
    guarded('pruneIdempotencyKeys', () => idempotency.pruneIdempotencyKeys(sql, before, limit)),
  maintainEventPartitions: ({ now, retentionDays }) =>
    guarded('maintainEventPartitions', () =>
      partitions.maintainPartitions(sql, now, retentionDays),
    ),
  pruneEventCounts: ({ limit }) =>
    guarded('pruneEventCounts', () => partitions.pruneEventCounts(sql, limit)),
  pruneAlerts: ({ before, limit }) =>
    guarded('pruneAlerts', () => pruneResolvedAlerts(sql, before, limit)),
  ping: () =>
    guarded('ping', async () => {
      await sql`SELECT 1`;
      return true as const;
    }),
});
