/**
 * @module The rule editor's condition tree while it is typed: text as typed (a threshold of "5x"
 * stays "5x" so the server can say what is wrong with it), converted to and from ruleConfig.
 */
import type { LogicalOperator } from '../../domain/rules/rule-types.ts';

export interface LeafDraft {
  readonly kind: 'leaf';
  metric: string;
  /** An OperatorName, or whatever a stored config held (the server names what is wrong). */
  operator: string;
  threshold: string;
  /** '' = inherit (the nearest enclosing window, else 5). */
  windowMinutes: string;
}

export interface GroupDraft {
  readonly kind: 'group';
  logicalOperator: LogicalOperator;
  conditions: Draft[];
}

export type Draft = LeafDraft | GroupDraft;

export const newLeaf = (): LeafDraft => ({
  kind: 'leaf',
  metric: 'errorRate',
  operator: 'GREATER_THAN',
  threshold: '5',
  windowMinutes: '',
});

/** A number when the text is one, else the text itself (the server names the problem). */
export const numberOrText = (text: string): number | string => {
  const trimmed = text.trim();
  return trimmed !== '' && Number.isFinite(Number(trimmed)) ? Number(trimmed) : text;
};

export function toConfig(draft: Draft): Record<string, unknown> {
  if (draft.kind === 'group') {
    return { logicalOperator: draft.logicalOperator, conditions: draft.conditions.map(toConfig) };
  }
  return {
    metric: draft.metric,
    operator: draft.operator,
    threshold: numberOrText(draft.threshold),
    ...(draft.windowMinutes.trim() === ''
      ? {}
      : { windowMinutes: numberOrText(draft.windowMinutes) }),
  };
}

const text = (value: unknown): string =>
  typeof value === 'number' || typeof value === 'string' ? String(value) : '';

/** A stored ruleConfig back into a draft (unknown keys are dropped: the editor does not show them). */
export function fromConfig(config: unknown): Draft {
  const c = (config ?? {}) as Record<string, unknown>;
  if (Array.isArray(c.conditions)) {
    return {
      kind: 'group',
      logicalOperator: (c.logicalOperator as LogicalOperator | undefined) ?? 'AND',
      conditions: c.conditions.map(fromConfig),
    };
  }
  return {
    kind: 'leaf',
    metric: text(c.metric),
    operator: text(c.operator),
    threshold: text(c.threshold),
    windowMinutes: text(c.windowMinutes),
  };
}
