/**
 * @module SockJS framing (sockjs-protocol 0.3.3): the frames the server sends (`o`, `h`,
 * `a[...]`, `c[code,"reason"]`) and the payloads a client sends (a JSON array of strings, or one
 * string). Pure.
 */
export const OPEN_FRAME = 'o';
export const HEARTBEAT_FRAME = 'h';

/**
 * Characters some browsers and proxies mangle, written as \uXXXX as the protocol requires;
 * JSON.stringify escapes only the control characters among them.
 */
// eslint-disable-next-line no-control-regex -- the control characters are the point
const UNSAFE = /[\x00-\x1f\u200c-\u200f\u2028-\u202f\u2060-\u206f\ufff0-\uffff]/g;

const escapeUnsafe = (json: string): string =>
  json.replace(UNSAFE, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);

/** `a[...]`: the messages, each one string. */
export function messageFrame(messages: readonly string[]): string {
  return 'a' + escapeUnsafe(JSON.stringify(messages));
}

/** `c[code,"reason"]`: the session is over. */
export function closeFrame(code: number, reason: string): string {
  return 'c' + escapeUnsafe(JSON.stringify([code, reason]));
}

/** What a client sent: its messages, or why the payload is not SockJS. An empty payload is none. */
export type ClientPayload =
  | { readonly ok: true; readonly messages: readonly string[] }
  | { readonly ok: false; readonly reason: string };

export function parseClientPayload(text: string): ClientPayload {
  if (text === '') return { ok: true, messages: [] };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { ok: false, reason: 'Broken JSON encoding.' };
  }
  if (typeof value === 'string') return { ok: true, messages: [value] };
  if (Array.isArray(value) && value.every((m) => typeof m === 'string')) {
    return { ok: true, messages: value };
  }
  return { ok: false, reason: 'Expected a JSON array of strings.' };
}
