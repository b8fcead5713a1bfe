/**
 * @module The backtest loop (docs/backtest.md): stored events, in receipt order, in chunks, fed to
 * a Replay between evaluation ticks one RULE_EVALUATION_MS apart, as the metrics actor would have
 * recorded and evaluated them; the transitions go to the ledger, points to the chart. Bounded: a
 * time budget (checked between chunks and every few thousand ticks) and MAX_BACKTEST_TRANSITIONS;
 * past either, it answers what was done with `truncated` and the reason. No I/O of its own: the
 * events come from `chunks`, the time spent from `elapsed`.
 */
import { kindOf } from '../kinds/registry.ts';
import type { MetricEvent } from '../../event.ts';
import type { MetricsLimits } from '../../metrics/metrics-limits.ts';
import type { SilenceRecord } from '../../silences/silence.ts';
import type { ActiveRule } from '../rule.ts';
import { MAX_BACKTEST_TRANSITIONS, type BacktestResult } from './backtest-result.ts';
import { ChartRecorder, chartStepMs } from './chart-series.ts';
import { NotificationLedger } from './notification-ledger.ts';
import { Replay, warmUpMs } from './replay.ts';
import type { BackfillRequest } from '../kinds/anomaly/anomaly-rules.ts';

export interface BacktestJob {
  readonly rule: ActiveRule;
  readonly from: number;
  readonly to: number;
  /** The live evaluator's period (RULE_EVALUATION_MS): one tick each. */
  readonly evaluationMs: number;
  readonly budgetMs: number;
  readonly limits: Partial<MetricsLimits>;
}

export interface BacktestInputs {
  /**
   * The stored events received in [from, to), oldest first (then by id), in chunks; `detail`:
   * with what PATTERN rules read (id, session, tags, metadata), as the live actor gets them.
   */
  readonly chunks: (
    from: number,
    to: number,
    detail: boolean,
  ) => AsyncIterable<readonly MetricEvent[]>;
  /** The stored silences overlapping the range. */
  readonly silences: readonly SilenceRecord[];
  /** Ms spent since the backtest began (its budget counts from there). */
  readonly elapsed: () => number;
  /**
   * ANOMALY: the bucket values of the stored history before the replay (the live back-fill's own
   * query); null when it cannot be read (the series then learns from the replayed events only).
   */
  readonly anomalyHistory?: (request: BackfillRequest) => Promise<readonly number[] | null>;
}

/** Ticks between two looks at the budget: a look is a clock read, a tick about a microsecond. */
const TICKS_PER_CHECK = 4096;

const iso = (ms: number): string => new Date(ms).toISOString();

export async function runBacktest(
  job: BacktestJob,
  inputs: BacktestInputs,
): Promise<BacktestResult> {
  const { rule, from, to, evaluationMs } = job;
  const startAt = from - warmUpMs(rule);
  const replay = new Replay(rule, startAt, from, job.limits);
  // ANOMALY: its baseline from the stored history before the replay, as the live rule is seeded.
  for (const request of replay.backfillRequests()) {
    const values = (await inputs.anomalyHistory?.(request)) ?? null;
    replay.seedAnomaly({ ruleId: request.ruleId, generation: request.generation, values });
  }
  const ledger = new NotificationLedger(rule, inputs.silences);
  const chart = new ChartRecorder(rule.ruleType, rule.ruleConfig, from, chartStepMs(to - from));
  let next = from;
  let ticks = 0;
  let events = 0;
  let stop: string | null = null;
  const batch: MetricEvent[] = [];

  const flush = (): void => {
    if (batch.length === 0) return;
    replay.feed(batch, (batch.at(-1) as MetricEvent).receivedAt);
    events += batch.length;
    batch.length = 0;
  };
  const overBudget = (): boolean => {
    if (inputs.elapsed() < job.budgetMs) return false;
    stop = `time budget of ${job.budgetMs} ms spent (BACKTEST_TIME_BUDGET_MS)`;
    return true;
  };
  /** Ticks every evaluation due before `until`; false once the backtest must stop. */
  const tickUntil = (until: number): boolean => {
    while (next < until && next < to) {
      flush();
      const { resolved, digests, fired } = replay.tick(next);
      for (const r of resolved) ledger.resolved(r);
      for (const d of digests) ledger.digest(d);
      for (const f of fired) ledger.fired(f);
      if (chart.due(next)) chart.add(next, replay.values(), replay.learning());
      next += evaluationMs;
      ticks++;
      if (ledger.transitions.length >= MAX_BACKTEST_TRANSITIONS) {
        stop = `more than ${MAX_BACKTEST_TRANSITIONS} transitions: narrow the range`;
        return false;
      }
      if (ticks % TICKS_PER_CHECK === 0 && overBudget()) return false;
    }
    return true;
  };

  reading: for await (const chunk of inputs.chunks(
    startAt,
    to,
    kindOf(rule.ruleType).backtest.readsEvents,
  )) {
    for (const event of chunk) {
      // An event is recorded before the first tick at or after its receipt, as live.
      if (!tickUntil(event.receivedAt)) break reading;
      batch.push(event);
    }
    flush(); // a chunk at most in memory
    if (overBudget()) break;
  }
  if (stop === null) tickUntil(to);

  const last = next - evaluationMs;
  return {
    from: iso(from),
    to: iso(to),
    evaluatedUntil: ticks === 0 ? null : iso(last),
    evaluationMs,
    truncated: stop !== null,
    truncatedReason: stop,
    firingAtEnd: ledger.firing,
    transitions: ledger.transitions,
    notifications: ledger.notifications,
    counts: ledger.totals(events, ticks),
    chart: chart.chart(),
  };
}
