/**
 * @module Contact point request bodies (issue 17, docs/contact-points.md): typebox schemas, their
 * checks compiled once, and checkContactPointBody, which maps every problem to a field path and
 * message: the shape here, the settings by the same code that checks them before a delivery.
 */
import { type Static, Type } from '@sinclair/typebox';
import { TypeCompiler } from '@sinclair/typebox/compiler';
import {
  CONTACT_POINT_NAME,
  CONTACT_POINT_NAME_RULE,
  type ContactPoint,
  type ContactPointFields,
} from '../domain/contact-points/contact-point.ts';
import { redactedPaths } from '../domain/contact-points/redact.ts';
import {
  mergeSettingsUpdate,
  secretsLeftBehind,
} from '../domain/contact-points/settings-update.ts';
import { contactPointSettingsErrors } from '../domain/rules/alerts/notification-config.ts';
import { NOTIFICATION_CHANNELS } from '../domain/rules/rule-types.ts';
import { findUnstorable } from './json-guards.ts';
import { schemaErrors } from './schema-errors.ts';

const NOT_AN_OBJECT = 'must be a JSON object';

const FIELDS = {
  name: Type.String({
    pattern: CONTACT_POINT_NAME.source,
    errorMessage: `name must be ${CONTACT_POINT_NAME_RULE}`,
  }),
  type: Type.Union(
    NOTIFICATION_CHANNELS.map((c) => Type.Literal(c)),
    { errorMessage: `type must be one of ${NOTIFICATION_CHANNELS.join(', ')}` },
  ),
  isDefault: Type.Boolean({ errorMessage: 'isDefault must be true or false' }),
  settings: Type.Record(Type.String(), Type.Unknown(), {
    errorMessage: 'settings must be an object (its keys depend on type)',
  }),
};

/** POST /api/v1/contact-points. */
export const ContactPointCreateBody = Type.Object(
  {
    name: FIELDS.name,
    type: FIELDS.type,
    isDefault: Type.Optional(FIELDS.isDefault),
    settings: FIELDS.settings,
  },
  {
    additionalProperties: false,
    errorMessage: NOT_AN_OBJECT,
    examples: [
      {
        name: 'oncall',
        type: 'slack',
        isDefault: true,
        // A placeholder, never a real credential: the document is public.
        settings: { webhookUrl: 'https://hooks.slack.com/services/T…/B…/…', channel: '#alerts' },
      },
    ],
  },
);
export type ContactPointCreateBody = Static<typeof ContactPointCreateBody>;

/**
 * PUT /api/v1/contact-points/{id}: every field optional; `type` may be sent but not changed;
 * `id`, `createdAt` and `updatedAt` are accepted and ignored, so what GET returned can be sent back.
 */
export const ContactPointUpdateBody = Type.Object(
  {
    ...Type.Partial(Type.Object(FIELDS)).properties,
    id: Type.Optional(Type.Unknown()),
    createdAt: Type.Optional(Type.Unknown()),
    updatedAt: Type.Optional(Type.Unknown()),
  },
  { additionalProperties: false, errorMessage: NOT_AN_OBJECT },
);
export type ContactPointUpdateBody = Static<typeof ContactPointUpdateBody>;

const CreateCheck = TypeCompiler.Compile(ContactPointCreateBody);
const UpdateCheck = TypeCompiler.Compile(ContactPointUpdateBody);

export type ContactPointBodyCheck =
  | { readonly ok: true; readonly value: ContactPointFields }
  | { readonly ok: false; readonly errors: Record<string, string> };

function settingsChecked(fields: ContactPointFields): ContactPointBodyCheck {
  const errors: Record<string, string> = {};
  for (const { path, message } of findUnstorable(fields.settings)) {
    errors[path === '' ? 'settings' : `settings.${path}`] ??= message;
  }
  if (Object.keys(errors).length === 0) {
    Object.assign(errors, contactPointSettingsErrors(fields.type, fields.settings));
  }
  // A redacted form where no stored secret answers it (a create copied from a read, say) would
  // be stored as the secret and fail every delivery.
  for (const path of redactedPaths(fields.type, fields.settings)) {
    errors[path] ??=
      `${path} holds a redacted value (as reads show it), not a secret: send the secret itself`;
  }
  return Object.keys(errors).length > 0 ? { ok: false, errors } : { ok: true, value: fields };
}

/**
 * Checks a contact point body. create: every field but isDefault (false) is required. update:
 * `current` is the stored contact point; the fields given replace its own, its settings are
 * merged key by key (settings-update.ts: secrets left out or sent redacted are kept), and the
 * result is checked as a create would be.
 */
export function checkContactPointBody(
  body: unknown,
  current?: ContactPoint,
): ContactPointBodyCheck {
  if (current === undefined) {
    if (!CreateCheck.Check(body))
      return { ok: false, errors: schemaErrors(CreateCheck.Errors(body)) };
    return settingsChecked({
      name: body.name,
      type: body.type,
      isDefault: body.isDefault ?? false,
      settings: body.settings,
    });
  }
  if (!UpdateCheck.Check(body))
    return { ok: false, errors: schemaErrors(UpdateCheck.Errors(body)) };
  if (body.type !== undefined && body.type !== current.type) {
    return {
      ok: false,
      errors: {
        type: `type cannot change (this contact point is ${current.type}): create a new contact point instead`,
      },
    };
  }
  const stored = current.settings;
  const checked = settingsChecked({
    name: body.name ?? current.name,
    type: current.type,
    isDefault: body.isDefault ?? current.isDefault,
    settings: (body.settings === undefined
      ? stored
      : mergeSettingsUpdate(current.type, stored, body.settings)) as Record<string, unknown>,
  });
  // Checked once the new settings are valid: a URL that is not one is refused for itself.
  const leftBehind = checked.ok ? secretsLeftBehind(current.type, stored, body.settings) : {};
  return Object.keys(leftBehind).length > 0 ? { ok: false, errors: leftBehind } : checked;
}
