/**
 * @module Alert history (DESIGN 6): all alerts or one rule's, newest first, paged like events, with
 * filters.
 */
import { Type } from '@sinclair/typebox';
import type { StoragePool } from '../../actors/storage-pool.ts';
import { RULE_SEVERITIES, type RuleSeverity } from '../../domain/rules/rule-types.ts';
import { AppError, notFound, validationError } from '../../errors.ts';
import type { AlertFilter } from '../../domain/rules/alert.ts';
import { AlertSchema } from '../../schemas/alert-responses.ts';
import { ErrorSchema } from '../../schemas/event-responses.ts';
import {
  isPaging,
  PageSchema,
  PagingQuerySchema,
  parsePaging,
  type Paging,
  toPage,
} from '../../schemas/paging.ts';
import { parseInstant } from '../../schemas/timestamp.ts';
import type { Reply } from '../reply.ts';
import type { Request, Route } from '../route-types.ts';
import { MAX_RULE_ID, POSITIVE_INT, ruleIdOf } from './rules.ts';

export interface AlertDeps {
  readonly pool: StoragePool;
}

type FilterCheck =
  | { readonly ok: true; readonly filter: AlertFilter }
  | { readonly ok: false; readonly errors: Record<string, string> };

/** The filters, or every field error of the query (reported with paging's, DESIGN 7). */
function filterOf(req: Request, ruleId: number | null): FilterCheck {
  const errors: Record<string, string> = {};
  const rawRule = req.query.get('ruleId');
  if (rawRule !== null && (!POSITIVE_INT.test(rawRule) || Number(rawRule) > MAX_RULE_ID))
    errors.ruleId = 'ruleId must be a positive integer';
  const severity = req.query.get('severity');
  if (severity !== null && !(RULE_SEVERITIES as readonly string[]).includes(severity)) {
    errors.severity = `severity must be one of ${RULE_SEVERITIES.join(', ')}`;
  }
  const rawSince = req.query.get('since');
  const since = rawSince === null ? null : parseInstant(rawSince);
  if (rawSince !== null && since === null)
    errors.since = 'since must be an ISO 8601 instant with a zone';
  if (Object.keys(errors).length > 0) return { ok: false, errors };
  return {
    ok: true,
    filter: {
      ruleId: ruleId ?? (rawRule === null ? null : Number(rawRule)),
      severity: severity as RuleSeverity | null,
      since,
    },
  };
}

async function list(deps: AlertDeps, req: Request, ruleId: number | null): Promise<Reply> {
  const paging = parsePaging(req.query);
  const checked = filterOf(req, ruleId);
  if (!isPaging(paging) || !checked.ok) {
    throw validationError({
      ...(isPaging(paging) ? {} : paging),
      ...(checked.ok ? {} : checked.errors),
    });
  }
  const { filter } = checked;
  const listed = async (f: AlertFilter, p: Paging) => {
    const result = await deps.pool.run('listAlerts', { filter: f, ...p });
    if (!result.ok) throw new AppError('INTERNAL', `Failed to list alerts: ${result.message}`);
    return result.value;
  };
  if (ruleId !== null) {
    const rule = await deps.pool.run('getRule', { id: ruleId });
    const exists = rule.ok;
    if (!exists && rule.code !== 'NOT_FOUND')
      throw new AppError('INTERNAL', `Failed to list alerts: ${rule.message}`);
    const value = await listed(filter, paging);
    // A deleted rule's alerts are history and stay listed (filtered, maybe to none); a rule
    // that never existed, so has no alert at all, is a 404.
    if (!exists && value.total === 0) {
      const any = await listed({ ruleId, severity: null, since: null }, { page: 0, size: 1 });
      if (any.total === 0) throw notFound(`Rule ${ruleId} not found`);
    }
    return { status: 200, body: toPage(value.rows, value.total, paging) };
  }
  const value = await listed(filter, paging);
  return { status: 200, body: toPage(value.rows, value.total, paging) };
}

const AlertQuery = Type.Composite([
  PagingQuerySchema,
  Type.Object({
    ruleId: Type.Optional(Type.Integer({ minimum: 1 })),
    severity: Type.Optional(Type.String({ description: RULE_SEVERITIES.join(' | ') })),
    since: Type.Optional(Type.String({ format: 'date-time' })),
  }),
]);

export const alertRoutes = (deps: AlertDeps): Route[] => [
  {
    method: 'GET',
    path: '/api/v1/alerts',
    scope: 'read',
    body: 'none',
    doc: {
      summary: 'Alerts, newest first (filters ruleId, severity, since)',
      query: AlertQuery,
      responses: { 200: PageSchema(AlertSchema), 400: ErrorSchema },
    },
    handle: (req) => list(deps, req, null),
  },
  {
    method: 'GET',
    path: '/api/v1/rules/:id/alerts',
    scope: 'read',
    body: 'none',
    doc: {
      summary: "One rule's alerts, newest first",
      query: AlertQuery,
      responses: { 200: PageSchema(AlertSchema), 400: ErrorSchema, 404: ErrorSchema },
    },
    handle: (req) => list(deps, req, ruleIdOf(req)),
  },
];
