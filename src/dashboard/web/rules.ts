/**
 * @module Rules: every rule with its status, severity and when it last fired; admin keys enable,
 * disable and archive, and open the editor; any key runs the rule test of a stored rule.
 */
import { html } from 'htm/preact';
import { useCallback, useEffect, useState } from 'preact/hooks';
import type { VNode } from 'preact';
import { describeError } from './api.ts';
import { count } from './format.ts';
import { RuleEditor } from './rule-editor.ts';
import { isAdmin, type Session } from './session.ts';
import type { RuleRecord } from '../../domain/rules/rule.ts';

type Action = 'enable' | 'disable' | 'archive';

/** Rules store UTC date-times without a zone (rule.ts). */
const utc = (value: string | null): string =>
  value === null ? 'never' : new Date(value.endsWith('Z') ? value : `${value}Z`).toLocaleString();

function RuleRow({
  rule,
  session,
  onChange,
  onEdit,
}: {
  rule: RuleRecord;
  session: Session;
  onChange: () => void;
  onEdit: () => void;
}): VNode {
  const [note, setNote] = useState('');
  const act = (action: Action) => () => {
    session.api
      .send(`/api/v1/rules/${rule.id}/${action}`)
      .then(onChange, (e: unknown) => setNote(describeError(e)));
  };
  const test = (): void => {
    session.api.send<{ message: string }>(`/api/v1/rules/test/${rule.id}`).then(
      (r) => setNote(r.message),
      (e: unknown) => setNote(describeError(e)),
    );
  };
  return html`<tr data-rule=${rule.id} data-status=${rule.status}>
    <td>${rule.name}</td>
    <td>${rule.ruleType}</td>
    <td><span class=${`badge status-${rule.status.toLowerCase()}`}>${rule.status}</span></td>
    <td><span class=${`badge sev-${rule.severity.toLowerCase()}`}>${rule.severity}</span></td>
    <td>${utc(rule.lastTriggeredAt)} (${count(rule.triggerCount)})</td>
    <td class="row-actions">
      <button type="button" onClick=${test}>Test</button>
      ${
        isAdmin(session)
          ? html`${
                rule.status === 'ACTIVE'
                  ? html`<button type="button" onClick=${act('disable')}>Disable</button>`
                  : html`<button type="button" onClick=${act('enable')}>Enable</button>`
              }
              ${rule.status === 'ARCHIVED' ? '' : html`<button type="button" onClick=${act('archive')}>Archive</button>`}
              <button type="button" onClick=${onEdit}>Edit</button>`
          : ''
      }
      ${note === '' ? '' : html`<p class="note">${note}</p>`}
    </td>
  </tr>`;
}

export function Rules({ session }: { session: Session }): VNode {
  const [rules, setRules] = useState<readonly RuleRecord[] | null>(null);
  const [error, setError] = useState('');
  /** undefined: the list; null: a new rule; a rule: editing it. */
  const [editing, setEditing] = useState<RuleRecord | null | undefined>(undefined);
  const load = useCallback(() => {
    session.api.get<RuleRecord[]>('/api/v1/rules').then(
      (list) => {
        setRules(list);
        setError('');
      },
      (e: unknown) => setError(describeError(e)),
    );
  }, [session]);
  useEffect(load, [load]);
  if (editing !== undefined)
    return html`<${RuleEditor}
      session=${session}
      rule=${editing}
      onDone=${() => {
        setEditing(undefined);
        load();
      }}
    />`;
  return html`<div class="view rules">
    <h2>Rules</h2>
    <div class="actions">
      <button type="button" class="primary" onClick=${() => setEditing(null)}>
        ${isAdmin(session) ? 'New rule' : 'Try a rule'}
      </button>
    </div>
    ${error === '' ? '' : html`<p class="error" role="alert">${error}</p>`}
    ${
      rules === null
        ? html`<p class="muted">Loading…</p>`
        : rules.length === 0
          ? html`<p class="muted">No rules yet</p>`
          : html`<div class="table-wrap">
              <table aria-label="Rules">
                <thead>
                  <tr>
                    <th>Name</th>
                    <th>Type</th>
                    <th>Status</th>
                    <th>Severity</th>
                    <th>Last fired (times)</th>
                    <th></th>
                  </tr>
                </thead>
                <tbody>
                  ${rules.map((r) => html`<${RuleRow} key=${r.id} rule=${r} session=${session} onChange=${load} onEdit=${() => setEditing(r)} />`)}
                </tbody>
              </table>
            </div>`
    }
  </div>`;
}
