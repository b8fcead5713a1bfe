/**
 * @module Rule testing (spec 4.3): an unsaved or a stored rule, validated, compiled and simulated
 * by the metrics actor against the live metrics with the evaluator's own code. Nothing is stored.
 */
import type { MetricsActor } from '../../actors/metrics-actor-client.ts';
import type { StoragePool } from '../../actors/storage-pool.ts';
import {
  missingContactPoints,
  withContactPointWarnings,
} from '../../domain/contact-points/channel-warnings.ts';
import type { RuleTestInput } from '../../domain/rules/rule-test.ts';
import { validationError } from '../../errors.ts';
import type { ContactPointLookup } from '../../notify/deliver.ts';
import { ErrorSchema } from '../../schemas/event-responses.ts';
import { checkRuleBody, RuleTestBody } from '../../schemas/rule.ts';
import type { Reply } from '../reply.ts';
import type { Request, Route } from '../route-types.ts';
import { loadRule, ruleIdOf } from './rules.ts';
import { Type } from '@sinclair/typebox';

export interface RuleTestDeps {
  readonly pool: StoragePool;
  readonly metrics: MetricsActor;
  /** Where the rule's channel entries would deliver: an entry without one is a warning. */
  readonly contactPoints: ContactPointLookup;
}

/** The actor's result, plus the channel entries no contact point answers (front thread only). */
async function tested(deps: RuleTestDeps, rule: RuleTestInput): Promise<Reply> {
  const result = await deps.metrics.testRule(rule);
  const missing = missingContactPoints(rule.notificationChannels, (ref) =>
    deps.contactPoints.resolve(ref),
  );
  return { status: 200, body: withContactPointWarnings(result, missing) };
}

async function testUnsaved(deps: RuleTestDeps, req: Request): Promise<Reply> {
  const checked = checkRuleBody('test', req.body);
  if (!checked.ok) throw validationError(checked.errors);
  return tested(deps, checked.value);
}

async function testStored(deps: RuleTestDeps, req: Request): Promise<Reply> {
  return tested(deps, await loadRule(deps.pool, ruleIdOf(req)));
}

const Result = Type.Object(
  {},
  { additionalProperties: true, description: 'Rule test result (spec 2.9)' },
);

export const ruleTestRoutes = (deps: RuleTestDeps): Route[] => [
  {
    method: 'POST',
    path: '/api/v1/rules/test',
    scope: 'read',
    body: 'json',
    doc: {
      summary: 'Test an unsaved rule against the live metrics (a bad config is 200 success:false)',
      body: RuleTestBody,
      responses: { 200: Result, 400: ErrorSchema },
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
      responses: { 200: Result, 400: ErrorSchema, 404: ErrorSchema },
    },
    handle: (req) => testStored(deps, req),
  },
];
