/**
 * Storage worker (piscina thread): owns its postgres.js client and all SQL. One export per
 * operation of StorageHandlers; failures return as data. After COMMIT the stored events go
 * straight to the metrics actor over a BroadcastChannel (the front thread does not relay them),
 * those of the commits of the same 50 ms together. Each insert leaves its page counts pending; a
 * second later the worker folds every pending count into event_counts (and once at start, for
 * those a stop or a crash left). In cluster mode each batch also commits its outbox row, and the
 * cluster thread hears of every batch's end (BatchNotice).
 */
import { threadId, workerData } from 'node:worker_threads';
import { connect } from '../src/db/connect.ts';
import { describeDbError } from '../src/db/db-failure.ts';
import { hasHoles } from '../src/db/sparse-result-guard.ts';
import * as events from '../src/db/events-repository.ts';
import { newestEvents as readNewestEvents } from '../src/db/newest-events-repository.ts';
import { anomalyHistory as readAnomalyHistory } from '../src/db/anomaly-history-repository.ts';
import * as idempotency from '../src/db/idempotent-insert.ts';
import * as partitions from '../src/db/event-partitions-repository.ts';
import { pruneResolvedAlerts } from '../src/db/alerts-retention-repository.ts';
import * as rules from '../src/db/rules-repository.ts';
import * as alerts from '../src/db/alerts-repository.ts';
import * as apiKeys from '../src/db/api-keys-repository.ts';
import * as contactPoints from '../src/db/contact-points-repository.ts';
import * as silences from '../src/db/silences-repository.ts';
import type { MetricEvent, NewEvent } from '../src/domain/event.ts';
import type { InsertOutcome } from '../src/domain/idempotency.ts';
import { storedMetrics } from '../src/domain/stored-metrics.ts';
import { batchSeqOf } from '../src/domain/cluster/batch-seq.ts';
import { insertOutboxed } from '../src/db/outboxed-insert.ts';
import type { BatchNotice, StorageClusterData } from '../src/protocol/cluster.ts';
import * as leases from '../src/db/leases-repository.ts';
import * as resets from '../src/db/metrics-resets-repository.ts';
import { claimOutbox as claimNotifications } from '../src/db/notification-outbox-repository.ts';
import type { RuleRecord } from '../src/domain/rules/rule.ts';
import { replayEvents } from '../src/db/pattern-replay-repository.ts';
import {
  PatternReplayer,
  REPLAY_MAX_EVENTS,
  REPLAY_MINUTES,
} from '../src/domain/rules/kinds/pattern/pattern-replay.ts';
import { nameThisThread, THREAD_NAMES } from '../src/instrumentation/thread-name.ts';
import { createLogger } from '../src/log.ts';
import type { MetricsChannelMessage } from '../src/protocol/metrics-actor.ts';
import type {
  DbFailure,
  Result,
  StorageHandlers,
  StorageWorkerData,
} from '../src/protocol/storage.ts';

const data = workerData as StorageWorkerData;
nameThisThread(THREAD_NAMES.storage);
const log = createLogger(data.logLevel, `storage-${threadId}`);
const sql = connect({
  url: data.databaseUrl,
  schema: data.schema,
  max: data.connections,
  queryTimeoutMs: data.queryTimeoutMs,
});
const metrics = new BroadcastChannel(data.metricsChannel);
metrics.unref();

interface ClusterLink {
  readonly data: StorageClusterData;
  readonly counter: Int32Array;
  readonly channel: InstanceType<typeof BroadcastChannel>;
}
const cluster: ClusterLink | null =
  data.cluster === undefined
    ? null
    : {
        data: data.cluster,
        counter: new Int32Array(data.cluster.batchCounter),
        channel: new BroadcastChannel(data.cluster.channel),
      };
cluster?.channel.unref();

/**
 * Committed events wait here up to STORED_FLUSH_MS and go to the metrics actor together. Every
 * message wakes the actor and every other storage worker on the channel, whatever its size, and
 * under load commits come every millisecond or two while the snapshot changes every
 * METRICS_REFRESH_MS (250 by default): 50 rather than 10 took the actor from about 13 to 10 µs of
 * CPU per event at 3,000 events/s (docs/decisions.md).
 */
const STORED_FLUSH_MS = 50;
let stored: MetricEvent[] = [];
let flushTimer: NodeJS.Timeout | undefined;

