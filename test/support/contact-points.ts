/**
 * Helpers for the contact point tests: the contact point as the API returns it, as a strict schema
 * (every answer is checked against it), and request shortcuts on one running service.
 */
import { type Static, Type } from '@sinclair/typebox';
import { expectJson } from './rules.ts';
import type { TestService } from './service.ts';

export const ContactPointSchema = Type.Object(
  {
    id: Type.Integer({ minimum: 1 }),
    name: Type.String(),
    type: Type.Union([Type.Literal('email'), Type.Literal('slack'), Type.Literal('webhook')]),
    isDefault: Type.Boolean(),
    settings: Type.Record(Type.String(), Type.Unknown()),
    createdAt: Type.String({ format: 'date-time' }),
    updatedAt: Type.String({ format: 'date-time' }),
  },
  { additionalProperties: false },
);
export type ContactPointView = Static<typeof ContactPointSchema>;

export interface NewContactPoint {
  readonly name: string;
  readonly type: 'email' | 'slack' | 'webhook';
  readonly isDefault?: boolean;
  readonly settings: Record<string, unknown>;
}

/** Shortcuts on one running service. */
export function contactPointsApi(svc: TestService) {
  const send = (method: string, path: string, json?: unknown) =>
    svc.request(
      `/api/v1/contact-points${path}`,
      json === undefined ? { method } : { method, json },
    );
  return {
    send,
    create: async (body: NewContactPoint): Promise<ContactPointView> =>
      expectJson(ContactPointSchema, await send('POST', '', body), 201),
    get: async (id: number): Promise<ContactPointView> =>
      expectJson(ContactPointSchema, await send('GET', `/${id}`), 200),
    put: async (id: number, body: unknown): Promise<ContactPointView> =>
      expectJson(ContactPointSchema, await send('PUT', `/${id}`, body), 200),
    list: async (): Promise<ContactPointView[]> =>
      expectJson(Type.Array(ContactPointSchema), await send('GET', ''), 200),
    remove: async (id: number): Promise<void> => {
      const res = await send('DELETE', `/${id}`);
      if (res.status !== 204)
        throw new Error(`expected 204, got ${res.status}: ${await res.text()}`);
    },
  };
}
