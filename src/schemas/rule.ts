/**
 * @module Rule request bodies (spec 4.2, 4.3; DESIGN 6): typebox schemas, their Static types, the
 * checks compiled once, and checkRuleBody, which maps every problem to a field path and message.
 */
import { type Static, type TSchema, Type } from '@sinclair/typebox';
import { TypeCompiler } from '@sinclair/typebox/compiler';
import { ValueErrorType } from '@sinclair/typebox/errors';
import { notificationConfigErrors } from '../domain/rules/notification-config.ts';
import { validateRuleConfig } from '../domain/rules/rule-config-validation.ts';
import type { RuleTestInput } from '../domain/rules/rule-test.ts';
import {
  NOTIFICATION_CHANNELS,
  RULE_DEFAULTS,
  RULE_SEVERITIES,
  RULE_TYPES,
  type NotificationChannel,
  type RuleConfig,
  type RuleSeverity,
  type RuleType,
} from '../domain/rules/rule-types.ts';

/** Java `int` / PostgreSQL `integer`: priority is the DRL salience. */
const INT32_MIN = -2147483648;
const INT32_MAX = 2147483647;

const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);
const literals = <T extends string>(values: readonly T[]) =>
  Type.Union(values.map((v) => Type.Literal(v)));

const Name = Type.String({ minLength: 1, maxLength: 255 });
const RuleTypeSchema = literals(RULE_TYPES);
const Severity = literals(RULE_SEVERITIES);
const AnyObject = Type.Record(Type.String(), Type.Unknown());
const Priority = Type.Integer({ minimum: INT32_MIN, maximum: INT32_MAX });
const Suppression = Type.Integer({ minimum: 0, maximum: INT32_MAX });
const MaxAlerts = Type.Integer({ minimum: 1, maximum: INT32_MAX });
const Channels = Type.Array(literals(NOTIFICATION_CHANNELS), { uniqueItems: true });
const Text = Nullable(Type.String());
const CreatedBy = Nullable(Type.String({ maxLength: 255 }));

/** POST /api/v1/rules. */
export const RuleCreateBody = Type.Object(
  {
    name: Name,
    description: Type.Optional(Text),
    ruleType: RuleTypeSchema,
    ruleConfig: AnyObject,
    severity: Severity,
    priority: Type.Optional(Priority),
    notificationChannels: Type.Optional(Channels),
    notificationConfig: Type.Optional(Nullable(AnyObject)),
    suppressionWindowMinutes: Type.Optional(Suppression),
    maxAlertsPerHour: Type.Optional(MaxAlerts),
    createdBy: Type.Optional(CreatedBy),
  },
  { additionalProperties: false },
);
export type RuleCreateBody = Static<typeof RuleCreateBody>;

/** PUT /api/v1/rules/{id}: every field optional; `null` clears description, notificationConfig, createdBy. */
export const RuleUpdateBody = Type.Object(
  {
    name: Type.Optional(Name),
    description: Type.Optional(Text),
    ruleType: Type.Optional(RuleTypeSchema),
    ruleConfig: Type.Optional(AnyObject),
    severity: Type.Optional(Severity),
    priority: Type.Optional(Priority),
    notificationChannels: Type.Optional(Channels),
    notificationConfig: Type.Optional(Nullable(AnyObject)),
    suppressionWindowMinutes: Type.Optional(Suppression),
    maxAlertsPerHour: Type.Optional(MaxAlerts),
    createdBy: Type.Optional(CreatedBy),
  },
  { additionalProperties: false },
);
export type RuleUpdateBody = Static<typeof RuleUpdateBody>;

/**
 * POST /api/v1/rules/test: the create fields; `ruleConfig` may be any value here, because a bad
 * config is a test result (200, success false, spec 4.3), not a bad request.
 */
export const RuleTestBody = Type.Object(
  { ...RuleCreateBody.properties, ruleConfig: Type.Unknown() },
  { additionalProperties: false },
);
export type RuleTestBody = Static<typeof RuleTestBody>;

const CreateCheck = TypeCompiler.Compile(RuleCreateBody);
const UpdateCheck = TypeCompiler.Compile(RuleUpdateBody);
const TestCheck = TypeCompiler.Compile(RuleTestBody);

/** A create body with every default applied and ruleConfig normalised: ready to store. */
export interface RuleCreateInput {
  readonly name: string;
  readonly description: string | null;
  readonly ruleType: RuleType;
  readonly ruleConfig: RuleConfig;
  readonly severity: RuleSeverity;
  readonly priority: number;
  readonly notificationChannels: readonly NotificationChannel[];
  readonly notificationConfig: Readonly<Record<string, unknown>> | null;
  readonly suppressionWindowMinutes: number;
  readonly maxAlertsPerHour: number;
  readonly createdBy: string | null;
}

