/**
 * @module A rule's state now, as the evaluator holds it (GET /api/v1/rules/{id}/status): OK,
 * PENDING, FIRING, LEARNING or DEGRADED; "–" for a rule that is not evaluated (not ACTIVE). A
 * PENDING rule held back by its suppression window looks healthy on the status column alone.
 */
import { html } from 'htm/preact';
import type { VNode } from 'preact';
import { useLoad } from './fields.ts';
import type { Session } from './session.ts';
import type { RuleRecord } from '../../domain/rules/rule.ts';

interface RuleStatus {
  readonly evaluated: boolean;
  readonly state: string | null;
  /** PENDING: why it waits (pending since ..., suppressed until ...), when the server says. */
  readonly reason?: string;
}

export function RuleState({ session, rule }: { session: Session; rule: RuleRecord }): VNode {
  const { data, error } = useLoad(
    () => session.api.get<RuleStatus>(`/api/v1/rules/${rule.id}/status`),
    // The list reloads after each action: a changed status or version reads the state again.
    [session, rule.id, rule.status, rule.version],
  );
  if (error !== '') return html`<span class="muted" title=${error}>?</span>`;
  const state = data?.state ?? null;
  if (state === null) return html`<span class="muted" data-rule-state="none">–</span>`;
  return html`<span
      class=${`badge state-${state.toLowerCase()}`}
      data-rule-state=${state}
      title=${data?.reason ?? ''}
      >${state}</span
    >${data?.reason === undefined ? '' : html`<br /><span class="muted">${data.reason}</span>`}`;
}
