/**
 * @module Rule request bodies (spec 4.2, 4.3; DESIGN 6): typebox schemas, their Static types, the
 * checks compiled once, and checkRuleBody, which maps every problem to a field path and message
 * with the shared schema-error mapping and JSON guards.
 */
import { type SchemaOptions, type Static, type TSchema, Type } from '@sinclair/typebox';
import { TypeCompiler, type TypeCheck } from '@sinclair/typebox/compiler';
import {
  CHANNEL_ENTRY_RULE,
  channelEntryProblem,
  CONTACT_POINT_NAME,
} from '../domain/contact-points/contact-point.ts';
import { ruleKinds } from '../domain/rules/kinds/registry.ts';
import { notificationConfigErrors } from '../domain/rules/alerts/notification-config.ts';
import { validateRuleConfig } from '../domain/rules/rule-config-validation.ts';
import type { RuleTestInput } from '../domain/rules/rule-test.ts';
import {
  MAX_ALERTS_PER_HOUR,
  MAX_RULE_DESCRIPTION_CHARACTERS,
  MAX_RULE_NAME_CHARACTERS,
  MAX_SUPPRESSION_WINDOW_MINUTES,
  NOTIFICATION_CHANNELS,
  RULE_DEFAULTS,
  RULE_SEVERITIES,
  RULE_TYPES,
  notAvailableYet,
  type RuleType,
} from '../domain/rules/rule-types.ts';
import type { RuleFields } from '../domain/rules/rule.ts';
import { Characters } from './characters.ts';
import { depthOf, findUnstorable } from './json-guards.ts';
import { schemaErrors } from './schema-errors.ts';

/** A channel entry (contact-point.ts parseChannelRef), as a pattern for the schema. */
const CHANNEL_ENTRY = new RegExp(
  `^(${NOTIFICATION_CHANNELS.join('|')})(:${CONTACT_POINT_NAME.source.slice(1, -1)})?$`,
);
const MAX_CHANNEL_ENTRIES = 20;

/** Java `int` / PostgreSQL `integer`: priority is the DRL salience. */
const INT32_MIN = -2147483648;
const INT32_MAX = 2147483647;

const Nullable = <T extends TSchema>(schema: T, errorMessage: string) =>
  Type.Union([schema, Type.Null()], { errorMessage });
const literals = <T extends string>(values: readonly T[], errorMessage: string) =>
  Type.Union(
    values.map((v) => Type.Literal(v)),
    { errorMessage },
  );
const AnyObject = (options?: SchemaOptions) => Type.Record(Type.String(), Type.Unknown(), options);

/** The fields a rule author sets (RuleFields), each with the message of its every fault. */
const FIELDS = {
  name: Characters(
    1,
    MAX_RULE_NAME_CHARACTERS,
    `name must be a string of 1 to ${MAX_RULE_NAME_CHARACTERS} characters`,
  ),
  description: Nullable(
    Characters(0, MAX_RULE_DESCRIPTION_CHARACTERS, ''),
    `description must be a string of at most ${MAX_RULE_DESCRIPTION_CHARACTERS} characters, or null`,
  ),
  ruleType: literals(RULE_TYPES, `ruleType must be one of ${RULE_TYPES.join(', ')}`),
  ruleConfig: AnyObject({ errorMessage: 'ruleConfig must be an object' }),
  severity: literals(RULE_SEVERITIES, `severity must be one of ${RULE_SEVERITIES.join(', ')}`),
  priority: Type.Integer({
    minimum: INT32_MIN,
    maximum: INT32_MAX,
    errorMessage: `priority must be an integer from ${INT32_MIN} to ${INT32_MAX}`,
  }),
  notificationChannels: Type.Array(
    Type.String({ pattern: CHANNEL_ENTRY.source, errorMessage: `must be ${CHANNEL_ENTRY_RULE}` }),
    {
      uniqueItems: true,
      maxItems: MAX_CHANNEL_ENTRIES,
      errorMessage: `notificationChannels must be an array of at most ${MAX_CHANNEL_ENTRIES} distinct entries, each ${CHANNEL_ENTRY_RULE}`,
    },
  ),
  notificationConfig: Nullable(AnyObject(), 'notificationConfig must be an object or null'),
  suppressionWindowMinutes: Type.Integer({
    minimum: 0,
    maximum: MAX_SUPPRESSION_WINDOW_MINUTES,
    errorMessage: `suppressionWindowMinutes must be an integer from 0 to ${MAX_SUPPRESSION_WINDOW_MINUTES} (0 = no suppression)`,
  }),
  maxAlertsPerHour: Type.Integer({
    minimum: 1,
    maximum: MAX_ALERTS_PER_HOUR,
    errorMessage: `maxAlertsPerHour must be an integer from 1 to ${MAX_ALERTS_PER_HOUR}`,
  }),
  createdBy: Nullable(
    Type.String({ maxLength: 255 }),
    'createdBy must be a string of at most 255 characters, or null',
  ),
} satisfies Record<keyof RuleFields, TSchema>;

