/**
 * @module Silences (issue 18, docs/silences.md): create (admin), list with filters and one (read),
 * end (admin). Every answer's `state` is taken at the time the request was read, the same instant
 * the storage worker used to decide.
 */
import { Type } from '@sinclair/typebox';
import type { StoragePool } from '../../actors/storage-pool.ts';
import {
  MAX_OPEN_SILENCES,
  SILENCE_STATES,
  silenceView,
  type SilenceFilter,
  type SilenceState,
} from '../../domain/silences/silence.ts';
import { AppError, notFound, validationError } from '../../errors.ts';
import { ErrorSchema } from '../../schemas/event-responses.ts';
import {
  isPaging,
  PageSchema,
  PagingQuerySchema,
  parsePaging,
  toPage,
} from '../../schemas/paging.ts';
import { checkSilenceBody, SilenceCreateBody, SilenceSchema } from '../../schemas/silence.ts';
import type { Reply } from '../reply.ts';
import type { Request, Route } from '../route-types.ts';
import { MAX_RULE_ID, POSITIVE_INT } from './rules.ts';

export interface SilenceDeps {
  readonly pool: StoragePool;
}

const failed = (message: string): AppError =>
  new AppError('INTERNAL', `Failed to process silence: ${message}`);

/** Silence ids are `bigserial`: digits only, within the integers JSON carries exactly. */
function silenceIdOf(req: Request): number {
  const raw = req.params.id ?? '';
  if (!POSITIVE_INT.test(raw)) throw validationError({ id: 'id must be a positive integer' });
  const id = Number(raw);
  if (!Number.isSafeInteger(id)) throw notFound(`Silence ${raw} not found`);
  return id;
}

async function create(deps: SilenceDeps, req: Request): Promise<Reply> {
  const checked = checkSilenceBody(req.body, req.receivedAt);
  if (!checked.ok) throw validationError(checked.errors);
  const now = req.receivedAt;
  const result = await deps.pool.run('createSilence', {
    fields: checked.fields,
    now,
    maxOpen: MAX_OPEN_SILENCES,
  });
  if (!result.ok) {
    if (result.code === 'DB_FAILURE') throw failed(result.message);
    throw new AppError(result.code, result.message);
  }
  return { status: 201, body: silenceView(result.value, now) };
}

type FilterCheck =
  | { readonly ok: true; readonly filter: SilenceFilter }
  | { readonly ok: false; readonly errors: Record<string, string> };

/** The filters, or every bad one by name (reported with paging's). */
function filterOf(req: Request): FilterCheck {
  const errors: Record<string, string> = {};
  const state = req.query.get('state');
  if (state !== null && !(SILENCE_STATES as readonly string[]).includes(state))
    errors.state = `state must be one of ${SILENCE_STATES.join(', ')}`;
  const ruleId = req.query.get('ruleId');
  if (ruleId !== null && (!POSITIVE_INT.test(ruleId) || Number(ruleId) > MAX_RULE_ID))
    errors.ruleId = 'ruleId must be a positive integer';
  if (Object.keys(errors).length > 0) return { ok: false, errors };
  return {
    ok: true,
    filter: {
      state: state as SilenceState | null,
      ruleId: ruleId === null ? null : Number(ruleId),
    },
  };
}

async function list(deps: SilenceDeps, req: Request): Promise<Reply> {
  const paging = parsePaging(req.query);
  const checked = filterOf(req);
  if (!isPaging(paging) || !checked.ok) {
    throw validationError({
      ...(isPaging(paging) ? {} : paging),
      ...(checked.ok ? {} : checked.errors),
    });
  }
  const now = req.receivedAt;
  const result = await deps.pool.run('listSilences', { filter: checked.filter, now, ...paging });
  if (!result.ok) throw failed(result.message);
  const rows = result.value.rows.map((silence) => silenceView(silence, now));
  return { status: 200, body: toPage(rows, result.value.total, paging) };
}

async function getOne(deps: SilenceDeps, req: Request): Promise<Reply> {
  const result = await deps.pool.run('getSilence', { id: silenceIdOf(req) });
  if (result.ok) return { status: 200, body: silenceView(result.value, req.receivedAt) };
  if (result.code === 'NOT_FOUND') throw notFound(result.message);
  throw failed(result.message);
}

async function end(deps: SilenceDeps, req: Request): Promise<Reply> {
  const result = await deps.pool.run('endSilence', { id: silenceIdOf(req), now: req.receivedAt });
  if (result.ok) return { status: 204 };
  if (result.code === 'NOT_FOUND') throw notFound(result.message);
  throw failed(result.message);
}

const SilenceQuery = Type.Composite([
  PagingQuerySchema,
  Type.Object({
    state: Type.Optional(Type.String({ description: SILENCE_STATES.join(' | ') })),
    ruleId: Type.Optional(Type.Integer({ minimum: 1, description: 'Silences of this rule only' })),
  }),
]);
const errors = { 400: ErrorSchema, 500: ErrorSchema };

export const silenceRoutes = (deps: SilenceDeps): Route[] => [
  {
    method: 'POST',
    path: '/api/v1/silences',
    scope: 'admin',
    body: 'json',
    doc: {
      summary: 'Create a silence: the incidents it matches are recorded silenced, not notified',
      body: SilenceCreateBody,
      responses: { 201: SilenceSchema, ...errors, 422: ErrorSchema },
    },
    handle: (req) => create(deps, req),
  },
  {
    method: 'GET',
    path: '/api/v1/silences',
    scope: 'read',
    body: 'none',
    doc: {
      summary: 'Silences, newest first (filters state, ruleId)',
      query: SilenceQuery,
      responses: { 200: PageSchema(SilenceSchema), ...errors },
    },
    handle: (req) => list(deps, req),
  },
  {
    method: 'GET',
    path: '/api/v1/silences/:id',
    scope: 'read',
    body: 'none',
    doc: {
      summary: 'One silence',
      responses: { 200: SilenceSchema, ...errors, 404: ErrorSchema },
    },
    handle: (req) => getOne(deps, req),
  },
  {
    method: 'DELETE',
    path: '/api/v1/silences/:id',
    scope: 'admin',
    body: 'none',
    doc: {
      summary:
        'End a silence: an active one now (it stays listed, expired), a pending one is removed',
      responses: { 204: 'Ended or removed', ...errors, 404: ErrorSchema },
    },
    handle: (req) => end(deps, req),
  },
];
