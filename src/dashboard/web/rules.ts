/**
 * @module Rules: every rule with its status, severity and when it last fired; admin keys enable,
 * disable and archive, and open the editor; any key runs the rule test of a stored rule, and its
 * backtest (by id, as stored: the only way for ANOMALY and PATTERN, which the editor does not edit).
 */
import { html } from 'htm/preact';
import { useState } from 'preact/hooks';
import type { VNode } from 'preact';
import { describeError } from './api.ts';
import { ErrorLine, Table, useLoad } from './fields.ts';
import { count } from './format.ts';
import { Backtest } from './backtest.ts';
import { prefillOfHash, RuleEditor } from './rule-editor.ts';
import { RuleState } from './rule-state.ts';
import { isAdmin, type Session } from './session.ts';
import type { RuleRecord } from '../../domain/rules/rule.ts';
import { CONDITION_RULE_TYPES } from '../../domain/rules/rule-types.ts';

type Action = 'enable' | 'disable' | 'archive';
const HEADERS = ['Name', 'Type', 'Status', 'State now', 'Severity', 'Last fired (times)', ''];

/** Rules store UTC date-times without a zone (rule.ts). */
const utc = (value: string | null): string =>
  value === null ? 'never' : new Date(value.endsWith('Z') ? value : `${value}Z`).toLocaleString();

interface RowProps {
  readonly rule: RuleRecord;
  readonly session: Session;
  readonly onChange: () => void;
  readonly onEdit: () => void;
  readonly onBacktest: () => void;
}

function RuleRow({ rule, session, onChange, onEdit, onBacktest }: RowProps): VNode {
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
  const button = (label: string, onClick: () => void): VNode =>
    html`<button type="button" onClick=${onClick}>${label}</button>`;
  const admin = isAdmin(session)
    ? [
        rule.status === 'ACTIVE'
          ? button('Disable', act('disable'))
          : button('Enable', act('enable')),
        rule.status === 'ARCHIVED' ? '' : button('Archive', act('archive')),
        // The editor edits condition trees; a PATTERN config is edited through the API.
        CONDITION_RULE_TYPES.has(rule.ruleType) ? button('Edit', onEdit) : '',
      ]
    : [];
  return html`<tr data-rule=${rule.id} data-status=${rule.status}>
    <td>${rule.name}</td>
    <td>${rule.ruleType}</td>
    <td><span class=${`badge status-${rule.status.toLowerCase()}`}>${rule.status}</span></td>
    <td><${RuleState} session=${session} rule=${rule} /></td>
    <td><span class=${`badge sev-${rule.severity.toLowerCase()}`}>${rule.severity}</span></td>
    <td>${utc(rule.lastTriggeredAt)} (${count(rule.triggerCount)})</td>
    <td class="row-actions">
      ${button('Test', test)} ${button('Backtest', onBacktest)} ${admin}
      ${note === '' ? '' : html`<p class="note">${note}</p>`}
    </td>
  </tr>`;
}

export function Rules({ session }: { session: Session }): VNode {
  /** undefined: the list; null: a new rule; a rule: editing it. */
  // The explorer's "Make a rule from this" opens a new rule prefilled (`#/rules?new=1&...`).
  const [prefill] = useState(() => prefillOfHash(location.hash));
  const [editing, setEditing] = useState<RuleRecord | null | undefined>(
    prefill === null ? undefined : null,
  );
  /** The stored rule whose backtest is open above the list, or null. */
  const [backtesting, setBacktesting] = useState<RuleRecord | null>(null);
  const rules = useLoad(() => session.api.get<RuleRecord[]>('/api/v1/rules'), [session]);
  if (editing !== undefined) {
    const done = (): void => {
      setEditing(undefined);
      // The prefill was for one editor: a reload shows the list.
      if (location.hash.includes('?')) history.replaceState(null, '', '#/rules');
      rules.reload();
    };
    return html`<${RuleEditor}
      session=${session}
      rule=${editing}
      prefill=${editing === null ? prefill : null}
      onDone=${done}
    />`;
  }
  const list = rules.data;
  return html`<div class="view rules">
    <h2>Rules</h2>
    <div class="actions">
      <button type="button" class="primary" onClick=${() => setEditing(null)}>
        ${isAdmin(session) ? 'New rule' : 'Try a rule'}
      </button>
    </div>
    <${ErrorLine} error=${rules.error} />
    ${
      backtesting === null
        ? ''
        : html`<div class="stored-backtest" data-rule=${backtesting.id}>
            <p>
              ${`${backtesting.name} (${backtesting.ruleType}), replayed as stored.`}
              <button type="button" onClick=${() => setBacktesting(null)}>Close</button>
            </p>
            <${Backtest}
              key=${backtesting.id}
              session=${session}
              rule=${null}
              ruleId=${backtesting.id}
            />
          </div>`
    }
    ${
      list === null
        ? html`<p class="muted">Loading…</p>`
        : list.length === 0
          ? html`<p class="muted">No rules yet</p>`
          : html`<${Table} label="Rules" headers=${HEADERS}>
              ${list.map(
                (r) =>
                  html`<${RuleRow}
                    key=${r.id}
                    rule=${r}
                    session=${session}
                    onChange=${rules.reload}
                    onEdit=${() => setEditing(r)}
                    onBacktest=${() => setBacktesting(r)}
                  />`,
              )}
            <//>`
    }
  </div>`;
}
