/** @module The storage worker's alert operations: transitions, the outbox, deliveries, reads. */
import * as alerts from '../../src/db/alerts-repository.ts';
import * as leases from '../../src/db/leases-repository.ts';
import { claimOutbox as claimNotifications } from '../../src/db/notification-outbox-repository.ts';
import type { AlertHandlers, DbFailure, Result } from '../../src/protocol/storage/index.ts';
import type { AreaTable, StorageContext } from './context.ts';

const alertNotFound = { ok: false, code: 'NOT_FOUND', message: 'Alert not found' } as const;

export function alertHandlers({ sql, guarded }: StorageContext): AreaTable<AlertHandlers> {
  /**
   * A fenced write refused: expected (the lease moved on), so said as FENCED, not logged as an
   * error.
   */
  async function fenced<T>(
    op: string,
    run: () => Promise<T>,
  ): Promise<Result<T, DbFailure | 'FENCED'>> {
    const result = await guarded(op, async (): Promise<T | leases.FencedError> => {
      try {
        return await run();
      } catch (error) {
        if (error instanceof leases.FencedError) return error;
        throw error;
      }
    });
    if (result.ok && result.value instanceof leases.FencedError)
      return { ok: false, code: 'FENCED', message: result.value.message };
    return result as Result<T, DbFailure>;
  }

  return {
    recordTransitions: ({ transitions, writer }) =>
      fenced('recordTransitions', () => alerts.recordTransitions(sql, transitions, writer)),
    claimOutbox: ({ writer, limit }) =>
      fenced('claimOutbox', () => claimNotifications(sql, writer, limit)),
    recordDeliveries: ({ results }) =>
      guarded('recordDeliveries', async () => {
        await alerts.recordDeliveries(sql, results);
        return true as const;
      }),
    async getAlert({ id }) {
      const result = await guarded('getAlert', () => alerts.getAlert(sql, id));
      if (!result.ok) return result;
      return result.value === null ? alertNotFound : { ok: true, value: result.value };
    },
    async acknowledgeAlert({ id, ack }) {
      const result = await guarded('acknowledgeAlert', () => alerts.acknowledgeAlert(sql, id, ack));
      if (!result.ok) return result;
      return result.value === null ? alertNotFound : { ok: true, value: result.value };
    },
    inactiveRulesFiring: () =>
      guarded('inactiveRulesFiring', () => alerts.inactiveRulesFiring(sql)),
    listAlerts: ({ filter, page, size }) =>
      guarded('listAlerts', () => alerts.listAlerts(sql, filter, page, size)),
    activeRules: ({ now, ids }) =>
      guarded('activeRules', () => alerts.activeRulesForEvaluation(sql, now, ids)),
  };
}
