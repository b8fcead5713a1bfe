/**
 * @module Alerts (DESIGN 6, issue 18): incidents, all or one rule's, newest first, paged like
 * events, with filters; one alert by id; acknowledging one (published on /topic/alerts).
 */
import { Type } from '@sinclair/typebox';
import type { StoragePool } from '../../actors/storage-pool.ts';
import { RULE_SEVERITIES, type RuleSeverity } from '../../domain/rules/rule-types.ts';
import { AppError, notFound, validationError } from '../../errors.ts';
import {
  ALERT_STATES,
  type AlertFilter,
  type AlertRecord,
  type AlertState,
} from '../../domain/rules/alerts/alert.ts';
import { AcknowledgeBody, checkAcknowledgeBody } from '../../schemas/alert-acknowledge.ts';
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
  /** Publishes a new acknowledgement on /topic/alerts. */
  readonly onAcknowledged: (alert: AlertRecord) => void;
}

/** Alert ids are `bigserial`: digits only, within the integers JSON carries exactly. */
function alertIdOf(req: Request): number {
  const raw = req.params.id ?? '';
  if (!POSITIVE_INT.test(raw)) throw validationError({ id: 'id must be a positive integer' });
  const id = Number(raw);
  if (!Number.isSafeInteger(id)) throw notFound('Alert not found');
  return id;
}

/** An instant query parameter (`from`, `to`, `since`), or null; a bad one is an error by name. */
function instantParam(req: Request, name: string, errors: Record<string, string>): number | null {
  const raw = req.query.get(name);
  if (raw === null) return null;
  const at = parseInstant(raw);
  if (at === null) errors[name] = `${name} must be an ISO 8601 instant with a zone`;
  return at;
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
  const state = req.query.get('state');
  if (state !== null && !(ALERT_STATES as readonly string[]).includes(state)) {
    errors.state = `state must be one of ${ALERT_STATES.join(', ')}`;
  }
  // `since` is the name of before the lifecycle; `from` says the same with `to` beside it.
  const since = instantParam(req, 'since', errors);
  const from = instantParam(req, 'from', errors);
  const until = instantParam(req, 'to', errors);
  if (since !== null && from !== null) errors.from = 'from and since are the same filter: give one';
  if (Object.keys(errors).length > 0) return { ok: false, errors };
  return {
    ok: true,
    filter: {
      ruleId: ruleId ?? (rawRule === null ? null : Number(rawRule)),
      severity: severity as RuleSeverity | null,
      state: state as AlertState | null,
      since: from ?? since,
      until,
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
      const any = await listed(
        { ruleId, severity: null, state: null, since: null, until: null },
        { page: 0, size: 1 },
      );
      if (any.total === 0) throw notFound(`Rule ${ruleId} not found`);
    }
    return { status: 200, body: toPage(value.rows, value.total, paging) };
  }
  const value = await listed(filter, paging);
  return { status: 200, body: toPage(value.rows, value.total, paging) };
}

async function getOne(deps: AlertDeps, req: Request): Promise<Reply> {
  const id = alertIdOf(req);
  const result = await deps.pool.run('getAlert', { id });
  if (result.ok) return { status: 200, body: result.value };
  if (result.code === 'NOT_FOUND') throw notFound(`Alert ${id} not found`);
  throw new AppError('INTERNAL', `Failed to read the alert: ${result.message}`);
}

/** The first acknowledgement stays; a later one answers the alert as it is (200, no message). */
async function acknowledge(deps: AlertDeps, req: Request): Promise<Reply> {
  const id = alertIdOf(req);
  const checked = checkAcknowledgeBody(req.body);
  if (!checked.ok) throw validationError(checked.errors);
  const ack = { by: checked.value.by, comment: checked.value.comment ?? null, at: Date.now() };
  const result = await deps.pool.run('acknowledgeAlert', { id, ack });
  if (!result.ok) {
    if (result.code === 'NOT_FOUND') throw notFound(`Alert ${id} not found`);
    throw new AppError('INTERNAL', `Failed to acknowledge the alert: ${result.message}`);
  }
  if (result.value.changed) deps.onAcknowledged(result.value.alert);
  return { status: 200, body: result.value.alert };
}

const AlertQuery = Type.Composite([
  PagingQuerySchema,
  Type.Object({
    ruleId: Type.Optional(Type.Integer({ minimum: 1 })),
    severity: Type.Optional(Type.String({ description: RULE_SEVERITIES.join(' | ') })),
    state: Type.Optional(Type.String({ description: ALERT_STATES.join(' | ') })),
    from: Type.Optional(
      Type.String({ format: 'date-time', description: 'Fired at or after this instant' }),
    ),
    to: Type.Optional(
      Type.String({ format: 'date-time', description: 'Fired before this instant' }),
    ),
    since: Type.Optional(Type.String({ format: 'date-time', description: 'Same as from' })),
  }),
]);

export const alertRoutes = (deps: AlertDeps): Route[] => [
  {
    method: 'GET',
    path: '/api/v1/alerts',
    scope: 'read',
    body: 'none',
    doc: {
      summary: 'Alerts (incidents), newest first (filters state, ruleId, severity, from, to)',
      query: AlertQuery,
      responses: { 200: PageSchema(AlertSchema), 400: ErrorSchema },
    },
    handle: (req) => list(deps, req, null),
  },
  {
    method: 'GET',
    path: '/api/v1/alerts/:id',
    scope: 'read',
    body: 'none',
    doc: {
      summary: 'One alert',
      responses: { 200: AlertSchema, 400: ErrorSchema, 404: ErrorSchema },
    },
    handle: (req) => getOne(deps, req),
  },
  {
    method: 'POST',
    path: '/api/v1/alerts/:id/acknowledge',
    scope: 'admin',
    body: 'json',
    doc: {
      summary: 'Acknowledge an alert (the first acknowledgement stays)',
      body: AcknowledgeBody,
      responses: { 200: AlertSchema, 400: ErrorSchema, 404: ErrorSchema },
    },
    handle: (req) => acknowledge(deps, req),
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
