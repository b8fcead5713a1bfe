/**
 * @module Rule endpoints (spec 4.2, DESIGN 6): CRUD, lifecycle, queries, DRL regeneration. Bodies
 * go through the one rule validator; storage answers failures as data, mapped to 404 / 409 here.
 */
import { Type } from '@sinclair/typebox';
import type { StoragePool } from '../../actors/storage-pool.ts';
import { mergeRuleUpdate, ruleFieldsOf } from '../../domain/rules/rule-fields.ts';
import {
  RULE_STATUSES,
  RULE_TYPES,
  type RuleStatus,
  type RuleType,
} from '../../domain/rules/rule-types.ts';
import type { RuleRecord } from '../../domain/rules/rule.ts';
import { AppError, notFound, validationError } from '../../errors.ts';
import type { StorageOutput } from '../../protocol/storage/index.ts';
import { ErrorSchema } from '../../schemas/event-responses.ts';
import { checkRuleBody } from '../../schemas/rule.ts';
import { RuleCreateDoc, RuleResponse, RuleUpdateDoc } from '../../schemas/rule-docs.ts';
import type { Reply } from '../reply.ts';
import { routesUnder } from '../route-builder.ts';
import type { Request, Route } from '../route-types.ts';

export interface RuleDeps {
  readonly pool: StoragePool;
  /** MAX_RULES: a create past it is refused (422 RULE_LIMIT). */
  readonly maxRules: number;
  /**
   * Called after every change to rule `id` (create, update, status, delete); resolves once the
   * metrics actor evaluates the new state, so a rule disabled by a 200 never fires afterwards.
   */
  readonly onRuleChanged: (id: number) => Promise<void>;
}

export const MAX_TOP_TRIGGERED = 100;
const DEFAULT_TOP_TRIGGERED = 10;
/** Digits only, no sign, no leading zero: `1`, `42`, `99999999999`. */
export const POSITIVE_INT = /^[1-9]\d*$/;
/** Rule ids are PostgreSQL `serial` (int4): a larger positive integer is an id no rule has. */
export const MAX_RULE_ID = 2147483647;

/**
 * The path's id of a `serial` row: 400 when not a positive integer, 404 (`notFoundMessage`) when
 * beyond any id.
 */
export function serialIdOf(req: Request, notFoundMessage: string): number {
  const raw = req.params.id ?? '';
  if (!POSITIVE_INT.test(raw)) throw validationError({ id: 'id must be a positive integer' });
  const id = Number(raw);
  if (id > MAX_RULE_ID) throw notFound(notFoundMessage);
  return id;
}

/** The path's rule id: 400 when not a positive integer, 404 when beyond any rule's id. */
export const ruleIdOf = (req: Request): number => serialIdOf(req, 'Rule not found');

const failedWith = (code: string, message: string): AppError => {
  switch (code) {
    case 'NOT_FOUND':
      return notFound(message);
    case 'NAME_TAKEN':
    case 'VERSION_CHANGED':
      return new AppError('CONFLICT', message);
    case 'RULE_LIMIT':
      return new AppError('RULE_LIMIT', message);
    default:
      return new AppError('INTERNAL', `Failed to process rule: ${message}`);
  }
};

/** The value of a storage result, or the error its failure means. */
function valueOf<T>(
  result: { ok: true; value: T } | { ok: false; code: string; message: string },
): T {
  if (result.ok) return result.value;
  throw failedWith(result.code, result.message);
}

export async function loadRule(pool: StoragePool, id: number): Promise<RuleRecord> {
  return valueOf(await pool.run('getRule', { id }));
}

const ok = (body: unknown): Reply => ({ status: 200, body });

async function create(deps: RuleDeps, req: Request): Promise<Reply> {
  const checked = checkRuleBody('create', req.body);
  if (!checked.ok) throw validationError(checked.errors);
  const rule = valueOf(
    await deps.pool.run('createRule', { rule: checked.value, maxRules: deps.maxRules }),
  );
  await deps.onRuleChanged(rule.id);
  return { status: 201, body: rule };
}

async function update(deps: RuleDeps, req: Request): Promise<Reply> {
  const id = ruleIdOf(req);
  const current = await loadRule(deps.pool, id);
  const checked = checkRuleBody('update', req.body, current);
  if (!checked.ok) throw validationError(checked.errors);
  const { next, changed } = mergeRuleUpdate(ruleFieldsOf(current), checked.value);
  if (!changed) return ok(current);
  const rule = valueOf(
    await deps.pool.run('updateRule', { id, expectedVersion: current.version, rule: next }),
  );
  await deps.onRuleChanged(id);
  return ok(rule);
}

async function transition(deps: RuleDeps, req: Request, status: RuleStatus): Promise<Reply> {
  const rule = valueOf(await deps.pool.run('setRuleStatus', { id: ruleIdOf(req), status }));
  await deps.onRuleChanged(rule.id);
  return ok(rule);
}

async function remove(deps: RuleDeps, req: Request): Promise<Reply> {
  const id = ruleIdOf(req);
  valueOf(await deps.pool.run('deleteRule', { id }));
  await deps.onRuleChanged(id);
  return { status: 204 };
}

type ListResult = StorageOutput<'listRules'>;
const list = async (result: Promise<ListResult>): Promise<Reply> => ok(valueOf(await result));

