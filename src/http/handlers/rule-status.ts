/**
 * @module GET /api/v1/rules/{id}/status: what the evaluator holds of a rule right now: its
 * lifecycle state, and per rule type its own part (PATTERN: partitions held and evicted;
 * ANOMALY: learning and the history covered, the last band). A rule
 * that is not ACTIVE, or whose type is not evaluated, answers `evaluated: false`.
 */
import { Type } from '@sinclair/typebox';
import type { MetricsActor } from '../../actors/metrics-actor-client.ts';
import type { StoragePool } from '../../actors/storage-pool.ts';
import { RULE_STATUSES, RULE_TYPES } from '../../domain/rules/rule-types.ts';
import { ErrorSchema } from '../../schemas/event-responses.ts';
import type { Route } from '../route-types.ts';
import { loadRule, ruleIdOf } from './rules.ts';

export interface RuleStatusDeps {
  readonly pool: StoragePool;
  readonly metrics: MetricsActor;
}

const literals = (values: readonly string[]) =>
  Type.Union(values.map((value) => Type.Literal(value)));

const RuleStatusSchema = Type.Object({
  ruleId: Type.Integer(),
  ruleType: literals(RULE_TYPES),
  status: literals(RULE_STATUSES),
  evaluated: Type.Boolean({ description: 'The metrics actor evaluates the rule now (ACTIVE)' }),
  state: Type.Union([literals(['OK', 'PENDING', 'FIRING', 'LEARNING', 'DEGRADED']), Type.Null()], {
    description:
      "Lifecycle state (LEARNING: an ANOMALY rule without minHistoryMinutes of history, it cannot fire; DEGRADED: cluster mode, a rule that counts events while this instance's view of the cluster's events is incomplete, held without firing or resolving); null when not evaluated",
  }),
  reason: Type.Optional(
    Type.String({
      description:
        'PENDING only: why it waits (`pending since <ISO>`, and `suppressed until <ISO>` while the suppression window of its last incident holds it)',
    }),
  ),
  pattern: Type.Optional(
    Type.Object(
      {
        partitions: Type.Integer({ description: 'Partition keys held now' }),
        maxPartitions: Type.Integer(),
        partitionsEvicted: Type.Integer({
          description: 'Keys evicted past maxPartitions (least recently used) since loaded',
        }),
        matches: Type.Integer({ description: 'Sequences completed since loaded' }),
      },
      { description: 'PATTERN rules only' },
    ),
  ),
  anomaly: Type.Optional(
    Type.Object(
      {
        learning: Type.Boolean(),
        historyMinutes: Type.Integer({ description: 'History covered, back-filled and live' }),
        minHistoryMinutes: Type.Integer(),
        bucketsSeen: Type.Integer(),
        outsideInWindow: Type.Integer({
          description: 'Buckets of the alert window outside the band',
        }),
        windowBuckets: Type.Integer(),
        baselineBytes: Type.Integer({ description: 'Memory of the baseline (fixed per config)' }),
        backfill: literals(['pending', 'done', 'failed']),
        last: Type.Union([
          Type.Object({
            start: Type.Number({ description: "Epoch ms of the bucket's start" }),
            observed: Type.Number(),
            band: Type.Union([
              Type.Object({ expected: Type.Number(), lower: Type.Number(), upper: Type.Number() }),
              Type.Null(),
            ]),
            outside: Type.Boolean(),
          }),
          Type.Null(),
        ]),
      },
      { description: 'ANOMALY rules only' },
    ),
  ),
});

export const ruleStatusRoutes = (deps: RuleStatusDeps): Route[] => [
  {
    method: 'GET',
    path: '/api/v1/rules/:id/status',
    scope: 'read',
    body: 'none',
    doc: {
      summary:
        "A rule's runtime status in the evaluator: lifecycle state, PATTERN partitions, ANOMALY learning",
      responses: { 200: RuleStatusSchema, 400: ErrorSchema, 404: ErrorSchema },
    },
    handle: async (req) => {
      const rule = await loadRule(deps.pool, ruleIdOf(req));
      const runtime = await deps.metrics.ruleStatus(rule.id);
      return {
        status: 200,
        body: {
          ruleId: rule.id,
          ruleType: rule.ruleType,
          status: rule.status,
          evaluated: runtime !== null,
          state: runtime?.state ?? null,
          ...(runtime?.reason === undefined ? {} : { reason: runtime.reason }),
          ...(runtime?.pattern === undefined ? {} : { pattern: runtime.pattern }),
          ...(runtime?.anomaly === undefined ? {} : { anomaly: runtime.anomaly }),
        },
      };
    },
  },
];