const NOT_AN_OBJECT = 'must be a JSON object';
const { name, ruleType, ruleConfig, severity, ...defaulted } = FIELDS;

/** POST /api/v1/rules: the fields that have a default (RULE_DEFAULTS, null or none) may be left out. */
export const RuleCreateBody = Type.Object(
  { name, ruleType, ruleConfig, severity, ...Type.Partial(Type.Object(defaulted)).properties },
  { additionalProperties: false, errorMessage: NOT_AN_OBJECT },
);
export type RuleCreateBody = Static<typeof RuleCreateBody>;

/** PUT /api/v1/rules/{id}: every field optional; `null` clears description, notificationConfig, createdBy. */
export const RuleUpdateBody = Type.Partial(RuleCreateBody, {
  additionalProperties: false,
  errorMessage: NOT_AN_OBJECT,
});
export type RuleUpdateBody = Static<typeof RuleUpdateBody>;

/**
 * POST /api/v1/rules/test: the create fields; `ruleConfig` may be any value here, because a bad
 * config is a test result (200, success false, spec 4.3), not a bad request.
 */
export const RuleTestBody = Type.Object(
  { ...RuleCreateBody.properties, ruleConfig: Type.Unknown() },
  { additionalProperties: false, errorMessage: NOT_AN_OBJECT },
);
export type RuleTestBody = Static<typeof RuleTestBody>;

const CreateCheck = TypeCompiler.Compile(RuleCreateBody);
const UpdateCheck = TypeCompiler.Compile(RuleUpdateBody);
const TestCheck = TypeCompiler.Compile(RuleTestBody);

/** The fields an update sets; ruleConfig, when present, is normalised for the effective type. */
export type RuleUpdateInput = Partial<RuleFields>;

/**
 * The stored rule (callers pass the whole stored rule): what an update's ruleType / ruleConfig are
 * checked against. notificationChannels and notificationConfig are checked each on its own: an
 * entry needs no config, and a missing contact point is not a validation error.
 */
export type CurrentRuleConfig = Pick<RuleFields, 'ruleType' | 'ruleConfig'>;

export type RuleBodyCheck<T> =
  | { readonly ok: true; readonly value: T }
  | { readonly ok: false; readonly errors: Record<string, string> };

const ASSIGNED_FIELDS = new Set([
  'id',
  'generatedDrl',
  'drlHash',
  'createdAt',
  'updatedAt',
  'lastTriggeredAt',
  'triggerCount',
  'version',
]);

/**
 * A field of the stored rule that no body may set is named with what to do instead. Such a field
 * is never in the schema, so any error under its name is that it is unknown.
 */
function notSettable(field: string): string | undefined {
  if (field === 'status') {
    return 'status cannot be set here: use POST /api/v1/rules/{id}/enable, /disable or /archive';
  }
  return ASSIGNED_FIELDS.has(field)
    ? `${field} is assigned by the service and cannot be set`
    : undefined;
}