const flushStored = (): void => {
  flushTimer = undefined;
  const message: MetricsChannelMessage = { type: 'events-stored', events: stored };
  stored = [];
  metrics.postMessage(message);
};

/**
 * How long a committed batch's page counts stay pending. Each fold upserts every counter row its
 * batches touch once: the longer the wait, the fewer upserts per event, and the more pending rows
 * each page read adds up (about COUNTS_FOLD_MS of ingest).
 */
const COUNTS_FOLD_MS = 1000;
let foldTimer: NodeJS.Timeout | undefined;

/** Pending counts stay correct, only slower to read, until a fold succeeds: a failed one retries. */
const foldCounts = async (): Promise<void> => {
  foldTimer = undefined;
  const result = await guarded('foldEventCounts', () => events.foldEventCounts(sql));
  if (!result.ok) scheduleFold();
};

function scheduleFold(): void {
  foldTimer ??= setTimeout(() => void foldCounts(), COUNTS_FOLD_MS);
}

async function guarded<T>(op: string, run: () => Promise<T>): Promise<Result<T, DbFailure>> {
  try {
    const value = await run();
    // postgres.js 3.4.9 may answer a sparse array after a statement failed mid-stream on the same
    // connection (docs/decisions.md): answered as a failure, never handed on as rows.
    if (hasHoles(value)) {
      log.error({ op }, 'the database driver answered a sparse result; treated as a failure');
      return { ok: false, code: 'DB_FAILURE', message: 'the database answered a malformed result' };
    }
    return { ok: true, value };
  } catch (error) {
    log.error({ err: error, op }, 'storage operation failed');
    return { ok: false, code: 'DB_FAILURE', message: describeDbError(error) };
  }
}

void foldCounts();

/**
 * A batch in which no event carries an idempotency key takes the plain insert: keys cost nothing
 * to producers that do not use them. Only the events stored now go to the metrics actor (a repeat
 * was counted when it was first stored); with `detail` (only while a PATTERN rule is ACTIVE) they
 * carry what PATTERN reads, otherwise the message stays small.
 */
export const insertEvents: StorageHandlers['insertEvents'] = async ({ events: batch, detail }) => {
  if (cluster !== null) return insertOutboxedEvents(batch, detail === true, cluster);
  const writtenAt = Date.now();
  const keyed = batch.some((e) => e.idempotency !== undefined);
  const result = await guarded('insertEvents', () =>
    keyed
      ? idempotency.insertKeyedEvents(sql, batch, writtenAt)
      : events.insertEvents(sql, batch, writtenAt),
  );
  if (result.ok) committed(storedMetrics(batch, result.value, writtenAt, detail === true));
  return result;
};

function committed(metricEvents: readonly MetricEvent[]): void {
  for (const metric of metricEvents) stored.push(metric);
  flushTimer ??= setTimeout(flushStored, STORED_FLUSH_MS);
  scheduleFold();
}

/**
 * Cluster mode: the batch takes the next number of this incarnation (shared by all storage
 * workers) and commits with its outbox row; the cluster thread then publishes it, or settles
 * the number if the insert failed, so that peers see no hole.
 */
async function insertOutboxedEvents(
  batch: readonly NewEvent[],
  detail: boolean,
  link: ClusterLink,
): Promise<Result<readonly InsertOutcome[], DbFailure>> {
  const seq = batchSeqOf(link.data.incarnation, Atomics.add(link.counter, 0, 1) + 1);
  const writtenAt = Date.now();
  const result = await guarded('insertEvents', () =>
    insertOutboxed(sql, batch, writtenAt, detail, { instanceId: link.data.instanceId, seq }),
  );
  let notice: BatchNotice;
  if (result.ok) {
    committed(result.value.stored);
    notice = { type: 'batch-committed', seq, payload: result.value.payload };
  } else notice = { type: 'batch-failed', seq };
  link.channel.postMessage(notice);
  return result.ok ? { ok: true, value: result.value.outcomes } : result;
}

export const replayPattern: StorageHandlers['replayPattern'] = ({ config, now }) =>
  guarded('replayPattern', async () => {
    const replayer = new PatternReplayer(config);
    const from = now - REPLAY_MINUTES * 60_000;
    const input = { types: replayer.reads(), since: from, limit: REPLAY_MAX_EVENTS };
    const read = await replayEvents(sql, input, (event) => replayer.observe(event));
    return replayer.finish(from, now, read >= REPLAY_MAX_EVENTS);
  });