/** The fields an update sets; ruleConfig, when present, is normalised for the effective type. */
export type RuleUpdateInput = Partial<RuleCreateInput>;

/**
 * The stored rule (callers pass the whole stored rule): what an update's ruleType / ruleConfig and
 * notificationChannels / notificationConfig are checked against. Absent channels / config: none.
 */
export interface CurrentRuleConfig {
  readonly ruleType: RuleType;
  readonly ruleConfig: unknown;
  readonly notificationChannels?: readonly NotificationChannel[];
  readonly notificationConfig?: Readonly<Record<string, unknown>> | null;
}

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

const FIELD_MESSAGES: Readonly<Record<string, string>> = {
  name: 'name must be a string of 1 to 255 characters',
  description: 'description must be a string or null',
  ruleType: `ruleType must be one of ${RULE_TYPES.join(', ')}`,
  ruleConfig: 'ruleConfig must be an object',
  severity: `severity must be one of ${RULE_SEVERITIES.join(', ')}`,
  priority: `priority must be an integer from ${INT32_MIN} to ${INT32_MAX}`,
  notificationChannels: `notificationChannels must be an array of distinct channels from ${NOTIFICATION_CHANNELS.join(', ')}`,
  notificationConfig: 'notificationConfig must be an object or null',
  suppressionWindowMinutes: `suppressionWindowMinutes must be an integer from 0 to ${INT32_MAX} (0 = no suppression)`,
  maxAlertsPerHour: `maxAlertsPerHour must be an integer from 1 to ${INT32_MAX}`,
  createdBy: 'createdBy must be a string of at most 255 characters, or null',
};

function unknownFieldMessage(field: string): string {
  if (field === 'status') {
    return 'status cannot be set here: use POST /api/v1/rules/{id}/enable, /disable or /archive';
  }
  if (ASSIGNED_FIELDS.has(field)) return `${field} is assigned by the service and cannot be set`;
  return `Unknown field '${field}'`;
}

/** `/notificationChannels/0` → `notificationChannels.0` (JSON pointer unescaped). */
const pathKey = (pointer: string): string =>
  pointer
    .split('/')
    .slice(1)
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'))
    .join('.');

function schemaErrors(
  check: typeof CreateCheck | typeof UpdateCheck | typeof TestCheck,
  body: unknown,
): Record<string, string> {
  const errors: Record<string, string> = {};
  for (const error of check.Errors(body)) {
    const key = pathKey(error.path);
    if (key in errors) continue;
    if (key === '') {
      errors['body'] = 'The body must be a JSON object';
      break;
    }
    const field = key.split('.')[0] ?? key;
    if (error.type === ValueErrorType.ObjectAdditionalProperties) {
      errors[key] = unknownFieldMessage(key);
    } else if (error.type === ValueErrorType.ObjectRequiredProperty) {
      errors[key] = `${key} is required`;
    } else if (field === 'notificationChannels' && key !== field) {
      errors[key] = `must be one of ${NOTIFICATION_CHANNELS.join(', ')}`;
    } else if (field === 'notificationChannels' && error.type === ValueErrorType.ArrayUniqueItems) {
      errors[key] = 'notificationChannels must not list a channel twice';
    } else {
      errors[key] = FIELD_MESSAGES[field] ?? `${key} is invalid`;
    }
  }
  return errors;
}

// eslint-disable-next-line no-control-regex -- U+0000 is exactly what this looks for
const STORABLE_PROBLEM = /[\u0000\p{Cs}]/u;

/** Deeper JSON than this is refused: PostgreSQL's jsonb would hit its stack limit (a 500). */
const MAX_JSON_DEPTH = 64;

/**
 * PostgreSQL text and jsonb cannot hold U+0000, and an unpaired surrogate is not UTF-8: either would
 * fail (or be altered) at insert, so name the path here. A bad key names the key's parent.
 * Iterative, so that no nesting depth can overflow the stack.
 */
