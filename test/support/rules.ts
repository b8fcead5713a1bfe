/**
 * Helpers for the rule API tests: the Rule of spec 2.5 as a strict schema (every answer is checked
 * against it), request shortcuts, and the stored row read straight from PostgreSQL.
 */
import { createHash } from 'node:crypto';
import { type Static, type TSchema, Type } from '@sinclair/typebox';
import { readAs } from './events.ts';
import type { TestDatabase } from './database.ts';
import type { TestService } from './service.ts';

/** DESIGN 6: UTC local date-time with milliseconds and no zone. */
export const LOCAL_DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}$/;

const enumOf = <T extends string>(values: readonly T[]) =>
  Type.Union(values.map((v) => Type.Literal(v)));
const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);
const LocalTime = Type.String({ pattern: LOCAL_DATE_TIME.source });

export const RULE_TYPES = ['THRESHOLD', 'RATE_CHANGE', 'ANOMALY', 'PATTERN'] as const;
export const RULE_STATUSES = ['ACTIVE', 'PAUSED', 'ARCHIVED'] as const;

/** Spec 2.5, field for field: nothing missing, nothing more. */
export const RuleSchema = Type.Object(
  {
    id: Type.Integer({ minimum: 1 }),
    name: Type.String(),
    description: Nullable(Type.String()),
    ruleType: enumOf(RULE_TYPES),
    status: enumOf(RULE_STATUSES),
    ruleConfig: Type.Record(Type.String(), Type.Unknown()),
    generatedDrl: Type.String({ minLength: 1 }),
    drlHash: Type.String({ pattern: '^[0-9a-f]{64}$' }),
    severity: enumOf(['LOW', 'MEDIUM', 'HIGH', 'CRITICAL'] as const),
    priority: Type.Integer(),
    notificationChannels: Type.Array(Type.String()),
    notificationConfig: Nullable(Type.Record(Type.String(), Type.Unknown())),
    suppressionWindowMinutes: Type.Integer(),
    maxAlertsPerHour: Type.Integer(),
    createdBy: Nullable(Type.String()),
    createdAt: LocalTime,
    updatedAt: LocalTime,
    lastTriggeredAt: Nullable(LocalTime),
    triggerCount: Type.Integer({ minimum: 0 }),
    version: Type.Integer({ minimum: 1 }),
  },
  { additionalProperties: false },
);
export type Rule = Static<typeof RuleSchema>;
export const RuleListSchema = Type.Array(RuleSchema);

export const StatisticsSchema = Type.Object(
  {
    totalRules: Type.Integer(),
    activeRules: Type.Integer(),
    pausedRules: Type.Integer(),
    archivedRules: Type.Integer(),
    byType: Type.Object(
      {
        THRESHOLD: Type.Integer(),
        RATE_CHANGE: Type.Integer(),
        ANOMALY: Type.Integer(),
        PATTERN: Type.Integer(),
      },
      { additionalProperties: false },
    ),
  },
  { additionalProperties: false },
);
export type Statistics = Static<typeof StatisticsSchema>;

const SimulationSchema = Type.Object(
  {
    wouldTrigger: Type.Boolean(),
    matchedConditions: Type.Array(Type.String()),
    currentValues: Type.Record(Type.String(), Type.Unknown()),
    explanation: Nullable(Type.Unknown()),
  },
  { additionalProperties: false },
);

/** Spec 2.9, field for field. */
export const TestResultSchema = Type.Object(
  {
    success: Type.Boolean(),
    message: Type.String({ minLength: 1 }),
    compilationStatus: enumOf(['SUCCESS', 'ERROR', 'WARNING'] as const),
    generatedDrl: Nullable(Type.String()),
    validationErrors: Type.Array(Type.String()),
    simulationResult: Nullable(SimulationSchema),
    recommendations: Type.Array(Type.String()),
  },
  { additionalProperties: false },
);
export type TestResult = Static<typeof TestResultSchema>;

export const sha256 = (text: string): string =>
  createHash('sha256').update(text, 'utf8').digest('hex');

/** A valid THRESHOLD create body that never triggers without ERROR events. */
export const ruleBody = (
  name: string,
  extra: Record<string, unknown> = {},
): Record<string, unknown> => ({
  name,
  ruleType: 'THRESHOLD',
  ruleConfig: { metric: 'errorRate', operator: 'GREATER_THAN', threshold: 50 },
  severity: 'HIGH',
  ...extra,
});