const isObject = (value: unknown): value is Readonly<Record<string, unknown>> =>
  typeof value === 'object' && value !== null;

/** The shared mapping (schema-errors.ts), with the messages only a rule body can give. */
function bodyErrors(check: TypeCheck<TSchema>, body: unknown): Record<string, string> {
  const errors = schemaErrors(check.Errors(body));
  for (const field of Object.keys(errors)) {
    const message = notSettable(field);
    if (message !== undefined) errors[field] = message;
  }
  // The schema's message says "distinct"; a body that lists a channel twice is told just that.
  const channels = isObject(body) ? body['notificationChannels'] : undefined;
  for (const field of Object.keys(errors)) {
    const [head, index, ...more] = field.split('.');
    if (head !== 'notificationChannels' || index === undefined || more.length > 0) continue;
    const entry: unknown = Array.isArray(channels) ? channels[Number(index)] : undefined;
    errors[field] = channelEntryProblem(field, entry) ?? errors[field] ?? '';
  }
  if (
    'notificationChannels' in errors &&
    Array.isArray(channels) &&
    new Set(channels).size < channels.length
  ) {
    errors['notificationChannels'] = 'notificationChannels must not list a channel twice';
  }
  return errors;
}

/** Deeper JSON in one field is refused: PostgreSQL's jsonb would hit its stack limit (a 500). */
const MAX_FIELD_DEPTH = 63;

/**
 * What a schema cannot see (json-guards.ts): a field nested too deep, else text in it that
 * PostgreSQL cannot store, named by its path. Runs once the shape is right: every key is a field.
 */
function unstorable(body: Readonly<Record<string, unknown>>, errors: Record<string, string>): void {
  for (const [field, value] of Object.entries(body)) {
    if (depthOf(value) > MAX_FIELD_DEPTH) {
      errors[field] ??= `must not nest deeper than ${MAX_FIELD_DEPTH} levels`;
      continue; // not walked: its paths would be as long as it is deep
    }
    for (const { path, message } of findUnstorable(value)) {
      errors[path === '' ? field : `${field}.${path}`] ??= message;
    }
  }
}

const configErrors = (messages: readonly string[]): string => messages.join('; ');

/**
 * notificationConfig checked (keys are paths): non-secret per-type settings only; like the schema,
 * text that cannot be stored is reported first: with such a problem in it, nothing else is.
 */
function checkNotifications(config: unknown, errors: Record<string, string>): void {
  if (Object.keys(errors).some((k) => k.split('.')[0] === 'notificationConfig')) return;
  for (const [path, message] of Object.entries(notificationConfigErrors(config))) {
    errors[path] ??= message;
  }
}

/**
 * A rule type that cannot be created yet, named under `ruleType` (the field to change); its
 * config is then not judged: no config of it would do.
 */
function unavailableType(ruleType: RuleType | undefined, errors: Record<string, string>): boolean {
  const kinds = ruleKinds();
  if (ruleType === undefined || kinds.has(ruleType)) return false;
  errors['ruleType'] = notAvailableYet(ruleType, kinds.types);
  return true;
}

function checkCreate(body: unknown): RuleBodyCheck<RuleFields> {
  if (!CreateCheck.Check(body)) return { ok: false, errors: bodyErrors(CreateCheck, body) };
  const errors: Record<string, string> = {};
  unstorable(body, errors);
  if (unavailableType(body.ruleType, errors)) return { ok: false, errors };
  const config = validateRuleConfig(body.ruleType, body.ruleConfig);
  if (!config.ok) errors['ruleConfig'] = configErrors(config.errors);
  checkNotifications(body.notificationConfig, errors);
  if (Object.keys(errors).length > 0 || !config.ok) return { ok: false, errors };
  return {
    ok: true,
    value: {
      name: body.name,
      description: body.description ?? null,
      ruleType: body.ruleType,
      ruleConfig: config.config,
      severity: body.severity,
      priority: body.priority ?? RULE_DEFAULTS.priority,
      notificationChannels: body.notificationChannels ?? [],
      notificationConfig: body.notificationConfig ?? null,
      suppressionWindowMinutes:
        body.suppressionWindowMinutes ?? RULE_DEFAULTS.suppressionWindowMinutes,
      maxAlertsPerHour: body.maxAlertsPerHour ?? RULE_DEFAULTS.maxAlertsPerHour,
      createdBy: body.createdBy ?? null,
    },
  };
}

