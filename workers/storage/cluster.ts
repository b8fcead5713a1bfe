/** @module The storage worker's operations for several instances: leases and the reset counter. */
import * as leases from '../../src/db/leases-repository.ts';
import * as resets from '../../src/db/metrics-resets-repository.ts';
import type { ClusterHandlers } from '../../src/protocol/storage/index.ts';
import type { AreaTable, StorageContext } from './context.ts';

export const clusterHandlers = ({ sql, guarded }: StorageContext): AreaTable<ClusterHandlers> => ({
  takeLease: ({ name, holder, ttlMs }) =>
    guarded('takeLease', () => leases.takeLease(sql, name, holder, ttlMs)),
  releaseLease: ({ name, holder }) =>
    guarded('releaseLease', async () => {
      await leases.releaseLease(sql, name, holder);
      return true as const;
    }),
  metricsResets: () => guarded('metricsResets', () => resets.metricsResetSeq(sql)),
  countMetricsReset: () => guarded('countMetricsReset', () => resets.countMetricsReset(sql)),
});
