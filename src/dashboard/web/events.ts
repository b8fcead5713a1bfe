/**
 * @module Events: the stored events newest first, page by page, optionally of one type; one event's
 * JSON; and a form that sends a test event (keys that may ingest: admin).
 */
import { html } from 'htm/preact';
import { useState } from 'preact/hooks';
import type { VNode } from 'preact';
import { describeError } from './api.ts';
import { ErrorLine, SelectField, Table, TextField, useLoad } from './fields.ts';
import { time } from './format.ts';
import type { Page } from './page.ts';
import { Pager } from './pager.ts';
import { isAdmin, type Session } from './session.ts';
import { SEVERITIES, type EventRecord } from '../../domain/event.ts';

const PAGE_SIZE = 20;
const HEADERS = ['Event', 'Type', 'Source', 'Severity', 'User', 'Received'];

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
    <${TextField} label="Type" name="eventType" value=${eventType} onValue=${setEventType} />
    <${TextField} label="Source" name="source" value=${source} onValue=${setSource} />
    <${SelectField}
      label="Severity"
      name="severity"
      value=${severity}
      onValue=${setSeverity}
      options=${SEVERITIES}
    />
    <button type="submit">Send</button>
    ${note === '' ? '' : html`<p class="note" role="status">${note}</p>`}
  </form>`;
}

function EventRow(props: { ev: EventRecord; selected: boolean; onSelect: () => void }): VNode {
  const { ev } = props;
  return html`<tr data-event=${ev.eventId} class=${props.selected ? 'selected' : ''}>
    <td><button type="button" class="link" onClick=${props.onSelect}>${ev.eventId}</button></td>
    <td>${ev.eventType}</td>
    <td>${ev.source}</td>
    <td>${ev.severity}</td>
    <td>${ev.userId ?? ''}</td>
    <td>${time(ev.receivedAt)}</td>
  </tr>`;
}

export function Events({ session }: { session: Session }): VNode {
  const [page, setPage] = useState(0);
  const [type, setType] = useState('');
  const [selected, setSelected] = useState<EventRecord | null>(null);
  const { data, error, reload } = useLoad(() => {
    const base = type === '' ? '/api/v1/events' : `/api/v1/events/type/${encodeURIComponent(type)}`;
    return session.api.get<Page<EventRecord>>(`${base}?page=${page}&size=${PAGE_SIZE}`);
  }, [session, page, type]);
  const byType = (value: string): void => {
    setType(value.trim());
    setPage(0);
  };
  return html`<div class="view events">
    <h2>Events</h2>
    <div class="filters">
      <${TextField} label="Type" name="type" value=${type} placeholder="any" onValue=${byType} />
      <button type="button" onClick=${reload}>Refresh</button>
    </div>
    <${ErrorLine} error=${error} />
    ${
      data === null
        ? html`<p class="muted">Loading…</p>`
        : html`<${Table} label="Events" headers=${HEADERS}>
              ${data.content.map(
                (ev) =>
                  html`<${EventRow}
                    key=${ev.eventId}
                    ev=${ev}
                    selected=${selected?.eventId === ev.eventId}
                    onSelect=${() => setSelected(ev)}
                  />`,
              )}
            <//>
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
    ${isAdmin(session) ? html`<${SendEvent} session=${session} onSent=${reload} />` : ''}
  </div>`;
}
