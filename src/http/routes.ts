/**
 * @module The route table: every endpoint of the service, assembled from the handler modules, plus
 * the OpenAPI document generated from it.
 */
import { Type } from '@sinclair/typebox';
import { alertRoutes, type AlertDeps } from './handlers/alerts.ts';
import { backtestRoutes, type BacktestDeps } from './handlers/backtest.ts';
import { contactPointRoutes, type ContactPointDeps } from './handlers/contact-points.ts';
import { eventRoutes, type EventDeps } from './handlers/events.ts';
import { otlpRoutes, type OtlpDeps } from './handlers/otlp-logs.ts';
import { evaluationStatsRoutes } from './handlers/evaluation-stats.ts';
import { keyRoutes, type KeyDeps } from './handlers/keys.ts';
import { metricsRoutes, type MetricsDeps } from './handlers/metrics.ts';
import { prometheusRoutes, type PrometheusDeps } from './handlers/prometheus.ts';
import { ruleTestRoutes, type RuleTestDeps } from './handlers/rule-test.ts';
import { ruleStatusRoutes } from './handlers/rule-status.ts';
import { ruleRoutes, type RuleDeps } from './handlers/rules.ts';
import { silenceRoutes, type SilenceDeps } from './handlers/silences.ts';
import { systemRoutes, type SystemDeps } from './handlers/system.ts';
import { openApiDocument } from './openapi.ts';
import type { Route } from './route-types.ts';

export type RouteDeps = EventDeps &
  SystemDeps &
  MetricsDeps &
  RuleDeps &
  RuleTestDeps &
  ContactPointDeps &
  KeyDeps &
  AlertDeps &
  BacktestDeps &
  SilenceDeps &
  PrometheusDeps &
  OtlpDeps;

export function buildRoutes(deps: RouteDeps): Route[] {
  const routes: Route[] = [
    ...systemRoutes(deps),
    ...eventRoutes(deps),
    ...otlpRoutes(deps),
    ...metricsRoutes(deps),
    ...ruleRoutes(deps),
    ...ruleTestRoutes(deps),
    ...backtestRoutes(deps),
    ...alertRoutes(deps),
    ...silenceRoutes(deps),
    ...evaluationStatsRoutes(deps),
    ...ruleStatusRoutes(deps),
    ...keyRoutes(deps),
    ...contactPointRoutes(deps),
    ...prometheusRoutes(deps),
  ];
  const openApi: Route = {
    method: 'GET',
    path: '/api/v1/openapi.json',
    scope: 'public',
    body: 'none',
    doc: {
      summary: 'This OpenAPI 3.1 document',
      responses: { 200: Type.Object({ openapi: Type.String() }) },
    },
    handle: () => ({ status: 200, body: document }),
  };
  routes.push(openApi);
  const document = openApiDocument(routes);
  return routes;
}