function checkUpdate(body: unknown, current: CurrentRuleConfig): RuleBodyCheck<RuleUpdateInput> {
  if (!UpdateCheck.Check(body)) return { ok: false, errors: bodyErrors(UpdateCheck, body) };
  const errors: Record<string, string> = {};
  unstorable(body, errors);
  const { ruleConfig: rawConfig, ...rest } = body;
  const value: { -readonly [K in keyof RuleUpdateInput]: RuleUpdateInput[K] } = { ...rest };
  // A new ruleType revalidates the config it will run with: the body's, else the stored one.
  const unavailable = unavailableType(body.ruleType, errors);
  if (!unavailable && (body.ruleType !== undefined || rawConfig !== undefined)) {
    const ruleType = body.ruleType ?? current.ruleType;
    const checked = validateRuleConfig(ruleType, rawConfig ?? current.ruleConfig);
    if (checked.ok) value.ruleConfig = checked.config;
    else errors['ruleConfig'] = configErrors(checked.errors);
  }
  // A channel entry needs no check against the config: a missing contact point is not an error.
  if (body.notificationConfig !== undefined) checkNotifications(body.notificationConfig, errors);
  return Object.keys(errors).length > 0 ? { ok: false, errors } : { ok: true, value };
}

function checkTest(body: unknown): RuleBodyCheck<RuleTestInput & RuleTestBody> {
  if (!TestCheck.Check(body)) return { ok: false, errors: bodyErrors(TestCheck, body) };
  const errors: Record<string, string> = {};
  if (unavailableType(body.ruleType, errors)) return { ok: false, errors };
  return { ok: true, value: body };
}

/**
 * Checks a rule body. Error keys are field paths (`name`, `notificationChannels.0`; a NUL character
 * deep inside names its path, e.g. `notificationConfig.slack.channel`); every ruleConfig problem
 * is under the one key `ruleConfig`: the rule test's validationErrors, in order, joined with `; `.
 * - create: full check, defaults applied, ruleConfig normalised.
 * - update: `current` is the stored rule; a new ruleType or ruleConfig is validated as the pair
 *   that will run, and `value.ruleConfig` is then the normalised config; notificationConfig, when
 *   present, is checked on its own (non-secret settings only).
 * - test: the body's shape only; ruleConfig content is judged by testRule (a 200 result).
 * A ruleType no rule kind serves (kinds/registry.ts) is refused on all three, under `ruleType`.
 */
export function checkRuleBody(kind: 'create', body: unknown): RuleBodyCheck<RuleFields>;
export function checkRuleBody(
  kind: 'update',
  body: unknown,
  current: CurrentRuleConfig,
): RuleBodyCheck<RuleUpdateInput>;
export function checkRuleBody(
  kind: 'test',
  body: unknown,
): RuleBodyCheck<RuleTestInput & RuleTestBody>;
export function checkRuleBody(
  kind: 'create' | 'update' | 'test',
  body: unknown,
  current?: CurrentRuleConfig,
): RuleBodyCheck<RuleFields | RuleUpdateInput | (RuleTestInput & RuleTestBody)> {
  switch (kind) {
    case 'create':
      return checkCreate(body);
    case 'update':
      if (current === undefined) throw new TypeError('checkRuleBody(update) needs the stored rule');
      return checkUpdate(body, current);
    case 'test':
      return checkTest(body);
  }
}