function enumParam<T extends string>(req: Request, name: string, values: readonly T[]): T {
  const raw = req.params[name] ?? '';
  if (!(values as readonly string[]).includes(raw)) {
    throw validationError({ [name]: `${name} must be one of ${values.join(', ')}` });
  }
  return raw as T;
}

function topLimit(req: Request): number {
  const raw = req.query.get('limit');
  if (raw === null) return DEFAULT_TOP_TRIGGERED;
  if (!POSITIVE_INT.test(raw)) throw validationError({ limit: 'limit must be a positive integer' });
  return Math.min(Number(raw), MAX_TOP_TRIGGERED);
}

function searchTerm(req: Request): string {
  const q = req.query.get('q');
  if (q === null) throw validationError({ q: 'q is required' });
  // PostgreSQL text cannot hold U+0000 (the query would fail): no rule can contain it either.
  if (q.includes('\u0000')) {
    throw validationError({ q: 'q must not contain the NUL character (U+0000)' });
  }
  return q;
}

async function regenerate(deps: RuleDeps): Promise<Reply> {
  const rulesUpdated = valueOf(await deps.pool.run('regenerateDrls', {}));
  return ok({ message: `Regenerated the DRL of ${rulesUpdated} rules`, rulesUpdated });
}

const RuleSchema = RuleResponse;
const Rules = Type.Array(RuleSchema);
const errors = { 400: ErrorSchema, 500: ErrorSchema };
const withId = { ...errors, 404: ErrorSchema };

export const ruleRoutes = (deps: RuleDeps): Route[] => {
  const { pool } = deps;
  // Reading rules needs `read`; every change to them (status transitions included) `admin`.
  const route = routesUnder('/api/v1/rules', (method) => (method === 'GET' ? 'read' : 'admin'));
  const status = (s: RuleStatus) => (req: Request) => transition(deps, req, s);
  return [
    route(
      'POST',
      '',
      'Create a rule (status ACTIVE, version 1)',
      { 201: RuleSchema, ...errors, 409: ErrorSchema, 422: ErrorSchema },
      (req) => create(deps, req),
      RuleCreateDoc,
    ),
    route('GET', '', 'Every rule, by id', { 200: Rules, ...errors }, () =>
      list(pool.run('listRules', { filter: {} })),
    ),
    route('GET', '/active', 'ACTIVE rules', { 200: Rules, ...errors }, () =>
      list(pool.run('listRules', { filter: { status: 'ACTIVE' } })),
    ),
    route(
      'GET',
      '/statistics',
      'Counts by status and type',
      { 200: Type.Object({ totalRules: Type.Integer(), activeRules: Type.Integer() }), ...errors },
      async () => ok(valueOf(await pool.run('ruleStatistics', {}))),
    ),
    route(
      'GET',
      '/top-triggered',
      `Rules by triggerCount, most first (?limit, default ${DEFAULT_TOP_TRIGGERED}, at most ${MAX_TOP_TRIGGERED})`,
      { 200: Rules, ...errors },
      (req) => list(pool.run('topTriggeredRules', { limit: topLimit(req) })),
    ),
    route(
      'GET',
      '/search',
      'Rules whose name or description contains q (case-insensitive, literal)',
      { 200: Rules, ...errors },
      (req) => list(pool.run('listRules', { filter: { search: searchTerm(req) } })),
    ),
    route('GET', '/type/:type', 'Rules of one type', { 200: Rules, ...errors }, (req) =>
      list(
        pool.run('listRules', {
          filter: { ruleType: enumParam<RuleType>(req, 'type', RULE_TYPES) },
        }),
      ),
    ),
    route('GET', '/status/:status', 'Rules in one status', { 200: Rules, ...errors }, (req) =>
      list(
        pool.run('listRules', {
          filter: { status: enumParam<RuleStatus>(req, 'status', RULE_STATUSES) },
        }),
      ),
    ),
    route(
      'POST',
      '/regenerate-drls',
      "Regenerate every rule's DRL and hash",
      { 200: Type.Object({ message: Type.String(), rulesUpdated: Type.Integer() }), ...errors },
      () => regenerate(deps),
    ),
    route('GET', '/:id', 'One rule', { 200: RuleSchema, ...withId }, async (req) =>
      ok(await loadRule(pool, ruleIdOf(req))),
    ),
    route(
      'PUT',
      '/:id',
      'Replace the fields present; version +1 when anything changed',
      { 200: RuleSchema, ...withId, 409: ErrorSchema },
      (req) => update(deps, req),
      RuleUpdateDoc,
    ),
    route(
      'DELETE',
      '/:id',
      'Delete a rule (its alerts are kept)',
      { 204: 'Deleted', ...withId },
      (req) => remove(deps, req),
    ),
    route('POST', '/:id/enable', 'Status ACTIVE', { 200: RuleSchema, ...withId }, status('ACTIVE')),
    route(
      'POST',
      '/:id/disable',
      'Status PAUSED',
      { 200: RuleSchema, ...withId },
      status('PAUSED'),
    ),
    route(
      'POST',
      '/:id/archive',
      'Status ARCHIVED',
      { 200: RuleSchema, ...withId },
      status('ARCHIVED'),
    ),
  ];
};
