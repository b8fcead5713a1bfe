/**
 * Metrics actor (one worker thread): the only owner of the aggregator and the rule evaluator.
 * Stored events arrive from the storage workers on a BroadcastChannel; commands come from the
 * front thread; every METRICS_REFRESH_MS it posts the serialised snapshot (one serialisation for
 * every reader) and every RULE_EVALUATION_MS it evaluates the ACTIVE rules, posting what fires.
 */
import { isMainThread, parentPort, workerData } from 'node:worker_threads';
import { gzipSync } from 'node:zlib';
import type { ClusterView } from '../src/domain/cluster/cluster-view.ts';
import { Aggregator } from '../src/domain/metrics/aggregator.ts';
import { CapFillLog, capFillMessage } from '../src/domain/metrics/cap-fill-log.ts';
import type { MetricsSnapshot } from '../src/domain/metrics/snapshot/snapshot.ts';
import type {
  AlertResolution,
  AlertTransition,
  DigestDue,
  RulePending,
} from '../src/domain/rules/alerts/alert.ts';
import { RuleEngine } from '../src/domain/rules/rule-engine.ts';
import {
  restoreEngineState,
  savedPatterns,
  takeEngineState,
} from '../src/domain/rules/engine-state.ts';
import { testRule } from '../src/domain/rules/rule-test.ts';
import { TickTimer } from '../src/telemetry/tick-timer.ts';
import { nameThisThread, THREAD_NAMES } from '../src/telemetry/thread-name.ts';
import { actorHeap } from '../src/telemetry/thread-heap.ts';
import { createLogger } from '../src/log.ts';
import { connect } from '../src/db/connect.ts';
import { MetricsCheckpointer } from '../src/metrics-actor/checkpointer.ts';
import { PatternBacklog } from '../src/metrics-actor/pattern-backlog.ts';
import type { RestoredFrom } from '../src/domain/metrics/snapshot/snapshot.ts';
import {
  assertNever,
  type MetricsActorData,
  type MetricsChannelMessage,
  type MetricsCommand,
  type MetricsNotice,
  type RuleSetReply,
  type SerialisedSnapshot,
} from '../src/protocol/metrics-actor.ts';

if (isMainThread || parentPort === null)
  throw new Error('metrics-actor.worker.ts runs in a worker thread');
const port = parentPort;
const data = workerData as MetricsActorData;
nameThisThread(THREAD_NAMES.metrics);
const log = createLogger(data.logLevel, 'metrics-actor');

const aggregator = new Aggregator({
  now: Date.now,
  maxEventTypes: data.maxEventTypes,
  maxSources: data.maxSources,
  maxTrackedUsers: data.maxTrackedUsers,
});

const post = (notice: MetricsNotice): void => port.postMessage(notice);
// Level 1: about a fifth of the JSON's size for well under a millisecond of this thread's time.
/** Cluster mode only (the first cluster-view sets it): what the snapshot's `cluster` says. */
let clusterView: ClusterView | null = null;
const capFills = new CapFillLog();
/** Set once the start's restore ran (issue 33): every snapshot says how it began. */
let restoredFrom: RestoredFrom | undefined;
const serialise = (): SerialisedSnapshot => {
  const snapshot: MetricsSnapshot = aggregator.snapshot();
  // Once per snapshot, not per event: the fill counts ride on the snapshot anyway.
  for (const notice of capFills.check(snapshot.limits, Date.now())) {
    const { cap, limit, newFills, totalFills } = notice;
    log.warn({ cap, limit, newFills, totalFills }, capFillMessage(notice));
  }
  const json = JSON.stringify({
    ...snapshot,
    ...(clusterView === null ? {} : { cluster: clusterView }),
    ...(restoredFrom === undefined ? {} : { restoredFrom }),
  });
  return { json, gzip: gzipSync(json, { level: 1 }) };
};
const publishSnapshot = (): void => post({ type: 'snapshot', snapshot: serialise() });

const engine = new RuleEngine();
/**
 * The rule lifecycles of the checkpoint restored at start, until the first set-rules (the rules
 * come from the front after ready): restored into the rules of the same id and version then.
 */