export const newestEvents: StorageHandlers['newestEvents'] = (lookup) =>
  guarded('newestEvents', () => readNewestEvents(sql, lookup));
export const anomalyHistory: StorageHandlers['anomalyHistory'] = (request) =>
  guarded('anomalyHistory', () => readAnomalyHistory(sql, request));
export const pruneIdempotencyKeys: StorageHandlers['pruneIdempotencyKeys'] = ({ before, limit }) =>
  guarded('pruneIdempotencyKeys', () => idempotency.pruneIdempotencyKeys(sql, before, limit));

export const maintainEventPartitions: StorageHandlers['maintainEventPartitions'] = ({
  now,
  retentionDays,
}) =>
  guarded('maintainEventPartitions', () => partitions.maintainPartitions(sql, now, retentionDays));
export const pruneEventCounts: StorageHandlers['pruneEventCounts'] = ({ limit }) =>
  guarded('pruneEventCounts', () => partitions.pruneEventCounts(sql, limit));
export const pruneAlerts: StorageHandlers['pruneAlerts'] = ({ before, limit }) =>
  guarded('pruneAlerts', () => pruneResolvedAlerts(sql, before, limit));

export const listEvents: StorageHandlers['listEvents'] = ({ eventType, page, size }) =>
  guarded('listEvents', () => events.listEvents(sql, eventType, page, size));

export const getEvent: StorageHandlers['getEvent'] = async ({ id }) => {
  const result = await guarded('getEvent', () => events.getEvent(sql, id));
  if (!result.ok) return result;
  return result.value === null
    ? { ok: false, code: 'NOT_FOUND', message: 'Event not found' }
    : { ok: true, value: result.value };
};

export const ping: StorageHandlers['ping'] = () =>
  guarded('ping', async () => {
    await sql`SELECT 1`;
    return true as const;
  });

const notFound = { ok: false, code: 'NOT_FOUND', message: 'Rule not found' } as const;

/** Turns a repository answer that may be a failure word into a Result. */
function settle<T extends object, W extends string>(
  result: Result<T | W | null, DbFailure>,
  messages: Readonly<Record<W, string>>,
): Result<T, DbFailure | W | 'NOT_FOUND'> {
  if (!result.ok) return result;
  const value = result.value;
  if (value === null) return notFound;
  if (typeof value === 'string') return { ok: false, code: value, message: messages[value] };
  return { ok: true, value };
}

const NAME_TAKEN = 'A rule with this name already exists';

export const createRule: StorageHandlers['createRule'] = async ({ rule, maxRules }) => {
  const result = await guarded('createRule', () => rules.createRule(sql, rule, maxRules));
  if (!result.ok) return result;
  if (result.value === 'NAME_TAKEN') return { ok: false, code: 'NAME_TAKEN', message: NAME_TAKEN };
  if (result.value === 'RULE_LIMIT') {
    return {
      ok: false,
      code: 'RULE_LIMIT',
      message: `At most ${maxRules} rules may exist (MAX_RULES); delete one to make room`,
    };
  }
  return { ok: true, value: result.value };
};

export const getRule: StorageHandlers['getRule'] = async ({ id }) =>
  settle<RuleRecord, never>(await guarded('getRule', () => rules.getRule(sql, id)), {});

export const listRules: StorageHandlers['listRules'] = ({ filter }) =>
  guarded('listRules', () => rules.listRules(sql, filter));

export const topTriggeredRules: StorageHandlers['topTriggeredRules'] = ({ limit }) =>
  guarded('topTriggeredRules', () => rules.topTriggeredRules(sql, limit));

export const updateRule: StorageHandlers['updateRule'] = async ({ id, expectedVersion, rule }) =>
  settle<RuleRecord, 'NAME_TAKEN' | 'NOT_FOUND' | 'VERSION_CHANGED'>(
    await guarded('updateRule', () => rules.updateRule(sql, id, expectedVersion, rule)),
    {
      NAME_TAKEN,
      NOT_FOUND: 'Rule not found',
      VERSION_CHANGED: 'The rule was changed by another request; read it again and retry',
    },
  );

export const setRuleStatus: StorageHandlers['setRuleStatus'] = async ({ id, status }) =>
  settle<RuleRecord, never>(
    await guarded('setRuleStatus', () => rules.setRuleStatus(sql, id, status)),
    {},
  );

export const deleteRule: StorageHandlers['deleteRule'] = async ({ id }) => {
  const result = await guarded('deleteRule', () => rules.deleteRule(sql, id));
  if (!result.ok) return result;
  return result.value ? { ok: true, value: true } : notFound;
};

