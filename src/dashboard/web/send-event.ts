/** @module A form under the explorer that sends a test event (keys that may ingest: admin). */
import { html } from 'htm/preact';
import { useState } from 'preact/hooks';
import type { VNode } from 'preact';
import { describeError } from './api.ts';
import { SelectField, TextField } from './fields.ts';
import type { Session } from './session.ts';
import { SEVERITIES } from '../../domain/event.ts';

export function SendEvent({ session, onSent }: { session: Session; onSent: () => void }): VNode {
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