/** A valid create body for the rule-body checks (threshold 5), `over` replacing fields. */
export const ruleRequest = (over: Record<string, unknown> = {}): Record<string, unknown> => ({
  name: 'High error rate',
  ruleType: 'THRESHOLD',
  ruleConfig: { metric: 'errorRate', operator: 'GREATER_THAN', threshold: 5 },
  severity: 'HIGH',
  ...over,
});

/** A check's errors by field (none when it passed). */
export const ruleErrors = (result: {
  ok: boolean;
  errors?: Record<string, string>;
}): Record<string, string> => (result.ok ? {} : (result.errors ?? {}));

/** The answer's status must be `status` (else this throws with the body); its JSON checked. */
export async function expectJson<S extends TSchema>(
  schema: S,
  res: Response,
  status: number,
): Promise<Static<S>> {
  if (res.status !== status) {
    throw new Error(`expected ${status}, got ${res.status}: ${await res.text()}`);
  }
  try {
    return await readAs(schema, res);
  } catch (error) {
    const message = (error as Error).message;
    throw new Error(message.length > 2000 ? `${message.slice(0, 2000)}...` : message, {
      cause: error,
    });
  }
}

/** A copy of `object` without `keys`. */
export function without<T extends object>(object: T, ...keys: string[]): Partial<T> {
  return Object.fromEntries(
    Object.entries(object).filter(([key]) => !keys.includes(key)),
  ) as Partial<T>;
}

/** Shortcuts on one running service. */
export function rulesApi(svc: TestService) {
  const send = (method: string, path: string, json?: unknown) =>
    svc.request(`/api/v1/rules${path}`, json === undefined ? { method } : { method, json });
  return {
    send,
    create: async (body: unknown): Promise<Rule> =>
      expectJson(RuleSchema, await send('POST', '', body), 201),
    get: async (id: number): Promise<Rule> =>
      expectJson(RuleSchema, await send('GET', `/${id}`), 200),
    put: async (id: number, body: unknown): Promise<Rule> =>
      expectJson(RuleSchema, await send('PUT', `/${id}`, body), 200),
    action: async (id: number, action: 'enable' | 'disable' | 'archive'): Promise<Rule> =>
      expectJson(RuleSchema, await send('POST', `/${id}/${action}`), 200),
    list: async (path = ''): Promise<Rule[]> =>
      expectJson(RuleListSchema, await send('GET', path), 200),
    statistics: async (): Promise<Statistics> =>
      expectJson(StatisticsSchema, await send('GET', '/statistics'), 200),
    test: async (body: unknown): Promise<TestResult> =>
      expectJson(TestResultSchema, await send('POST', '/test', body), 200),
    testStored: async (id: number): Promise<TestResult> =>
      expectJson(TestResultSchema, await send('POST', `/test/${id}`), 200),
  };
}

/** A stored row as PostgreSQL has it, every column as text: equal rows are equal byte for byte. */
export async function storedRow(
  db: TestDatabase,
  id: number,
): Promise<Record<string, string> | null> {
  const rows = await db.sql<{ row: Record<string, string> }[]>`
    SELECT json_object_agg(key, value) AS row
    FROM rules r, jsonb_each_text(to_jsonb(r)) WHERE r.id = ${id}`;
  return rows[0]?.row ?? null;
}

/** The three times of a stored row as the API must write them (UTC, ms, no zone). */
export async function storedTimes(
  db: TestDatabase,
  id: number,
): Promise<{ createdAt: string; updatedAt: string; lastTriggeredAt: string | null }> {
  const format = 'YYYY-MM-DD"T"HH24:MI:SS.MS';
  const [row] = await db.sql<
    { created_at: string; updated_at: string; last_triggered_at: string | null }[]
  >`
    SELECT to_char(created_at AT TIME ZONE 'UTC', ${format}) AS created_at,
           to_char(updated_at AT TIME ZONE 'UTC', ${format}) AS updated_at,
           to_char(last_triggered_at AT TIME ZONE 'UTC', ${format}) AS last_triggered_at
    FROM rules WHERE id = ${id}`;
  if (row === undefined) throw new Error(`rule ${id} is not stored`);
  return {
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    lastTriggeredAt: row.last_triggered_at,
  };
}