let savedRules: unknown = null;
/** While restored PATTERN partitions wait for their rules (the first set-rules): their events. */
let patternBacklog: PatternBacklog | null = null;
/** Its own connection (issue 33): checkpoints are written and read off the front thread. */
const checkpointSql =
  data.checkpoint === null
    ? null
    : connect({
        url: data.checkpoint.databaseUrl,
        schema: data.checkpoint.schema,
        max: 1,
        // Per statement: each page of a restore's replay is one; a write (at a reset or a stop,
        // which wait for it) fails after this while PostgreSQL is unreachable, and is retried.
        queryTimeoutMs: 10_000,
      });
const checkpointer =
  checkpointSql === null || data.checkpoint === null
    ? null
    : new MetricsCheckpointer({
        sql: checkpointSql,
        owner: data.checkpoint.owner,
        aggregator,
        extras: {
          take: () => takeEngineState(engine),
          restore: (saved) => {
            savedRules = saved;
            if (savedPatterns(saved)) patternBacklog = new PatternBacklog();
          },
          replayDetail: () => patternBacklog !== null,
          replayed: (events) => patternBacklog?.push(events),
        },
        log,
        now: Date.now,
        rebuildWithoutCheckpoint: data.checkpoint.rebuildWithoutCheckpoint,
      });
/** Batches committed while the start's restore runs: counted after it, de-duplicated. */
let held: MetricsChannelMessage[] | null = checkpointer === null ? null : [];
const countBatch = (msg: MetricsChannelMessage): void => {
  if (checkpointer === null) aggregator.record(msg.events);
  // The checkpointer records them, minus those a restore counted already.
  const counted = checkpointer === null ? msg.events : checkpointer.count(msg.events, msg.ids);
  if (patternBacklog !== null) patternBacklog.push(counted);
  else engine.observe(counted);
};
const events = new BroadcastChannel(data.metricsChannel);
events.onmessage = (message: unknown) => {
  const msg = (message as { data: MetricsChannelMessage }).data;
  if (msg.type !== 'events-stored') return;
  if (held !== null) {
    held.push(msg);
    return;
  }
  // Not caught: a batch that cannot be counted may have been counted in part, and the thread's
  // supervisor (actors/metrics-actor-client.ts) restarts it from the last checkpoint.
  countBatch(msg);
};

/**
 * A periodic job's failure is logged and the next period runs it again: an uncaught throw here
 * would end the thread, and with it every count since the last restart.
 */
const everyPeriod = (job: () => void, what: string) => (): void => {
  try {
    job();
  } catch (error) {
    log.error({ err: error }, `${what} failed; the next period retries`);
  }
};

let refresh: NodeJS.Timeout | undefined;
let checkpoints: NodeJS.Timeout | undefined;
/** A failed write is logged; the next period (or the stop) writes the state again. */
const writeCheckpoint = async (why: string): Promise<void> => {
  try {
    await checkpointer?.write();
  } catch (error) {
    log.error({ err: error, why }, 'metrics checkpoint write failed; the next one retries');
  }
};

const tickTimer = new TickTimer(data.evaluationCpuStats);
/**
 * False on an instance of a cluster that does not hold the rule leader lease: nothing is decided
 * and no transition is posted (the leader's are the only ones stored). True alone.
 */
let evaluating = data.evaluating;
/** What the rule test of a stored rule says of its lifecycle and throttling now. */
const stateNote = (ruleId: number, now: number): string | undefined => {
  const state = engine.stateOf(ruleId);
  const anomaly = engine.anomalyStatus(ruleId);
  const parts = [
    evaluating
      ? undefined
      : 'This instance does not evaluate the rules now (another is the rule leader)',
    state === 'FIRING' || state === 'PENDING' ? `The rule is ${state}` : undefined,
    state === 'DEGRADED'
      ? "The rule is DEGRADED: the view of the cluster's events is incomplete, it neither fires nor resolves until it is whole"
      : undefined,
    state === 'LEARNING' && anomaly !== undefined
      ? `The rule is LEARNING: ${anomaly.historyMinutes} of ${anomaly.minHistoryMinutes} minutes of history covered${anomaly.backfill === 'pending' ? ', stored history still being read' : ''}`
      : undefined,
    engine.throttleNote(ruleId, now),
  ].filter((part): part is string => part !== undefined);
  return parts.length === 0 ? undefined : parts.join('. ');
};

/**
 * Posts transitions in one message: the front stores those of one message together. Only while
 * evaluating: an instance that is not the rule leader decides nothing, not even a rule's leaving.
 */
const postTransitions = (transitions: readonly (AlertTransition | RulePending)[]): void => {
  if (evaluating && transitions.length > 0) post({ type: 'alerts', transitions });
};

