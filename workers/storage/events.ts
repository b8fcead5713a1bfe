/** @module The storage worker's reads of stored events. */
import { anomalyHistory as readAnomalyHistory } from '../../src/db/anomaly-history-repository.ts';
import * as events from '../../src/db/events-repository.ts';
import { newestEvents as readNewestEvents } from '../../src/db/newest-events-repository.ts';
import { replayEvents } from '../../src/db/pattern-replay-repository.ts';
import {
  PatternReplayer,
  REPLAY_MAX_EVENTS,
  REPLAY_MINUTES,
} from '../../src/domain/rules/kinds/pattern/pattern-replay.ts';
import type { EventReadHandlers } from '../../src/protocol/storage/index.ts';
import type { AreaTable, StorageContext } from './context.ts';

export const eventReadHandlers = ({
  sql,
  guarded,
}: StorageContext): AreaTable<EventReadHandlers> => ({
  replayPattern: ({ config, now }) =>
    guarded('replayPattern', async () => {
      const replayer = new PatternReplayer(config);
      const from = now - REPLAY_MINUTES * 60_000;
      const input = { types: replayer.reads(), since: from, limit: REPLAY_MAX_EVENTS };
      const read = await replayEvents(sql, input, (event) => replayer.observe(event));
      return replayer.finish(from, now, read >= REPLAY_MAX_EVENTS);
    }),
  newestEvents: (lookup) => guarded('newestEvents', () => readNewestEvents(sql, lookup)),
  anomalyHistory: (request) => guarded('anomalyHistory', () => readAnomalyHistory(sql, request)),
  listEvents: ({ eventType, page, size }) =>
    guarded('listEvents', () => events.listEvents(sql, eventType, page, size)),
  async getEvent({ id }) {
    const result = await guarded('getEvent', () => events.getEvent(sql, id));
    if (!result.ok) return result;
    return result.value === null
      ? { ok: false, code: 'NOT_FOUND', message: 'Event not found' }
      : { ok: true, value: result.value };
  },
});
