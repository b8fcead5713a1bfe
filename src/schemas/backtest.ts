/**
 * @module POST /api/v1/rules/backtest: the body's schema (for the OpenAPI document) and its check,
 * each problem named by its field: the rule (a body as for create, with create's own messages
 * under `rule.<field>`, or a stored rule's id) and the range (at most MAX_BACKTEST_MS, in the past).
 */
import { Type, type Static } from '@sinclair/typebox';
import { MAX_BACKTEST_MS } from '../domain/rules/backtest/backtest-result.ts';
import type { RuleFields } from '../domain/rules/rule.ts';
import { checkRuleBody, RuleCreateBody } from './rule.ts';

const Instant = Type.Union([Type.String({ format: 'date-time' }), Type.Integer({ minimum: 0 })], {
  description: 'An ISO 8601 instant with its zone, or epoch ms',
});

export const BacktestBody = Type.Object(
  {
    rule: Type.Optional(RuleCreateBody),
    ruleId: Type.Optional(
      Type.Integer({
        minimum: 1,
        description:
          'A stored rule to replay; with `rule` too, the draft is replayed as that rule (its silences apply)',
      }),
    ),
    from: Instant,
    to: Instant,
  },
  { additionalProperties: false },
);
export type BacktestBody = Static<typeof BacktestBody>;

export interface BacktestRequest {
  /** The rule to replay, validated as create validates it; null: the stored rule of `ruleId`. */
  readonly rule: RuleFields | null;
  readonly ruleId: number | null;
  readonly from: number;
  readonly to: number;
}

const KNOWN = new Set(['rule', 'ruleId', 'from', 'to']);
const DAY_MS = 86_400_000;

/** ISO 8601 with a zone (Z or ±hh:mm), or whole epoch ms. */
function instantOf(value: unknown): number | null {
  if (typeof value === 'number') return Number.isSafeInteger(value) && value >= 0 ? value : null;
  if (typeof value !== 'string' || !/(Z|[+-]\d{2}:?\d{2})$/i.test(value)) return null;
  const ms = Date.parse(value);
  return Number.isNaN(ms) ? null : ms;
}

export type BacktestCheck =
  | { readonly ok: true; readonly value: BacktestRequest }
  | { readonly ok: false; readonly errors: Record<string, string> };

/** `now`: the request's time (`to` may not be later: there is nothing stored after it). */
export function checkBacktestBody(body: unknown, now: number): BacktestCheck {
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    return { ok: false, errors: { body: 'must be a JSON object' } };
  const input = body as Record<string, unknown>;
  const errors: Record<string, string> = {};
  for (const key of Object.keys(input))
    if (!KNOWN.has(key)) errors[key] = 'is not a field of a backtest: rule, ruleId, from, to';

  let rule: RuleFields | null = null;
  if (input.rule !== undefined) {
    const checked = checkRuleBody('create', input.rule);
    if (checked.ok) rule = checked.value;
    else
      for (const [field, message] of Object.entries(checked.errors))
        errors[`rule.${field}`] = message;
  }
  let ruleId: number | null = null;
  if (input.ruleId !== undefined) {
    if (Number.isSafeInteger(input.ruleId) && (input.ruleId as number) >= 1)
      ruleId = input.ruleId as number;
    else errors.ruleId = 'must be a positive integer (the id of a stored rule)';
  }
  if (input.rule === undefined && input.ruleId === undefined)
    errors.rule = 'give a rule body (as for POST /api/v1/rules) or a ruleId';

  const from = instantOf(input.from);
  const to = instantOf(input.to);
  const instant = 'must be an ISO 8601 instant with its zone (2026-01-31T12:00:00Z) or epoch ms';
  if (from === null) errors.from = input.from === undefined ? 'is required' : instant;
  else if (from >= now) errors.from = 'must be in the past: only stored events are replayed';
  if (to === null) errors.to = input.to === undefined ? 'is required' : instant;
  else if (from !== null && to <= from) errors.to = 'must be after from';
  else if (from !== null && to - from > MAX_BACKTEST_MS)
    errors.to = `must be at most ${MAX_BACKTEST_MS / DAY_MS} days after from (the range is ${((to - from) / DAY_MS).toFixed(2)} days)`;

  if (Object.keys(errors).length > 0) return { ok: false, errors };
  // Nothing is stored after now: the replay ends there.
  return {
    ok: true,
    value: { rule, ruleId, from: from as number, to: Math.min(to as number, now) },
  };
}