const resolved: AlertResolution[] = [];
const digests: DigestDue[] = [];
/**
 * The PENDING steps published, by rule: `since` and whether suppressed. A rule is published when
 * it goes PENDING and again when its suppression starts holding it (README "every step").
 */
let published = new Map<number, string>();
const newlyPending = (now: number): RulePending[] => {
  const current = new Map<number, string>();
  const changed: RulePending[] = [];
  for (const p of engine.pending(now)) {
    const step = `${p.pendingSince} ${p.suppressedUntil === null ? '' : 'suppressed'}`;
    current.set(p.ruleId, step);
    if (published.get(p.ruleId) !== step) changed.push(p);
  }
  published = current;
  return changed;
};
const evaluate = (): void => {
  if (!evaluating) {
    engine.idle(Date.now());
    return;
  }
  const now = Date.now();
  const fired = tickTimer.time(() => engine.tick(aggregator, now, resolved, digests));
  postTransitions([
    ...newlyPending(now),
    ...resolved.map((resolution): AlertTransition => ({ kind: 'resolved', resolution })),
    // Before this tick's firings: a digest covers the incidents held back before it.
    ...digests.map((digest): AlertTransition => ({ kind: 'digest', digest })),
    ...fired.map((alert): AlertTransition => ({ kind: 'fired', alert })),
  ]);
  resolved.length = 0;
  digests.length = 0;
};

/** A rule that left evaluation while FIRING (paused, archived, deleted): its incident resolves. */
const resolveLeft = (ids: readonly number[]): void => {
  const now = Date.now();
  postTransitions(
    ids.map((ruleId): AlertTransition => ({
      kind: 'resolved',
      resolution: {
        ruleId,
        resolvedAt: now,
        cause: 'rule-inactive',
        valuesAtResolve: null,
        resolveExplanation: null,
      },
    })),
  );
};
const evaluation = setInterval(everyPeriod(evaluate, 'rule evaluation'), data.evaluationMs);

/** The keys whose newest stored event was asked for already (once per key per actor). */
const asked = { any: false, types: new Set<string>(), sources: new Set<string>() };
/**
 * Counts what the rules name by name past the caps (rules/watched-keys.ts), and asks the front
 * for the newest stored event of each producer-silent key not asked before: the silence of a
 * producer survives an actor restart.
 */
const watchProducers = (): void => {
  aggregator.watch(engine.watchedKeys());
  const watched = engine.reads().watchedKeys();
  const types = [...watched.types].filter((key) => !asked.types.has(key));
  const sources = [...watched.sources].filter((key) => !asked.sources.has(key));
  if (asked.any && types.length === 0 && sources.length === 0) return;
  asked.any = true;
  for (const key of types) asked.types.add(key);
  for (const key of sources) asked.sources.add(key);
  post({ type: 'watching', keys: { types, sources } });
};

const ruleSetReply = (): RuleSetReply => ({
  rules: engine.size(),
  eventDetail: engine.needsEventDetail(),
});
/** Asks the front for the stored history of ANOMALY series that have none (once per series). */
const askBackfills = (): void => {
  const requests = engine.backfillRequests(Date.now());
  if (requests.length > 0) post({ type: 'anomaly-backfill', requests });
};

