/**
 * @module The front thread's face of the metrics actor: starts the worker, keeps the latest
 * snapshot it posts, correlates requests with replies (pending map), fails every waiting request
 * at once if the thread dies, and restarts it (the new thread restores the last checkpoint and
 * replays the stored events after it, issue 33). While no thread
 * runs (a start failed; the next is tried later, backing off), requests fail at once too.
 */
import { Worker } from 'node:worker_threads';
import { gzipSync } from 'node:zlib';
import type { ClusterView } from '../domain/cluster/cluster-view.ts';
import type { KeyLookup, NewestEvents } from '../domain/metrics/state/last-event-times.ts';
import type { AlertTransition, RulePending } from '../domain/rules/alerts/alert.ts';
import type { MetricsHistory } from '../domain/metrics/snapshot/snapshot.ts';
import type { ActiveRule } from '../domain/rules/rule.ts';
import type {
  BackfillAnswer,
  BackfillRequest,
} from '../domain/rules/kinds/anomaly/anomaly-rules.ts';
import type { RuleTestInput, RuleTestResult } from '../domain/rules/rule-test.ts';
import type { RuleRuntimeStatus } from '../domain/rules/rule-engine.ts';
import { AppError } from '../errors.ts';
import type { Logger } from '../log.ts';
import type {
  ActorSelfMetrics,
  EvaluationStats,
  MetricsActorData,
  MetricsCommand,
  MetricsNotice,
  MetricsReplies,
  SerialisedSnapshot,
} from '../protocol/metrics-actor.ts';
import { REAL_TIMERS, type Timers } from '../timers.ts';
import { workerEntry, workerExecArgv } from './worker-entry.ts';

const WORKER_FILE = workerEntry('metrics-actor');

type CommandType = MetricsCommand['type'];
type CommandInput<K extends CommandType> = Omit<
  Extract<MetricsCommand, { type: K }>,
  'type' | 'requestId'
>;

interface Pending {
  resolve(value: unknown): void;
  reject(error: Error): void;
}

export interface MetricsActor {
  /** The latest serialised snapshot (spec 2.10); refreshed by the actor every METRICS_REFRESH_MS. */
  snapshotJson(): string;
  /** The same snapshot as UTF-8, encoded once per snapshot rather than once per request. */
  snapshotBytes(): Uint8Array;
  /** The same snapshot gzipped (by the actor), for clients that accept gzip. */
  snapshotGzip(): Uint8Array;
  /** Called with each new snapshot (the STOMP broadcaster keeps the latest). */
  onSnapshot(listener: (json: string) => void): void;
  reset(): Promise<void>;
  testRule(input: RuleTestInput): Promise<RuleTestResult>;
  /**
   * Replaces the ACTIVE rules the actor evaluates. `orphans`: rules not ACTIVE that have an open
   * incident (paused or deleted while no actor could resolve it): the actor resolves those.
   * `lead`: this instance became the rule leader: their lifecycle and throttling come from
   * `rules` (the stored alerts), whatever the actor held, and evaluation resumes with them.
   */
  setRules(
    rules: readonly ActiveRule[],
    orphans?: readonly number[],
    lead?: boolean,
  ): Promise<void>;
  /**
   * Cluster mode: evaluate the rules or not (the lease is held or not). Posted at once, in order
   * with every other command; kept across actor restarts.
   */
  setEvaluating(evaluating: boolean): void;
  /**
   * Cluster mode: whether the metrics hold every live instance's events (else the rules that
   * count events are DEGRADED). Posted when it changes; kept across actor restarts.
   */
  setViewComplete(complete: boolean): void;
  /** Replaces the rules of `ids`: those in `rules` are ACTIVE, the others are dropped. */
  putRules(ids: readonly number[], rules: readonly ActiveRule[]): Promise<void>;
  /**
   * Whether committed events must carry what PATTERN rules read (an ACTIVE PATTERN rule exists,
   * as of the last rule change the actor answered).
   */
  eventDetail(): boolean;
  /** The runtime status of an ACTIVE rule (lifecycle state, PATTERN partitions), or null. */
  ruleStatus(ruleId: number): Promise<RuleRuntimeStatus | null>;
  /** The evaluator's time per tick over its last `last` ticks (1..600). */
  evaluationStats(last: number): Promise<EvaluationStats>;
  /** The last `minutes` (1..1440) minute by minute, the current (partial) minute last. */
  history(minutes: number): Promise<MetricsHistory>;
  /** The actor's numbers a Prometheus scrape exports (GET /metrics). */
  selfMetrics(): Promise<ActorSelfMetrics>;
  /**
   * Called with every transition the evaluator decides (a rule fired, an incident resolved), and
   * each rule that went PENDING (published only).
   */
  onAlert(listener: (transition: AlertTransition | RulePending) => void): void;
  /** Called when rules start watching producers: read their newest stored events for it. */
  onWatching(listener: (keys: KeyLookup) => void): void;
  /** The newest stored events of keys a watching notice asked for. */
  seedLastEvents(newest: NewestEvents): Promise<void>;
  /** Called when ANOMALY series need their stored history: read it and answer with seedAnomaly. */
  onAnomalyBackfill(listener: (requests: readonly BackfillRequest[]) => void): void;
  /** The stored history one backfill request asked for. */
  seedAnomaly(answer: BackfillAnswer): Promise<void>;
  /**
   * Cluster mode: the instances whose batches the metrics count, and whether that is all of the
   * live ones (the snapshot's `cluster`). Kept, and sent again to an actor that restarted.
   */
  clusterView(view: ClusterView): Promise<void>;
  /** Called after a dead actor was replaced: it holds no rules until they are sent again. */
  onRestart(listener: () => void): void;
  stop(): Promise<void>;
}

