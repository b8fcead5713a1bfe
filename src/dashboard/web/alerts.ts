/**
 * @module Alerts: the open incidents first (state, severity, rule, how long, why), then the history
 * with filters and pages. Both reload when /topic/alerts says something changed. Admin keys may
 * acknowledge.
 */
import { html } from 'htm/preact';
import { useCallback, useEffect, useState } from 'preact/hooks';
import type { VNode } from 'preact';
import { describeError } from './api.ts';
import { duration, time } from './format.ts';
import type { Live } from './live.ts';
import { isAdmin, type Session } from './session.ts';
import type { Page } from './page.ts';
import { Pager } from './pager.ts';
import type { AlertRecord } from '../../domain/rules/alert.ts';
import { RULE_SEVERITIES } from '../../domain/rules/rule-types.ts';

const PAGE_SIZE = 20;

function AlertRow({
  alert,
  session,
  onChange,
}: {
  alert: AlertRecord;
  session: Session;
  onChange: () => void;
}): VNode {
  const [error, setError] = useState('');
  const acknowledge = (): void => {
    session.api
      .send(`/api/v1/alerts/${alert.id}/acknowledge`, { by: session.label })
      .then(onChange, (e: unknown) => setError(describeError(e)));
  };
  const end = alert.resolvedAt === null ? Date.now() : Date.parse(alert.resolvedAt);
  return html`<tr data-alert=${alert.id} data-state=${alert.state}>
    <td><span class=${`badge state-${alert.state.toLowerCase()}`}>${alert.state}</span></td>
    <td><span class=${`badge sev-${alert.severity.toLowerCase()}`}>${alert.severity}</span></td>
    <td>${alert.ruleName}</td>
    <td>${time(alert.firedAt)}</td>
    <td>${duration(end - Date.parse(alert.firedAt))}</td>
    <td class="explanation">
      ${alert.explanationText}${alert.resolvedReason === null ? '' : html`<br /><span class="muted">resolved: ${alert.resolvedReason}</span>`}
    </td>
    <td>
      ${
        alert.acknowledgedAt !== null
          ? html`<span class="muted">ack by ${alert.acknowledgedBy}</span>`
          : isAdmin(session)
            ? html`<button type="button" onClick=${acknowledge}>Acknowledge</button>`
            : ''
      }
      ${error === '' ? '' : html`<p class="error" role="alert">${error}</p>`}
    </td>
  </tr>`;
}

function AlertTable({
  alerts,
  session,
  onChange,
  label,
}: {
  alerts: readonly AlertRecord[];
  session: Session;
  onChange: () => void;
  label: string;
}): VNode {
  if (alerts.length === 0) return html`<p class="muted">None</p>`;
  return html`<div class="table-wrap">
    <table aria-label=${label}>
      <thead>
        <tr>
          <th>State</th>
          <th>Severity</th>
          <th>Rule</th>
          <th>Fired</th>
          <th>Duration</th>
          <th>Explanation</th>
          <th></th>
        </tr>
      </thead>
      <tbody>
        ${alerts.map((a) => html`<${AlertRow} key=${a.id} alert=${a} session=${session} onChange=${onChange} />`)}
      </tbody>
    </table>
  </div>`;
}

export function Alerts({ session, live }: { session: Session; live: Live }): VNode {
  const [open, setOpen] = useState<readonly AlertRecord[]>([]);
  const [history, setHistory] = useState<Page<AlertRecord> | null>(null);
  const [page, setPage] = useState(0);
  const [state, setState] = useState('');
  const [severity, setSeverity] = useState('');
  const [error, setError] = useState('');
  const load = useCallback(() => {
    const filters = new URLSearchParams({ page: String(page), size: String(PAGE_SIZE) });
    if (state !== '') filters.set('state', state);
    if (severity !== '') filters.set('severity', severity);
    Promise.all([
      session.api.get<Page<AlertRecord>>('/api/v1/alerts?state=FIRING&size=100'),
      session.api.get<Page<AlertRecord>>(`/api/v1/alerts?${filters.toString()}`),
    ]).then(
      ([firing, all]) => {
        setOpen(firing.content);
        setHistory(all);
        setError('');
      },
      (e: unknown) => setError(describeError(e)),
    );
  }, [session, page, state, severity]);
  useEffect(load, [load]);
  useEffect(() => live.onAlert(load), [live, load]);
  return html`<div class="view alerts">
    <h2>Alerts</h2>
    ${error === '' ? '' : html`<p class="error" role="alert">${error}</p>`}
    <section aria-labelledby="open-alerts">
      <h3 id="open-alerts">Open (${open.length})</h3>
      <${AlertTable} label="Open alerts" alerts=${open} session=${session} onChange=${load} />
    </section>
    <section aria-labelledby="alert-history">
      <h3 id="alert-history">History</h3>
      <div class="filters">
        <label
          >State
          <select
            value=${state}
            onChange=${(e: Event) => {
              setState((e.target as HTMLSelectElement).value);
              setPage(0);
            }}
          >
            <option value="">any</option>
            <option>FIRING</option>
            <option>RESOLVED</option>
          </select></label
        >
        <label
          >Severity
          <select
            value=${severity}
            onChange=${(e: Event) => {
              setSeverity((e.target as HTMLSelectElement).value);
              setPage(0);
            }}
          >
            <option value="">any</option>
            ${RULE_SEVERITIES.map((s) => html`<option>${s}</option>`)}
          </select></label
        >
      </div>
      ${
        history === null
          ? ''
          : html`<${AlertTable}
                label="Alert history"
                alerts=${history.content}
                session=${session}
                onChange=${load}
              />
              <${Pager} page=${history} onPage=${setPage} />`
      }
    </section>
  </div>`;
}
