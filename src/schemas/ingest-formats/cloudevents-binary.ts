/**
 * @module CloudEvents binary mode (HTTP binding 3.1): the `ce-*` headers and the body, turned into
 * the event's JSON form (its structured mode) so that one mapping serves every mode. Header values
 * are percent-decoded; `Content-Type` is the datacontenttype; the body is the data: JSON for a
 * JSON media type, text for `text/*` or a charset, else base64 (`data_base64`).
 */
import type { Mapped } from './cloudevents.ts';

const PREFIX = 'ce-';
const JSON_MEDIA = /^[\w.+-]+\/(?:[\w.+-]+\+)?json\s*(?:;|$)/i;
const TEXT_MEDIA = /^text\/|;\s*charset=/i;
const utf8 = new TextDecoder('utf-8', { fatal: true });

function decodeHeader(value: string): string | null {
  try {
    return decodeURIComponent(value);
  } catch {
    return null;
  }
}

/** The data of a binary-mode body: [member name, value], or the error of `data`. */
function dataOf(contentType: string, body: Buffer): Mapped<[string, unknown] | null> {
  if (body.length === 0) return { ok: true, value: null };
  const json = contentType === '' || JSON_MEDIA.test(contentType);
  if (!json && !TEXT_MEDIA.test(contentType)) {
    return { ok: true, value: ['data_base64', body.toString('base64')] };
  }
  let text: string;
  try {
    text = utf8.decode(body);
  } catch {
    return { ok: false, errors: { data: 'data is not valid UTF-8 text' } };
  }
  if (!json) return { ok: true, value: ['data', text] };
  try {
    return { ok: true, value: ['data', JSON.parse(text) as unknown] };
  } catch (error) {
    const reason = (error as Error).message;
    return { ok: false, errors: { data: `data is not valid JSON (${reason})` } };
  }
}

/** The event in its JSON form, from the request's headers (lower-case names) and body. */
export function binaryEvent(
  headers: Readonly<Record<string, string>>,
  contentType: string,
  body: Buffer,
): Mapped<Record<string, unknown>> {
  const event: Record<string, unknown> = {};
  const errors: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (!name.startsWith(PREFIX)) continue;
    const attribute = name.slice(PREFIX.length);
    const decoded = decodeHeader(value);
    if (decoded === null) errors[attribute] = `ce-${attribute} holds a malformed percent-encoding`;
    else event[attribute] = decoded;
  }
  if (contentType !== '') event.datacontenttype = contentType;
  const data = dataOf(contentType, body);
  if (!data.ok) Object.assign(errors, data.errors);
  else if (data.value !== null) event[data.value[0]] = data.value[1];
  return Object.keys(errors).length > 0 ? { ok: false, errors } : { ok: true, value: event };
}
