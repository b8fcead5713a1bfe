/**
 * @module API key endpoints (admin): create (the key is in this answer only), list (never a key
 * or its hash), revoke; and (read) what the caller's own key grants. A change is in force on this instance before the answer is sent.
 */
import { Type } from '@sinclair/typebox';
import type { StoragePool } from '../../actors/storage-pool.ts';
import type { KeyHasher } from '../../auth/key-hash.ts';
import { generateKey } from '../../auth/key-format.ts';
import { UNAUTHENTICATED_ADMIN } from '../../auth/principal.ts';
import { KEY_SCOPES, MAX_API_KEYS } from '../../domain/api-key.ts';
import { AppError, notFound, validationError } from '../../errors.ts';
import {
  ApiKeySchema,
  checkKeyBody,
  CreatedKeySchema,
  KeyCreateBody,
} from '../../schemas/api-key.ts';
import { ErrorSchema } from '../../schemas/event-responses.ts';
import type { Reply } from '../reply.ts';
import type { Request, Route } from '../route-types.ts';
import { POSITIVE_INT } from './rules.ts';

export interface KeyDeps {
  readonly pool: StoragePool;
  readonly hasher: KeyHasher;
  /** Puts the stored keys in force on this instance (others reload within a second). */
  readonly reloadKeys: () => Promise<void>;
}

/** Key ids are bigserial; one past JavaScript's exact integers names no key. */
const MAX_KEY_ID = Number.MAX_SAFE_INTEGER;

const failed = (message: string): AppError =>
  new AppError('INTERNAL', `Failed to process API key: ${message}`);

async function create(deps: KeyDeps, req: Request): Promise<Reply> {
  const checked = checkKeyBody(req.body, req.receivedAt);
  if (!checked.ok) throw validationError(checked.errors);
  const { key, prefix } = generateKey(checked.fields.scope);
  const result = await deps.pool.run('createApiKey', {
    fields: checked.fields,
    prefix,
    hash: deps.hasher(key),
    maxKeys: MAX_API_KEYS,
  });
  if (!result.ok) {
    if (result.code === 'KEY_LIMIT') throw new AppError('KEY_LIMIT', result.message);
    throw failed(result.message);
  }
  await deps.reloadKeys();
  return { status: 201, body: { ...result.value, key } };
}

async function list(deps: KeyDeps): Promise<Reply> {
  const result = await deps.pool.run('listApiKeys', {});
  if (!result.ok) throw failed(result.message);
  return { status: 200, body: result.value };
}

async function revoke(deps: KeyDeps, req: Request): Promise<Reply> {
  const raw = req.params.id ?? '';
  if (!POSITIVE_INT.test(raw)) throw validationError({ id: 'id must be a positive integer' });
  const id = Number(raw);
  if (id > MAX_KEY_ID) throw notFound(`API key ${raw} not found`);
  const result = await deps.pool.run('revokeApiKey', { id });
  if (!result.ok) {
    if (result.code === 'NOT_FOUND') throw notFound(result.message);
    throw failed(result.message);
  }
  await deps.reloadKeys();
  return { status: 204 };
}

const errors = { 400: ErrorSchema, 500: ErrorSchema };

/** What the caller's own key grants: the dashboard shows admin actions to admin keys only. */
const SelfSchema = Type.Object({
  scope: Type.Union(KEY_SCOPES.map((s) => Type.Literal(s))),
  label: Type.String({ description: "The key's visible prefix (never the key)" }),
});

export const keyRoutes = (deps: KeyDeps): Route[] => [
  {
    method: 'POST',
    path: '/api/v1/keys',
    scope: 'admin',
    body: 'json',
    doc: {
      summary: 'Create an API key; the answer holds the key itself, shown this once',
      body: KeyCreateBody,
      responses: { 201: CreatedKeySchema, ...errors, 422: ErrorSchema },
    },
    handle: (req) => create(deps, req),
  },
  {
    method: 'GET',
    path: '/api/v1/keys',
    scope: 'admin',
    body: 'none',
    doc: {
      summary: 'Every API key, oldest first (prefixes only, never a key)',
      responses: { 200: Type.Array(ApiKeySchema), ...errors },
    },
    handle: () => list(deps),
  },
  {
    method: 'GET',
    path: '/api/v1/keys/self',
    scope: 'read',
    body: 'none',
    doc: {
      summary: "The calling key's scope and prefix (never the key)",
      responses: { 200: SelfSchema, 401: ErrorSchema },
    },
    handle: ({ principal }) => {
      const { scope, label } = principal ?? UNAUTHENTICATED_ADMIN;
      return { status: 200, body: { scope, label } };
    },
  },
  {
    method: 'DELETE',
    path: '/api/v1/keys/:id',
    scope: 'admin',
    body: 'none',
    doc: {
      summary: 'Revoke an API key (it stays listed, with revokedAt)',
      responses: { 204: 'Revoked', ...errors, 404: ErrorSchema },
    },
    handle: (req) => revoke(deps, req),
  },
];
