/**
 * The API key every bench client sends, as a real client holds its key: the test admin
 * key (test/support/keys.ts), which spawnVigil gives every service as VIGIL_BOOTSTRAP_ADMIN_KEY.
 * The one place in bench/ that knows how the key travels: as request headers (fetch, autocannon,
 * the raw-socket clients) and as the STOMP CONNECT passcode. A 401 or 403 is a bench that cannot
 * measure anything, never a figure: every client here stops on the first one, loudly.
 */
import { keyHeaders, TEST_ADMIN_KEY } from '../../test/support/shared.ts';

/** The key's request headers (fetch, autocannon, node:http). */
export const KEY_HEADERS: Readonly<Record<string, string>> = Object.freeze(keyHeaders());

/** The key's headers with a JSON content type, for requests with a body. */
export const JSON_KEY_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  'content-type': 'application/json',
  ...KEY_HEADERS,
});

/** The key's headers as raw HTTP/1.1 header lines, each ending in CRLF. */
export const KEY_HEADER_LINES = Object.entries(KEY_HEADERS)
  .map(([name, value]) => `${name}: ${value}\r\n`)
  .join('');

/** The key as the headers a STOMP CONNECT carries it in. */
export const STOMP_KEY_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  passcode: TEST_ADMIN_KEY,
});

/** 401 (no or unknown key) or 403 (a key without the scope). */
export const keyRefused = (status: number): boolean => status === 401 || status === 403;

/** The error a client stops with when the service refuses the bench's key. */
export const keyRefusedError = (what: string, status: number, body = ''): Error =>
  new Error(
    `${what}: answered ${status}: the service refused the bench's API key ` +
      `(test/support/keys.ts; is it started through spawnVigil?)` +
      (body === '' ? '' : `\n${body.slice(0, 300)}`),
  );

/**
 * In a load-generator process (load-child.ts): says on stderr that the key was refused and exits
 * 1 at once, so the parent's next wait for a message from it fails instead of reading figures.
 */
export function exitRefusedKey(what: string, status: number, body: string): never {
  process.stderr.write(`${keyRefusedError(what, status, body).message}\n`);
  process.exit(1);
}

/** fetch with the key; a 401 or 403 answer throws instead of returning. */
export async function keyedFetch(url: string, init: RequestInit = {}): Promise<Response> {
  const headers = new Headers(init.headers);
  for (const [name, value] of Object.entries(KEY_HEADERS)) headers.set(name, value);
  const response = await fetch(url, { ...init, headers });
  if (keyRefused(response.status)) {
    throw keyRefusedError(`${init.method ?? 'GET'} ${url}`, response.status, await response.text());
  }
  return response;
}
