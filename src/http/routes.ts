/**
 * @module The route table: every endpoint of the service, assembled from the handler modules, plus
 * the OpenAPI document generated from it.
 */
import { Type } from '@sinclair/typebox';
import { stringify } from 'yaml';
import { alertRoutes, type AlertDeps } from './handlers/alerts.ts';
import { backtestRoutes, type BacktestDeps } from './handlers/backtest.ts';
import { contactPointRoutes, type ContactPointDeps } from './handlers/contact-points.ts';
import { eventRoutes, type EventDeps } from './handlers/events.ts';
import { otlpRoutes, type OtlpDeps } from './handlers/otlp-logs.ts';
import { evaluationStatsRoutes } from './handlers/evaluation-stats.ts';
import { ingestStagesRoutes, type IngestStagesDeps } from './handlers/ingest-stages.ts';
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

/** RFC 9512's media type for YAML. */
const YAML_TYPE = 'application/yaml';

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
  IngestStagesDeps &
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
    ...ingestStagesRoutes(deps),
  ];
  const documentSchema = Type.Object(
    { openapi: Type.String() },
    { description: 'An OpenAPI 3.1 document (https://spec.openapis.org/oas/v3.1.0)' },
  );
  routes.push(
    {
      method: 'GET',
      path: '/api/v1/openapi.json',
      scope: 'public',
      body: 'none',
      doc: { summary: 'This OpenAPI 3.1 document', responses: { 200: documentSchema } },
      handle: () => ({ status: 200, json }),
    },
    {
      method: 'GET',
      path: '/api/v1/openapi.yaml',
      scope: 'public',
      body: 'none',
      doc: {
        summary: 'This OpenAPI 3.1 document as YAML',
        mediaType: YAML_TYPE,
        responses: { 200: documentSchema },
      },
      handle: () => ({ status: 200, text: { contentType: YAML_TYPE, body: yaml } }),
    },
  );
  // Serialised once: the routes never change while the service runs.
  const document = openApiDocument(routes);
  const json = JSON.stringify(document);
  // No anchors: tools that read the YAML should see the same tree the JSON has.
  const yaml = stringify(document, { aliasDuplicateObjects: false, lineWidth: 0 });
  return routes;
}
