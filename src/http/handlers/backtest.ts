/**
 * @module POST /api/v1/rules/backtest (docs/backtest.md): a rule (a draft, or a stored one by id)
 * replayed over the stored events of up to seven days through the live evaluator's code, on a
 * thread of its own (actors/backtest-runner.ts). `read` scope; bounded per key and in all
 * (BACKTEST_MAX_*, with a slot kept for admin keys).
 */
import type { BacktestRunner } from '../../actors/backtest-runner.ts';
import type { StoragePool } from '../../actors/storage-pool.ts';
import type { MetricsLimits } from '../../domain/metrics/metrics-limits.ts';
import { NO_ALERT_HISTORY, type ActiveRule, type RuleFields } from '../../domain/rules/rule.ts';
import { validationError } from '../../errors.ts';
import { BacktestBody, checkBacktestBody } from '../../schemas/backtest.ts';
import { BacktestResultSchema } from '../../schemas/backtest-responses.ts';
import { ErrorSchema } from '../../schemas/event-responses.ts';
import { inSlot, type ReadSlots } from '../read-slots.ts';
import type { Reply } from '../reply.ts';
import type { Request, Route } from '../route-types.ts';
import { loadRule } from './rules.ts';

export interface BacktestDeps {
  readonly pool: StoragePool;
  readonly backtests: BacktestRunner;
  /** BACKTEST_MAX_RUNNING and BACKTEST_MAX_PER_KEY, with a slot kept for admin keys. */
  readonly backtestSlots: ReadSlots;
  /** BACKTEST_TIME_BUDGET_MS. */
  readonly backtestBudgetMs: number;
  /** RULE_EVALUATION_MS: the replay ticks as often as the live evaluator. */
  readonly evaluationMs: number;
  readonly metricsLimits: MetricsLimits;
}

/** A rule as the evaluator runs it when it starts with no history (no incident, nothing sent). */
const asActive = (id: number, version: number, rule: RuleFields): ActiveRule => ({
  id,
  name: rule.name,
  version,
  ruleType: rule.ruleType,
  ruleConfig: rule.ruleConfig,
  severity: rule.severity,
  priority: rule.priority,
  suppressionWindowMinutes: rule.suppressionWindowMinutes,
  maxAlertsPerHour: rule.maxAlertsPerHour,
  notificationChannels: rule.notificationChannels,
  notificationConfig: rule.notificationConfig,
  ...NO_ALERT_HISTORY,
});

async function backtest(deps: BacktestDeps, req: Request): Promise<Reply> {
  const checked = checkBacktestBody(req.body, req.receivedAt);
  if (!checked.ok) throw validationError(checked.errors);
  const { rule: draft, ruleId, from, to } = checked.value;
  const stored = ruleId === null ? null : await loadRule(deps.pool, ruleId); // 404 if unknown
  // An unsaved draft has no id: only silences of any rule (rule_id NULL) can cover it.
  let rule: ActiveRule;
  if (draft !== null) rule = asActive(stored?.id ?? 0, stored?.version ?? 0, draft);
  else if (stored !== null) rule = asActive(stored.id, stored.version, stored);
  else throw validationError({ rule: 'give a rule body or a ruleId' });
  const job = {
    rule,
    from,
    to,
    evaluationMs: deps.evaluationMs,
    budgetMs: deps.backtestBudgetMs,
    limits: deps.metricsLimits,
  };
  // The thread is ended (terminated past its budget) by the time the answer settles.
  const result = await inSlot(deps.backtestSlots, req.principal, async (release) => {
    try {
      return await deps.backtests.run(job);
    } finally {
      release();
    }
  });
  return { status: 200, body: result };
}

export const backtestRoutes = (deps: BacktestDeps): Route[] => [
  {
    method: 'POST',
    path: '/api/v1/rules/backtest',
    scope: 'read',
    body: 'json',
    doc: {
      summary:
        'Replay a rule over up to 7 days of stored events through the live evaluator: transitions, notifications, counts, chart',
      body: BacktestBody,
      responses: {
        200: BacktestResultSchema,
        400: ErrorSchema,
        404: ErrorSchema,
        429: ErrorSchema,
        503: ErrorSchema,
      },
    },
    handle: (req) => backtest(deps, req),
  },
];
