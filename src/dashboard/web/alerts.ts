/**
 * @module Alerts: the open (FIRING) incidents first (severity, rule, how long, why), then the
 * resolved ones with filters (severity, rule, time) and pages: each alert in one table only. Both
 * reload when /topic/alerts says something changed. Admin keys may acknowledge a FIRING alert.
 */
import { html } from 'htm/preact';
import { useEffect, useState } from 'preact/hooks';
import type { VNode } from 'preact';
import { describeError } from './api.ts';
import { ErrorLine, SelectField, Table, useLoad } from './fields.ts';
import { duration, time } from './format.ts';
import type { Live } from './live.ts';
import type { Page } from './page.ts';
import { Pager } from './pager.ts';
import { isAdmin, type Session } from './session.ts';
import type { AlertRecord } from '../../domain/rules/alerts/alert.ts';
import type { RuleRecord } from '../../domain/rules/rule.ts';
import { RULE_SEVERITIES } from '../../domain/rules/rule-types.ts';

const PAGE_SIZE = 20;
const HEADERS = ['State', 'Severity', 'Rule', 'Fired', 'Duration', 'Explanation', ''];
const ANY = [['', 'any'] as const];
/** The history's time filter: resolved alerts that fired within this far back. */
const SINCE = [
  ['', 'any time'],
  ['3600000', 'last hour'],
  ['86400000', 'last 24 hours'],
  ['604800000', 'last 7 days'],
] as const;

interface RowProps {
  readonly alert: AlertRecord;
  readonly session: Session;
  readonly onChange: () => void;
}

function AlertRow({ alert, session, onChange }: RowProps): VNode {
  const [error, setError] = useState('');
  const acknowledge = (): void => {
    session.api
      .send(`/api/v1/alerts/${alert.id}/acknowledge`, { by: session.label })
      .then(onChange, (e: unknown) => setError(describeError(e)));
  };
  const end = alert.resolvedAt === null ? Date.now() : Date.parse(alert.resolvedAt);
  const resolved =
    alert.resolvedReason === null
      ? ''
      : html`<br /><span class="muted">resolved: ${alert.resolvedReason}</span>`;
  const ack =
    alert.acknowledgedAt !== null
      ? html`<span class="muted">ack by ${alert.acknowledgedBy}</span>`
      : isAdmin(session) && alert.state === 'FIRING'
        ? html`<button type="button" onClick=${acknowledge}>Acknowledge</button>`
        : '';
  return html`<tr data-alert=${alert.id} data-state=${alert.state}>
    <td><span class=${`badge state-${alert.state.toLowerCase()}`}>${alert.state}</span></td>
    <td><span class=${`badge sev-${alert.severity.toLowerCase()}`}>${alert.severity}</span></td>
    <td>${alert.ruleName}</td>
    <td>${time(alert.firedAt)}</td>
    <td>${duration(end - Date.parse(alert.firedAt))}</td>
    <td class="explanation">${alert.explanationText}${resolved}</td>
    <td>${ack}<${ErrorLine} error=${error} /></td>
  </tr>`;
}

function AlertTable(props: {
  alerts: readonly AlertRecord[];
  session: Session;
  onChange: () => void;
  label: string;
}): VNode {
  if (props.alerts.length === 0) return html`<p class="muted">None</p>`;
  return html`<${Table} label=${props.label} headers=${HEADERS}>
    ${props.alerts.map(
      (a) =>
        html`<${AlertRow}
          key=${a.id}
          alert=${a}
          session=${props.session}
          onChange=${props.onChange}
        />`,
    )}
  <//>`;
}

export function Alerts({ session, live }: { session: Session; live: Live }): VNode {
  const [page, setPage] = useState(0);
  const [severity, setSeverity] = useState('');
  const [ruleId, setRuleId] = useState('');
  const [since, setSince] = useState('');
  const rules = useLoad(() => session.api.get<RuleRecord[]>('/api/v1/rules'), [session]);
  const filter = (set: (value: string) => void) => (value: string) => {
    set(value);
    setPage(0);
  };
  const { data, error, reload } = useLoad(() => {
    // FIRING ones are in the open table: the history holds the RESOLVED only.
    const query = new URLSearchParams({
      state: 'RESOLVED',
      page: String(page),
      size: String(PAGE_SIZE),
    });
    if (severity !== '') query.set('severity', severity);
    if (ruleId !== '') query.set('ruleId', ruleId);
    if (since !== '') query.set('from', new Date(Date.now() - Number(since)).toISOString());
    return Promise.all([
      session.api.get<Page<AlertRecord>>('/api/v1/alerts?state=FIRING&size=100'),
      session.api.get<Page<AlertRecord>>(`/api/v1/alerts?${query.toString()}`),
    ]);
  }, [session, page, severity, ruleId, since]);
  // A message may be of a rule the filter does not list yet: read both again.
  const reloadRules = rules.reload;
  useEffect(
    () =>
      live.onAlert(() => {
        reload();
        reloadRules();
      }),
    [live, reload, reloadRules],
  );
  const [open, history] = data ?? [null, null];
  const openAlerts = open?.content ?? [];
  return html`<div class="view alerts">
    <h2>Alerts</h2>
    <${ErrorLine} error=${error} />
    <section aria-labelledby="open-alerts">
      <h3 id="open-alerts">Open (${openAlerts.length})</h3>
      <${AlertTable}
        label="Open alerts"
        alerts=${openAlerts}
        session=${session}
        onChange=${reload}
      />
    </section>
    <section aria-labelledby="alert-history">
      <h3 id="alert-history">Resolved</h3>
      <div class="filters">
        <${SelectField}
          label="Rule"
          name="ruleId"
          value=${ruleId}
          onValue=${filter(setRuleId)}
          options=${[...ANY, ...(rules.data ?? []).map((r) => [String(r.id), r.name] as const)]}
        />
        <${SelectField}
          label="Fired"
          name="since"
          value=${since}
          onValue=${filter(setSince)}
          options=${SINCE}
        />
        <${SelectField}
          label="Severity"
          name="severity"
          value=${severity}
          onValue=${filter(setSeverity)}
          options=${[...ANY, ...RULE_SEVERITIES]}
        />
      </div>
      ${
        history === null
          ? ''
          : html`<${AlertTable}
                label="Alert history"
                alerts=${history.content}
                session=${session}
                onChange=${reload}
              />
              <${Pager} page=${history} onPage=${setPage} />`
      }
    </section>
  </div>`;
}
