/**
 * @module Contact point endpoints (issue 17, docs/contact-points.md), all of scope `admin`: CRUD
 * of named notification destinations. Secrets are write-only: every answer shows them redacted.
 * After each write the front thread's directory is reloaded before the answer, so the next alert
 * delivers with the change.
 */
import { Type } from '@sinclair/typebox';
import type { StoragePool } from '../../actors/storage-pool.ts';
import type { ContactPoint } from '../../domain/contact-points/contact-point.ts';
import { contactPointView } from '../../domain/contact-points/redact.ts';
import { NOTIFICATION_CHANNELS } from '../../domain/rules/rule-types.ts';
import { AppError, notFound, validationError } from '../../errors.ts';
import type { ContactPointDirectory } from '../../notify/contact-point-directory.ts';
import {
  checkContactPointBody,
  ContactPointCreateBody,
  ContactPointUpdateBody,
} from '../../schemas/contact-point.ts';
import { ErrorSchema } from '../../schemas/event-responses.ts';
import type { Reply } from '../reply.ts';
import { routesUnder } from '../route-builder.ts';
import type { Request, Route } from '../route-types.ts';
import { serialIdOf } from './rules.ts';

export interface ContactPointDeps {
  readonly pool: StoragePool;
  readonly contactPoints: Pick<ContactPointDirectory, 'reload'>;
}

const idOf = (req: Request): number => serialIdOf(req, 'Contact point not found');

function valueOf<T>(
  result: { ok: true; value: T } | { ok: false; code: string; message: string },
): T {
  if (result.ok) return result.value;
  switch (result.code) {
    case 'NOT_FOUND':
      throw notFound(result.message);
    case 'NAME_TAKEN':
      throw new AppError('CONTACT_POINT_NAME_TAKEN', result.message);
    default:
      throw new AppError('INTERNAL', `Failed to process contact point: ${result.message}`);
  }
}

const load = async (deps: ContactPointDeps, id: number): Promise<ContactPoint> =>
  valueOf(await deps.pool.run('getContactPoint', { id }));

async function save(deps: ContactPointDeps, req: Request, id: number | null): Promise<Reply> {
  const current = id === null ? undefined : await load(deps, id);
  const checked = checkContactPointBody(req.body, current);
  if (!checked.ok) throw validationError(checked.errors);
  const point = valueOf(await deps.pool.run('saveContactPoint', { id, fields: checked.value }));
  await deps.contactPoints.reload();
  return { status: id === null ? 201 : 200, body: contactPointView(point) };
}

async function remove(deps: ContactPointDeps, req: Request): Promise<Reply> {
  valueOf(await deps.pool.run('deleteContactPoint', { id: idOf(req) }));
  await deps.contactPoints.reload();
  return { status: 204 };
}

const View = Type.Object(
  {
    id: Type.Integer(),
    name: Type.String(),
    type: Type.Union(NOTIFICATION_CHANNELS.map((c) => Type.Literal(c))),
    isDefault: Type.Boolean(),
    settings: Type.Record(Type.String(), Type.Unknown(), {
      description: 'Secrets (URLs, header values) redacted',
    }),
    createdAt: Type.String({ format: 'date-time' }),
    updatedAt: Type.String({ format: 'date-time' }),
  },
  {
    examples: [
      {
        id: 1,
        name: 'oncall',
        type: 'slack',
        isDefault: true,
        settings: { webhookUrl: 'https://hooks.slack.com/****', channel: '#alerts' },
        createdAt: '2026-11-25T02:00:00.000Z',
        updatedAt: '2026-11-25T02:00:00.000Z',
      },
    ],
  },
);
const errors = { 400: ErrorSchema, 500: ErrorSchema };
const withId = { ...errors, 404: ErrorSchema };

export const contactPointRoutes = (deps: ContactPointDeps): Route[] => {
  // Contact points hold credentials: reading them (even redacted) is for admins only.
  const route = routesUnder('/api/v1/contact-points', () => 'admin');
  return [
    route(
      'POST',
      '',
      'Create a contact point; isDefault takes the default of its type from another',
      { 201: View, ...errors, 409: ErrorSchema },
      (req) => save(deps, req, null),
      ContactPointCreateBody,
    ),
    route(
      'GET',
      '',
      'Every contact point, by id (secrets redacted)',
      { 200: Type.Array(View), ...errors },
      async () => ({
        status: 200,
        body: valueOf(await deps.pool.run('listContactPoints', {})).map(contactPointView),
      }),
    ),
    route(
      'GET',
      '/:id',
      'One contact point (secrets redacted)',
      { 200: View, ...withId },
      async (req) => ({ status: 200, body: contactPointView(await load(deps, idOf(req))) }),
    ),
    route(
      'PUT',
      '/:id',
      'Change a contact point; settings merge key by key, secrets left out or sent redacted are kept',
      { 200: View, ...withId, 409: ErrorSchema },
      (req) => save(deps, req, idOf(req)),
      ContactPointUpdateBody,
    ),
    route(
      'DELETE',
      '/:id',
      'Delete a contact point; deliveries of rules naming it then fail',
      { 204: 'Deleted', ...withId },
      (req) => remove(deps, req),
    ),
  ];
};