function unstorable(body: unknown, errors: Record<string, string>): void {
  const report = (path: string, message: string): void => {
    const at = path === '' ? 'body' : path;
    if (!(at in errors)) errors[at] = message;
  };
  const stack: { value: unknown; path: string; depth: number }[] = [
    { value: body, path: '', depth: 0 },
  ];
  for (let top = stack.pop(); top !== undefined; top = stack.pop()) {
    const { value, path, depth } = top;
    const child = (key: string | number): string => (path === '' ? `${key}` : `${path}.${key}`);
    if (typeof value === 'string') {
      const match = STORABLE_PROBLEM.exec(value);
      if (match !== null) {
        report(
          path,
          match[0] === '\u0000'
            ? 'must not contain the NUL character (U+0000)'
            : 'must be valid Unicode (no unpaired surrogate)',
        );
      }
    } else if (typeof value === 'object' && value !== null) {
      if (depth >= MAX_JSON_DEPTH) {
        report(path, `nests deeper than ${MAX_JSON_DEPTH} levels`);
        continue;
      }
      const entries = Array.isArray(value)
        ? value.map((item: unknown, i) => [i, item] as const)
        : Object.entries(value);
      // Reversed, so that the first problem in document order is the one reported per path.
      for (let i = entries.length - 1; i >= 0; i--) {
        const [key, item] = entries[i] as readonly [string | number, unknown];
        if (typeof key === 'string' && STORABLE_PROBLEM.test(key)) {
          report(path, 'keys must not contain U+0000 or unpaired surrogates');
        }
        stack.push({ value: item, path: child(key), depth: depth + 1 });
      }
    }
  }
}

const configErrors = (messages: readonly string[]): string => messages.join('; ');

/**
 * notificationConfig checked against the channels (keys are paths); like the schema, text that
 * cannot be stored is reported first: with such a problem in notificationConfig, nothing else is.
 */
function checkNotifications(
  channels: readonly NotificationChannel[],
  config: unknown,
  errors: Record<string, string>,
): void {
  if (Object.keys(errors).some((k) => k.split('.')[0] === 'notificationConfig')) return;
  for (const [path, message] of Object.entries(notificationConfigErrors(channels, config))) {
    errors[path] ??= message;
  }
}

function checkCreate(body: unknown): RuleBodyCheck<RuleCreateInput> {
  if (!CreateCheck.Check(body)) return { ok: false, errors: schemaErrors(CreateCheck, body) };
  const errors: Record<string, string> = {};
  unstorable(body, errors);
  const config = validateRuleConfig(body.ruleType, body.ruleConfig);
  if (!config.ok) errors['ruleConfig'] = configErrors(config.errors);
  checkNotifications(body.notificationChannels ?? [], body.notificationConfig, errors);
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
  if (!UpdateCheck.Check(body)) return { ok: false, errors: schemaErrors(UpdateCheck, body) };
  const errors: Record<string, string> = {};
  unstorable(body, errors);
  const { ruleConfig: rawConfig, ...rest } = body;
  const value: { -readonly [K in keyof RuleUpdateInput]: RuleUpdateInput[K] } = { ...rest };
  // A new ruleType revalidates the config it will run with: the body's, else the stored one.
  if (body.ruleType !== undefined || rawConfig !== undefined) {
    const ruleType = body.ruleType ?? current.ruleType;
    const checked = validateRuleConfig(ruleType, rawConfig ?? current.ruleConfig);
    if (checked.ok) value.ruleConfig = checked.config;
    else errors['ruleConfig'] = configErrors(checked.errors);
  }
  // Changed channels or config are checked as the pair that will be stored (merged onto `current`).
  if (body.notificationChannels !== undefined || body.notificationConfig !== undefined) {
    checkNotifications(
      body.notificationChannels ?? current.notificationChannels ?? [],
      body.notificationConfig !== undefined ? body.notificationConfig : current.notificationConfig,
      errors,
    );
  }
  return Object.keys(errors).length > 0 ? { ok: false, errors } : { ok: true, value };
}

function checkTest(body: unknown): RuleBodyCheck<RuleTestInput & RuleTestBody> {
  if (!TestCheck.Check(body)) return { ok: false, errors: schemaErrors(TestCheck, body) };
  return { ok: true, value: body };
}

/**
 * Checks a rule body. Error keys are field paths (`name`, `notificationChannels.0`; a NUL character
 * deep inside names its path, e.g. `notificationConfig.slack.channel`); every ruleConfig problem
 * is under the one key `ruleConfig`: the rule test's validationErrors, in order, joined with `; `.
 * - create: full check, defaults applied, ruleConfig normalised.
 * - update: `current` is the stored rule; a new ruleType or ruleConfig is validated as the pair
 *   that will run, and `value.ruleConfig` is then the normalised config; a new notificationChannels
 *   or notificationConfig is validated merged with the stored other one.
 * - test: the body's shape only; ruleConfig content is judged by testRule (a 200 result).
 */
export function checkRuleBody(kind: 'create', body: unknown): RuleBodyCheck<RuleCreateInput>;
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
): RuleBodyCheck<RuleCreateInput | RuleUpdateInput | (RuleTestInput & RuleTestBody)> {
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