export const ruleStatistics: StorageHandlers['ruleStatistics'] = () =>
  guarded('ruleStatistics', () => rules.ruleStatistics(sql));

export const regenerateDrls: StorageHandlers['regenerateDrls'] = () =>
  guarded('regenerateDrls', () => rules.regenerateDrls(sql));

/** A fenced write refused: expected (the lease moved on), so said as FENCED, not logged as an error. */
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

export const recordTransitions: StorageHandlers['recordTransitions'] = ({ transitions, writer }) =>
  fenced('recordTransitions', () => alerts.recordTransitions(sql, transitions, writer));

export const claimOutbox: StorageHandlers['claimOutbox'] = ({ writer, limit }) =>
  fenced('claimOutbox', () => claimNotifications(sql, writer, limit));

export const takeLease: StorageHandlers['takeLease'] = ({ name, holder, ttlMs }) =>
  guarded('takeLease', () => leases.takeLease(sql, name, holder, ttlMs));

export const releaseLease: StorageHandlers['releaseLease'] = ({ name, holder }) =>
  guarded('releaseLease', async () => {
    await leases.releaseLease(sql, name, holder);
    return true as const;
  });

export const ruleChanges: StorageHandlers['ruleChanges'] = () =>
  guarded('ruleChanges', () => rules.ruleChangeSeq(sql));

export const metricsResets: StorageHandlers['metricsResets'] = () =>
  guarded('metricsResets', () => resets.metricsResetSeq(sql));

export const countMetricsReset: StorageHandlers['countMetricsReset'] = () =>
  guarded('countMetricsReset', () => resets.countMetricsReset(sql));

export const recordDeliveries: StorageHandlers['recordDeliveries'] = ({ results }) =>
  guarded('recordDeliveries', async () => {
    await alerts.recordDeliveries(sql, results);
    return true as const;
  });

const alertNotFound = { ok: false, code: 'NOT_FOUND', message: 'Alert not found' } as const;

export const getAlert: StorageHandlers['getAlert'] = async ({ id }) => {
  const result = await guarded('getAlert', () => alerts.getAlert(sql, id));
  if (!result.ok) return result;
  return result.value === null ? alertNotFound : { ok: true, value: result.value };
};

export const acknowledgeAlert: StorageHandlers['acknowledgeAlert'] = async ({ id, ack }) => {
  const result = await guarded('acknowledgeAlert', () => alerts.acknowledgeAlert(sql, id, ack));
  if (!result.ok) return result;
  return result.value === null ? alertNotFound : { ok: true, value: result.value };
};

export const inactiveRulesFiring: StorageHandlers['inactiveRulesFiring'] = () =>
  guarded('inactiveRulesFiring', () => alerts.inactiveRulesFiring(sql));

export const listAlerts: StorageHandlers['listAlerts'] = ({ filter, page, size }) =>
  guarded('listAlerts', () => alerts.listAlerts(sql, filter, page, size));

export const activeRules: StorageHandlers['activeRules'] = ({ now, ids }) =>
  guarded('activeRules', () => alerts.activeRulesForEvaluation(sql, now, ids));

export const createApiKey: StorageHandlers['createApiKey'] = async ({
  fields,
  prefix,
  hash,
  maxKeys,
}) => {
  const result = await guarded('createApiKey', () =>
    apiKeys.createApiKey(sql, fields, prefix, hash, maxKeys),
  );
  if (!result.ok) return result;
  if (result.value === 'KEY_LIMIT') {
    return {
      ok: false,
      code: 'KEY_LIMIT',
      message: `At most ${maxKeys} API keys may exist, revoked ones included`,
    };
  }
  return { ok: true, value: result.value };
};

const NO_CONTACT_POINT = {
  ok: false,
  code: 'NOT_FOUND',
  message: 'Contact point not found',
} as const;

export const listContactPoints: StorageHandlers['listContactPoints'] = () =>
  guarded('listContactPoints', () => contactPoints.listContactPoints(sql));

export const getContactPoint: StorageHandlers['getContactPoint'] = async ({ id }) => {
  const result = await guarded('getContactPoint', () => contactPoints.getContactPoint(sql, id));
  if (!result.ok) return result;
  return result.value === null ? NO_CONTACT_POINT : { ok: true, value: result.value };
};

