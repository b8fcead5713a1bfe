/**
 * @module GET /metrics: Vigil's own metrics in the Prometheus text format (docs/prometheus.md),
 * for a key of scope `read` or the scrape token (METRICS_SCRAPE_TOKEN). Not to be confused with
 * GET /api/v1/metrics, the spec's JSON snapshot of the events.
 */
import { Type } from '@sinclair/typebox';
import { ErrorSchema } from '../../schemas/event-responses.ts';
import type { Route } from '../route-types.ts';
import { scrapeTokenCheck } from '../scrape-token.ts';

export interface PrometheusDeps {
  readonly selfMetrics: { readonly contentType: string; text(): Promise<string> };
  /** METRICS_SCRAPE_TOKEN; absent: only keys are accepted. */
  readonly scrapeToken?: string | undefined;
}

export const prometheusRoutes = (deps: PrometheusDeps): Route[] => [
  {
    method: 'GET',
    path: '/metrics',
    scope: 'read',
    body: 'none',
    acceptsToken: scrapeTokenCheck(deps.scrapeToken),
    doc: {
      operationId: 'getPrometheusMetrics',
      summary:
        "Vigil's own metrics for Prometheus (text format 0.0.4); a `read` key or " +
        '`Authorization: Bearer <METRICS_SCRAPE_TOKEN>`',
      mediaType: 'text/plain; version=0.0.4',
      responses: {
        200: Type.String({ description: 'docs/prometheus.md lists every metric' }),
        500: ErrorSchema,
      },
    },
    handle: async () => ({
      status: 200,
      text: { contentType: deps.selfMetrics.contentType, body: await deps.selfMetrics.text() },
    }),
  },
];
