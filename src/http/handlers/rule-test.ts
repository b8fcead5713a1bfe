/**
 * @module Rule testing (spec 4.3): an unsaved or a stored rule, validated, compiled and simulated
 * by the metrics actor against the live metrics with the evaluator's own code. Nothing is stored.
 */
import type { MetricsActor } from '../../actors/metrics-actor-client.ts';
import type { ReadsPool } from '../../actors/reads-pool.ts';
import type { StoragePool } from '../../actors/storage-pool.ts';
import type { Principal } from '../../auth/principal.ts';
import {
  missingContactPoints,
  withContactPointWarnings,
} from '../../domain/contact-points/channel-warnings.ts';
import type { RuleTestInput, RuleTestResult } from '../../domain/rules/rule-test.ts';
import type { PatternConfig } from '../../domain/rules/kinds/pattern/pattern-config.ts';
import { withPatternReplay } from '../../domain/rules/kinds/pattern/pattern-replay.ts';
import { kindOf } from '../../domain/rules/kinds/registry.ts';
import { validateRuleConfig } from '../../domain/rules/rule-config-validation.ts';
import { validationError } from '../../errors.ts';
import type { ContactPointLookup } from '../../notify/deliver.ts';
import { ErrorSchema } from '../../schemas/event-responses.ts';
import { checkRuleBody, RuleTestBody } from '../../schemas/rule.ts';
import type { ReadSlots } from '../read-slots.ts';
import type { Reply } from '../reply.ts';
import type { Request, Route } from '../route-types.ts';
import { loadRule, ruleIdOf } from './rules.ts';
import { RuleTestResultSchema } from '../../schemas/rule-test-responses.ts';

export interface RuleTestDeps {
  readonly pool: StoragePool;
  /** Where replays run: threads, connections and a queue apart from ingest's. */
  readonly replays: ReadsPool;
  /** RULE_TEST_MAX_RUNNING and RULE_TEST_MAX_PER_KEY: replays at once. */
  readonly ruleTestSlots: ReadSlots;
  readonly metrics: MetricsActor;
  /** Where the rule's channel entries would deliver: an entry without one is a warning. */
  readonly contactPoints: ContactPointLookup;
}

/**
 * The actor's result, plus the channel entries no contact point answers (front thread only). A
 * PATTERN rule takes its replay slot first (429/503 past RULE_TEST_MAX_*), before any work is
 * spent on it; the slot is given back when the replay has really ended, or at once if none ran.
 */
async function tested(
  deps: RuleTestDeps,
  rule: RuleTestInput,
  principal: Principal | null,
): Promise<Reply> {
  const release = kindOf(rule.ruleType).ruleTest.replaysEvents
    ? deps.ruleTestSlots.take(principal)
    : () => {};
  const replay = { started: false, settled: release };
  try {
    const result = await withReplay(deps, rule, replay, await deps.metrics.testRule(rule));
    const missing = missingContactPoints(rule.notificationChannels, (ref) =>
      deps.contactPoints.resolve(ref),
    );
    return { status: 200, body: withContactPointWarnings(result, missing) };
  } finally {
    if (!replay.started) release();
  }
}

/**
 * A PATTERN rule that compiled: the last hour of stored events replayed through its matcher (on
 * the reads pool, apart from ingest), for the simulation and the partitions it would have held.
 */
async function withReplay(
  deps: RuleTestDeps,
  rule: RuleTestInput,
  slot: { started: boolean; readonly settled: () => void },
  result: RuleTestResult,
): Promise<RuleTestResult> {
  if (!kindOf(rule.ruleType).ruleTest.replaysEvents || !result.success) return result;
  const checked = validateRuleConfig(rule.ruleType, rule.ruleConfig);
  if (!checked.ok) return result;
  const config = checked.config as PatternConfig;
  slot.started = true;
  const replay = await deps.replays.run('replayPattern', { config, now: Date.now() }, slot.settled);
  if (!replay.ok)
    return {
      ...result,
      message: `${result.message} The replay of the last hour failed: ${replay.message}.`,
    };
  return withPatternReplay(result, config, replay.value);
}

async function testUnsaved(deps: RuleTestDeps, req: Request): Promise<Reply> {
  const checked = checkRuleBody('test', req.body);
  if (!checked.ok) throw validationError(checked.errors);
  return tested(deps, checked.value, req.principal);
}

async function testStored(deps: RuleTestDeps, req: Request): Promise<Reply> {
  return tested(deps, await loadRule(deps.pool, ruleIdOf(req)), req.principal);
}

export const ruleTestRoutes = (deps: RuleTestDeps): Route[] => [
  {
    method: 'POST',
    path: '/api/v1/rules/test',
    scope: 'read',
    body: 'json',
    doc: {
      summary: 'Test an unsaved rule against the live metrics (a bad config is 200 success:false)',
      body: RuleTestBody,
      responses: {
        200: RuleTestResultSchema,
        400: ErrorSchema,
        429: ErrorSchema,
        503: ErrorSchema,
      },
    },
    handle: (req) => testUnsaved(deps, req),
  },
  {
    method: 'POST',
    path: '/api/v1/rules/test/:id',
    scope: 'read',
    body: 'none',
    doc: {
      summary: 'Test a stored rule; the rule is not modified',
      responses: {
        200: RuleTestResultSchema,
        400: ErrorSchema,
        404: ErrorSchema,
        429: ErrorSchema,
        503: ErrorSchema,
      },
    },
    handle: (req) => testStored(deps, req),
  },
];