const unavailable = (): AppError =>
  new AppError('INTERNAL', 'Metrics are unavailable: the metrics actor stopped');

/** After a restart that failed, the next waits this long, doubling per failure up to the max. */
const RETRY_DELAY_MS = 500;
const MAX_RETRY_DELAY_MS = 30_000;

/** The timer that spaces out restarts after failed starts. */
export type RestartTimers = Pick<Timers, 'setTimeout' | 'clearTimeout'>;

/** Unref'd: a restart still waiting does not by itself keep the process alive. */
const REAL_RESTART_TIMERS: RestartTimers = {
  setTimeout: (callback, ms, arg) => setTimeout(callback, ms, arg).unref(),
  clearTimeout: (handle) => REAL_TIMERS.clearTimeout(handle),
};

export interface MetricsActorOptions {
  /** Absent: the real timer. Tests pass their own to check each delay and fire it themselves. */
  readonly timers?: RestartTimers;
}

export async function startMetricsActor(
  data: MetricsActorData,
  log: Logger,
  options: MetricsActorOptions = {},
): Promise<MetricsActor> {
  const timers = options.timers ?? REAL_RESTART_TIMERS;
  let latest: SerialisedSnapshot = { json: '{}', gzip: gzipSync('{}') };
  let latestBytes: Uint8Array | null = null;
  let started = false;
  let stopping = false;
  let nextId = 1;
  const pending = new Map<number, Pending>();
  const listeners: ((json: string) => void)[] = [];
  const alertListeners: ((transition: AlertTransition | RulePending) => void)[] = [];
  const restartListeners: (() => void)[] = [];
  const watchingListeners: ((keys: KeyLookup) => void)[] = [];
  const backfillListeners: ((requests: readonly BackfillRequest[]) => void)[] = [];
  /** The running (or starting) thread; null between a death and the next start. */
  let worker: Worker | null = null;
  let restartTimer: unknown = null;
  /** Starts in a row that never became ready: they space out the next attempt. */
  let failedStarts = 0;

  /** Each listener on its own: one that throws is logged, the others still hear the notice. */
  const tell = <A>(all: readonly ((arg: A) => void)[], arg: A, what: string): void => {
    for (const listener of all) {
      try {
        listener(arg);
      } catch (error) {
        log.error({ err: error }, `a listener of the actor's ${what} failed`);
      }
    }
  };

  const onNotice = (notice: MetricsNotice): void => {
    switch (notice.type) {
      case 'ready':
        return;
      case 'snapshot':
        latest = notice.snapshot;
        latestBytes = null;
        tell(listeners, latest.json, 'snapshot');
        return;
      case 'alerts':
        for (const transition of notice.transitions) tell(alertListeners, transition, 'alerts');
        return;
      case 'watching':
        tell(watchingListeners, notice.keys, 'watching notice');
        return;
      case 'anomaly-backfill':
        tell(backfillListeners, notice.requests, 'anomaly back-fill');
        return;
      case 'reply': {
        const waiting = pending.get(notice.requestId);
        pending.delete(notice.requestId);
        if (waiting === undefined) return;
        if (notice.result.ok) waiting.resolve(notice.result.value);
        else
          waiting.reject(
            Object.assign(new Error(notice.result.error.message), {
              name: notice.result.error.name,
            }),
          );
      }
    }
  };

  const failPending = (): void => {
    for (const waiting of pending.values()) waiting.reject(unavailable());
    pending.clear();
  };

  /** Once the service runs, a dead thread is replaced: at once, or later after failed starts. */
  const scheduleRestart = (): void => {
    if (!started || stopping || worker !== null || restartTimer !== null) return;
    if (failedStarts === 0) {
      restart();
      return;
    }
    const delay = Math.min(MAX_RETRY_DELAY_MS, RETRY_DELAY_MS * 2 ** (failedStarts - 1));
    restartTimer = timers.setTimeout(
      () => {
        restartTimer = null;
        restart();
      },
      delay,
      undefined,
    );
  };

  /** The last cluster view sent: a restarted actor gets it before anything else. */
  let lastView: ClusterView | null = null;
  const restart = (): void => {
    spawn().then(
      () => {
        if (lastView !== null) send('cluster-view', { view: lastView }).catch(() => undefined);
        // The new thread starts from workerData: what the front set since is said again first.
        post('set-evaluating', { evaluating });
        post('set-view-complete', { complete: viewComplete });
        tell(restartListeners, undefined, 'restart');
      },
      (error: unknown) =>
        log.error({ err: error, failedStarts }, 'metrics actor restart failed; trying again'),
    );
  };

  const spawn = (): Promise<void> =>
    new Promise((resolve, reject) => {
      let w: Worker;
      try {
        w = new Worker(WORKER_FILE, { workerData: data, execArgv: workerExecArgv() });
      } catch (error) {
        failedStarts++;
        reject(error instanceof Error ? error : new Error(String(error)));
        scheduleRestart();
        return;
      }
      worker = w;
      let ready = false;
      w.on('message', (notice: MetricsNotice) => {
        if (notice.type === 'ready' && !ready) {
          ready = true;
          failedStarts = 0;
          resolve();
        }
        onNotice(notice);
      });
      w.on('error', (error) => {
        log.error({ err: error }, 'metrics actor failed');
        reject(error);
      });
      w.on('exit', (code) => {
        if (worker === w) worker = null;
        // Requests sent to this thread will never be answered: they fail now, not at a timeout.
        failPending();
        if (!ready) {
          failedStarts++;
          reject(new Error(`metrics actor exited (code ${code}) before it was ready`));
        }
        if (!started || stopping) return;
        log.error({ code }, 'metrics actor died; restarting it from its last checkpoint');
        scheduleRestart();
      });
    });

  const send = <K extends CommandType>(
    type: K,
    input: CommandInput<K>,
  ): Promise<MetricsReplies[K]> => {
    const target = worker;
    if (target === null) return Promise.reject(unavailable());
    const requestId = nextId++;
    return new Promise((resolve, reject) => {
      pending.set(requestId, { resolve: resolve, reject });
      target.postMessage({ type, requestId, ...input });
    });
  };

  /**
   * A command whose answer nobody waits for (a failure is logged by the actor): posted now, so
   * that it is ordered with what was sent before and after it.
   */
  const post = <K extends 'set-evaluating' | 'set-view-complete'>(
    type: K,
    input: CommandInput<K>,
  ): void => {
    // Stopping: the thread is gone or going, and the state it would set dies with it.
    if (stopping) return;
    send(type, input).catch((error: unknown) =>
      log.warn({ err: error, command: type }, 'metrics actor command failed'),
    );
  };
  let evaluating = data.evaluating;
  let viewComplete = true;

  await spawn();
  started = true;
  /** Kept across actor restarts: the rules are sent again, and the reply says it anew. */
  let eventDetail = false;
  return {
    snapshotJson: () => latest.json,
    snapshotBytes: () => (latestBytes ??= Buffer.from(latest.json)),
    snapshotGzip: () => latest.gzip,
    onSnapshot: (listener) => listeners.push(listener),
    async reset() {
      latest = await send('reset', {});
      latestBytes = null;
    },
    testRule: (input) => send('test-rule', { input }),
    async setRules(rules, orphans = [], lead = false) {
      if (lead) evaluating = true;
      eventDetail = (await send('set-rules', { rules, orphans, lead })).eventDetail;
    },
    // Posted on a change only: the data plane may say the view's state every second.
    setEvaluating(value) {
      if (value === evaluating) return;
      evaluating = value;
      post('set-evaluating', { evaluating: value });
    },
    setViewComplete(complete) {
      if (complete === viewComplete) return;
      viewComplete = complete;
      post('set-view-complete', { complete });
    },
    async putRules(ids, rules) {
      eventDetail = (await send('put-rules', { ids, rules })).eventDetail;
    },
    eventDetail: () => eventDetail,
    ruleStatus: (ruleId) => send('rule-status', { ruleId }),
    evaluationStats: (last) => send('evaluation-stats', { last }),
    history: (minutes) => send('history', { minutes }),
    selfMetrics: () => send('self-metrics', {}),
    onAlert: (listener) => alertListeners.push(listener),
    onRestart: (listener) => restartListeners.push(listener),
    onWatching: (listener) => watchingListeners.push(listener),
    async seedLastEvents(newest) {
      await send('seed-last-events', { newest });
    },
    onAnomalyBackfill: (listener) => backfillListeners.push(listener),
    async seedAnomaly(answer) {
      await send('seed-anomaly', { answer });
    },
    async clusterView(view) {
      lastView = view;
      await send('cluster-view', { view });
    },
    async stop() {
      stopping = true;
      if (restartTimer !== null) timers.clearTimeout(restartTimer);
      restartTimer = null;
      const target = worker;
      if (target === null) return;
      await send('stop', {}).catch(() => undefined);
      await target.terminate();
    },
  };
}
