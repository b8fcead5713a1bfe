/**
 * @module Message templates (issue 17): a contact point's or a rule's `template` replaces the
 * alert's `message` in what a channel sends (the webhook body's `message`, the Slack message's
 * text section, the e-mail's `Message:` line). Placeholders in braces name fields of the alert;
 * an unknown one is refused on write, with a did-you-mean. Pure.
 */
import type { AlertPayload } from './alert.ts';
import { suggest } from '../../suggest.ts';

export const MAX_TEMPLATE_LENGTH = 2000;

const FIELDS = {
  ruleName: (a: AlertPayload) => a.ruleName,
  ruleId: (a: AlertPayload) => String(a.ruleId),
  ruleVersion: (a: AlertPayload) => String(a.ruleVersion),
  severity: (a: AlertPayload) => a.severity,
  triggeredAt: (a: AlertPayload) => a.triggeredAt,
  conditions: (a: AlertPayload) => a.matchedConditions.join(', '),
  message: (a: AlertPayload) => a.message,
  alertId: (a: AlertPayload) => String(a.id),
} as const;
export const TEMPLATE_FIELDS = Object.keys(FIELDS) as readonly (keyof typeof FIELDS)[];

const PLACEHOLDER = /\{([^{}]*)\}/g;
// eslint-disable-next-line no-control-regex -- control characters are exactly what this looks for
const CONTROL_BUT_LINES = /[\u0000-\u0008\u000b-\u001f\u007f]/;

const isField = (name: string): name is keyof typeof FIELDS => Object.hasOwn(FIELDS, name);

/** Why `value` is not a template, or undefined. `at` is its field path. */
export function templateProblem(at: string, value: unknown): string | undefined {
  if (typeof value !== 'string' || value.length === 0 || value.length > MAX_TEMPLATE_LENGTH) {
    return `${at} must be a string of 1 to ${MAX_TEMPLATE_LENGTH} characters`;
  }
  if (CONTROL_BUT_LINES.test(value)) {
    return `${at} must not contain control characters other than line breaks and tabs`;
  }
  for (const [, name = ''] of value.matchAll(PLACEHOLDER)) {
    if (isField(name)) continue;
    const guess = suggest(name, TEMPLATE_FIELDS);
    return (
      `${at}: unknown placeholder {${name.slice(0, 50)}} (known: ${TEMPLATE_FIELDS.join(', ')})` +
      (guess === null ? '' : `. Did you mean {${guess}}?`)
    );
  }
  return undefined;
}

/** The alert with its message replaced by `template` rendered; unchanged without a template. */
export function applyTemplate<A extends AlertPayload>(alert: A, template: unknown): A {
  if (typeof template !== 'string') return alert;
  const message = template.replace(PLACEHOLDER, (whole, name: string) =>
    isField(name) ? FIELDS[name](alert) : whole,
  );
  return { ...alert, message };
}