port.on('message', (command: MetricsCommand) => {
  const { requestId } = command;
  try {
    switch (command.type) {
      case 'reset': {
        aggregator.reset();
        checkpointer?.reset();
        const snapshot = serialise();
        post({ type: 'snapshot', snapshot });
        // Answered once the reset state is checkpointed: a restart after the answer keeps it.
        void writeCheckpoint('reset').then(() =>
          post({ type: 'reply', requestId, result: { ok: true, value: snapshot } }),
        );
        return;
      }
      case 'test-rule': {
        const { input } = command;
        const now = Date.now();
        const note = typeof input.id === 'number' ? stateNote(input.id, now) : undefined;
        // A rule not ACTIVE would become so now: a silent key of it counts from now.
        const since = typeof input.id === 'number' ? engine.activeSinceOf(input.id) : undefined;
        const live = typeof input.id === 'number' ? engine.anomalyRule(input.id) : undefined;
        const value = testRule(input, aggregator, note, since ?? now, { now, live });
        post({ type: 'reply', requestId, result: { ok: true, value } });
        return;
      }
      case 'set-rules':
        if (command.lead) {
          engine.forget();
          evaluating = true;
        }
        resolveLeft([...engine.setRules(command.rules, Date.now()), ...command.orphans]);
        if (savedRules !== null) {
          // A new rule leader takes the lifecycles from the stored alerts (forget above) instead.
          const restored = command.lead ? 0 : restoreEngineState(engine, savedRules);
          log.info({ restored }, 'rule lifecycles restored from the checkpoint');
          savedRules = null;
        }
        if (patternBacklog !== null) {
          // The restored PATTERN partitions go on with what was counted since the checkpoint.
          const { dropped } = patternBacklog;
          engine.observe(patternBacklog.drain());
          patternBacklog = null;
          if (dropped > 0)
            log.warn(
              { dropped },
              'PATTERN partitions did not see the oldest events of their restart',
            );
        }
        watchProducers();
        askBackfills();
        post({ type: 'reply', requestId, result: { ok: true, value: ruleSetReply() } });
        return;
      case 'put-rules':
        resolveLeft(engine.putRules(command.ids, command.rules, Date.now()));
        watchProducers();
        askBackfills();
        post({ type: 'reply', requestId, result: { ok: true, value: ruleSetReply() } });
        return;
      case 'set-evaluating':
        evaluating = command.evaluating;
        post({ type: 'reply', requestId, result: { ok: true, value: null } });
        return;
      case 'set-view-complete':
        engine.setViewComplete(command.complete);
        checkpointer?.counted.viewComplete(command.complete);
        post({ type: 'reply', requestId, result: { ok: true, value: null } });
        return;
      case 'rule-status': {
        const value = engine.statusOf(command.ruleId, Date.now()) ?? null;
        post({ type: 'reply', requestId, result: { ok: true, value } });
        return;
      }
      case 'seed-last-events':
        aggregator.seedLastEvents(command.newest);
        post({ type: 'reply', requestId, result: { ok: true, value: null } });
        return;
      case 'seed-anomaly':
        engine.seedAnomaly(command.answer);
        post({ type: 'reply', requestId, result: { ok: true, value: null } });
        return;
      case 'evaluation-stats': {
        const value = {
          rules: engine.size(),
          ...tickTimer.summary(command.last),
          heap: actorHeap(),
        };
        post({ type: 'reply', requestId, result: { ok: true, value } });
        return;
      }
      case 'history': {
        const value = aggregator.history(command.minutes);
        post({ type: 'reply', requestId, result: { ok: true, value } });
        return;
      }
      case 'self-metrics': {
        const value = {
          rules: engine.size(),
          evaluationSeconds: tickTimer.histogram(),
          counts: aggregator.countsSinceStart(),
          caps: aggregator.capsUsage(),
          checkpoints: checkpointer?.stats() ?? null,
        };
        post({ type: 'reply', requestId, result: { ok: true, value } });
        return;
      }
      case 'cluster-view':
        clusterView = command.view;
        post({ type: 'reply', requestId, result: { ok: true, value: null } });
        return;
      case 'stop':
        clearInterval(refresh);
        clearInterval(evaluation);
        clearInterval(checkpoints);
        tickTimer.close();
        // The last checkpoint holds everything counted; batches after it are replayed at start.
        void writeCheckpoint('stop')
          .then(() => checkpointSql?.end({ timeout: 1 }))
          .finally(() => {
            events.close();
            post({ type: 'reply', requestId, result: { ok: true, value: null } });
            port.close();
          });
        return;
      default:
        assertNever(command);
    }
  } catch (error) {
    log.error({ err: error, command: command.type }, 'metrics command failed');
    const { name, message } = error instanceof Error ? error : new Error(String(error));
    post({ type: 'reply', requestId, result: { ok: false, error: { name, message } } });
  }
});

/**
 * Restores the last checkpoint and replays what was committed after it before the first
 * snapshot (issue 33), then counts the batches held meanwhile; ready only then.
 */
const start = async (): Promise<void> => {
  if (checkpointer !== null) {
    restoredFrom = await checkpointer.restore();
    const waiting = held ?? [];
    held = null;
    for (const msg of waiting) countBatch(msg);
  }
  publishSnapshot();
  refresh = setInterval(everyPeriod(publishSnapshot, 'snapshot'), data.refreshMs);
  if (checkpointer !== null && data.checkpoint !== null && data.checkpoint.intervalMs > 0) {
    checkpoints = setInterval(() => void writeCheckpoint('period'), data.checkpoint.intervalMs);
  }
  post({ type: 'ready' });
};
void start();
