/**
 * @module Events: the stored events newest first, page by page, optionally of one type; one event's
 * JSON; and a form that sends a test event (keys that may ingest: admin).
 */
import { html } from 'htm/preact';
import { useCallback, useEffect, useState } from 'preact/hooks';
import type { VNode } from 'preact';
import { describeError } from './api.ts';
import { time } from './format.ts';
import type { Page } from './page.ts';
import { Pager } from './pager.ts';
import { isAdmin, type Session } from './session.ts';
import type { EventRecord } from '../../domain/event.ts';
import { SEVERITIES } from '../../domain/event.ts';

const PAGE_SIZE = 20;

function SendEvent({ session, onSent }: { session: Session; onSent: () => void }): VNode {
  const [eventType, setEventType] = useState('dashboard.test');
  const [source, setSource] = useState('dashboard');
  const [severity, setSeverity] = useState('INFO');
  const [note, setNote] = useState('');
  const send = (e: Event): void => {
    e.preventDefault();
    session.api.send<{ eventId: string }>('/api/v1/events', { eventType, source, severity }).then(
      (ack) => {
        setNote(`Stored as ${ack.eventId}`);
        onSent();
      },
      (error: unknown) => setNote(describeError(error)),
    );
  };
  return html`<form class="send-event" onSubmit=${send} aria-label="Send a test event">
    <h3>Send a test event</h3>
    <label
      >Type
      <input
        name="eventType"
        value=${eventType}
        onInput=${(e: Event) => setEventType((e.target as HTMLInputElement).value)}
    /></label>
    <label
      >Source
      <input
        name="source"
        value=${source}
        onInput=${(e: Event) => setSource((e.target as HTMLInputElement).value)}
    /></label>
    <label
      >Severity
      <select
        name="severity"
        value=${severity}
        onChange=${(e: Event) => setSeverity((e.target as HTMLSelectElement).value)}
      >
        ${SEVERITIES.map((s) => html`<option>${s}</option>`)}
      </select></label
    >
    <button type="submit">Send</button>
    ${note === '' ? '' : html`<p class="note" role="status">${note}</p>`}
  </form>`;
}

export function Events({ session }: { session: Session }): VNode {
  const [page, setPage] = useState(0);
  const [type, setType] = useState('');
  const [data, setData] = useState<Page<EventRecord> | null>(null);
  const [selected, setSelected] = useState<EventRecord | null>(null);
  const [error, setError] = useState('');
  const load = useCallback(() => {
    const base = type === '' ? '/api/v1/events' : `/api/v1/events/type/${encodeURIComponent(type)}`;
    session.api.get<Page<EventRecord>>(`${base}?page=${page}&size=${PAGE_SIZE}`).then(
      (result) => {
        setData(result);
        setError('');
      },
      (e: unknown) => setError(describeError(e)),
    );
  }, [session, page, type]);
  useEffect(load, [load]);
  return html`<div class="view events">
    <h2>Events</h2>
    <div class="filters">
      <label
        >Type
        <input
          name="type"
          value=${type}
          placeholder="any"
          onChange=${(e: Event) => {
            setType((e.target as HTMLInputElement).value.trim());
            setPage(0);
          }}
      /></label>
      <button type="button" onClick=${load}>Refresh</button>
    </div>
    ${error === '' ? '' : html`<p class="error" role="alert">${error}</p>`}
    ${
      data === null
        ? html`<p class="muted">Loading…</p>`
        : html`<div class="table-wrap">
              <table aria-label="Events">
                <thead>
                  <tr>
                    <th>Event</th>
                    <th>Type</th>
                    <th>Source</th>
                    <th>Severity</th>
                    <th>User</th>
                    <th>Received</th>
                  </tr>
                </thead>
                <tbody>
                  ${data.content.map(
                    (ev) =>
                      html`<tr
                        key=${ev.eventId}
                        data-event=${ev.eventId}
                        class=${selected?.eventId === ev.eventId ? 'selected' : ''}
                      >
                        <td>
                          <button type="button" class="link" onClick=${() => setSelected(ev)}>
                            ${ev.eventId}
                          </button>
                        </td>
                        <td>${ev.eventType}</td>
                        <td>${ev.source}</td>
                        <td>${ev.severity}</td>
                        <td>${ev.userId ?? ''}</td>
                        <td>${time(ev.receivedAt)}</td>
                      </tr>`,
                  )}
                </tbody>
              </table>
            </div>
            <${Pager} page=${data} onPage=${setPage} />`
    }
    ${
      selected === null
        ? ''
        : html`<section class="panel" aria-label="Event JSON">
            <h3>${selected.eventId}</h3>
            <pre class="json">${JSON.stringify(selected, null, 2)}</pre>
          </section>`
    }
    ${isAdmin(session) ? html`<${SendEvent} session=${session} onSent=${load} />` : ''}
  </div>`;
}