export const saveContactPoint: StorageHandlers['saveContactPoint'] = async ({ id, fields }) => {
  const result = await guarded('saveContactPoint', () =>
    contactPoints.saveContactPoint(sql, id, fields),
  );
  if (!result.ok) return result;
  if (result.value === 'NOT_FOUND') return NO_CONTACT_POINT;
  if (result.value === 'NAME_TAKEN') {
    return {
      ok: false,
      code: 'NAME_TAKEN',
      message: 'A contact point with this name already exists',
    };
  }
  return { ok: true, value: result.value };
};

export const listApiKeys: StorageHandlers['listApiKeys'] = () =>
  guarded('listApiKeys', () => apiKeys.listApiKeys(sql));

export const storedApiKeys: StorageHandlers['storedApiKeys'] = () =>
  guarded('storedApiKeys', () => apiKeys.storedApiKeys(sql));

export const revokeApiKey: StorageHandlers['revokeApiKey'] = async ({ id }) => {
  const result = await guarded('revokeApiKey', () => apiKeys.revokeApiKey(sql, id));
  if (!result.ok) return result;
  if (result.value === null)
    return { ok: false, code: 'NOT_FOUND', message: `API key ${id} not found` };
  return { ok: true, value: result.value };
};

export const touchApiKeys: StorageHandlers['touchApiKeys'] = ({ uses }) =>
  guarded('touchApiKeys', async () => {
    await apiKeys.touchApiKeys(sql, uses);
    return true as const;
  });

export const deleteContactPoint: StorageHandlers['deleteContactPoint'] = async ({ id }) => {
  const result = await guarded('deleteContactPoint', () =>
    contactPoints.deleteContactPoint(sql, id),
  );
  if (!result.ok) return result;
  return result.value ? { ok: true, value: true } : NO_CONTACT_POINT;
};

export const createSilence: StorageHandlers['createSilence'] = async ({ fields, now, maxOpen }) => {
  const result = await guarded('createSilence', () =>
    silences.createSilence(sql, fields, now, maxOpen),
  );
  if (!result.ok) return result;
  if (result.value === 'UNKNOWN_RULE') {
    return { ok: false, code: 'UNKNOWN_RULE', message: `ruleId ${fields.ruleId} names no rule` };
  }
  if (result.value === 'SILENCE_LIMIT') {
    return {
      ok: false,
      code: 'SILENCE_LIMIT',
      message: `At most ${maxOpen} silences may be pending or active; end one to make room`,
    };
  }
  return { ok: true, value: result.value };
};

const silenceNotFound = (id: number) =>
  ({ ok: false, code: 'NOT_FOUND', message: `Silence ${id} not found` }) as const;

export const getSilence: StorageHandlers['getSilence'] = async ({ id }) => {
  const result = await guarded('getSilence', () => silences.getSilence(sql, id));
  if (!result.ok) return result;
  return result.value === null ? silenceNotFound(id) : { ok: true, value: result.value };
};

export const listSilences: StorageHandlers['listSilences'] = ({ filter, now, page, size }) =>
  guarded('listSilences', () => silences.listSilences(sql, filter, now, page, size));

export const endSilence: StorageHandlers['endSilence'] = async ({ id, now }) => {
  const result = await guarded('endSilence', () => silences.endSilence(sql, id, now));
  if (!result.ok) return result;
  return result.value === null ? silenceNotFound(id) : { ok: true, value: result.value };
};

// Checks that this module implements every handler of the protocol with its exact type.
({
  insertEvents,
  pruneIdempotencyKeys,
  maintainEventPartitions,
  pruneEventCounts,
  pruneAlerts,
  listEvents,
  getEvent,
  ping,
  createRule,
  getRule,
  listRules,
  topTriggeredRules,
  updateRule,
  setRuleStatus,
  deleteRule,
  ruleStatistics,
  regenerateDrls,
  recordTransitions,
  claimOutbox,
  takeLease,
  releaseLease,
  ruleChanges,
  metricsResets,
  countMetricsReset,
  recordDeliveries,
  getAlert,
  acknowledgeAlert,
  inactiveRulesFiring,
  listAlerts,
  activeRules,
  createApiKey,
  listApiKeys,
  storedApiKeys,
  revokeApiKey,
  touchApiKeys,
  listContactPoints,
  getContactPoint,
  saveContactPoint,
  deleteContactPoint,
  createSilence,
  getSilence,
  listSilences,
  endSilence,
  newestEvents,
  replayPattern,
  anomalyHistory,
}) satisfies StorageHandlers;
