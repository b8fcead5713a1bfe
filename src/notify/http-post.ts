/**
 * @module The HTTP side of the webhook and Slack channels: allow-list check, then POST of a JSON
 * body with a per-attempt timeout; 2xx ok, 5xx and network errors retried, 3xx and 4xx final.
 */
import { SERVICE_NAME, SERVICE_VERSION } from '../version.ts';
import type { DeliveryResult } from '../domain/rules/alert.ts';
import { blockedUrlReason } from './host-allowed.ts';
import type { NotifyOptions } from './notify-options.ts';
import {
  type AttemptOutcome,
  clip,
  deliveryFailure,
  describeError,
  withRetries,
} from './result.ts';

export interface JsonPost {
  readonly channel: 'webhook' | 'slack';
  readonly url: string;
  readonly body: unknown;
  readonly headers?: Readonly<Record<string, string>> | undefined;
  readonly timeoutMs: number;
}

/** How much of an error response's body is quoted in the result (Slack explains itself there). */
const SNIPPET_BYTES = 200;

/** The start of a response body, read within the attempt's timeout; '' when it cannot be read. */
async function snippet(response: Response): Promise<string> {
  if (response.body === null) return '';
  const reader: ReadableStreamDefaultReader<Uint8Array> = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    while (size < SNIPPET_BYTES) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks.push(value);
      size += value.byteLength;
    }
  } catch {
    // A body that breaks off still leaves the status to report.
  } finally {
    await reader.cancel().catch(() => undefined);
  }
  return clip(Buffer.concat(chunks).subarray(0, SNIPPET_BYTES).toString('utf8'));
}

async function outcomeOf(response: Response): Promise<AttemptOutcome> {
  const { status } = response;
  if (status >= 200 && status < 300) {
    await response.body?.cancel().catch(() => undefined);
    return { kind: 'ok', status };
  }
  if (status >= 300 && status < 400) {
    // Following a redirect could lead past the allow-list (to an internal address): never.
    await response.body?.cancel().catch(() => undefined);
    return { kind: 'fail', status, error: `HTTP ${status}: redirects are not followed` };
  }
  const text = await snippet(response);
  const error = `HTTP ${status}${text === '' ? '' : `: ${text}`}`;
  return { kind: status >= 500 ? 'retry' : 'fail', status, error };
}

/** POSTs `body` as JSON; never throws. */
export async function postJson(post: JsonPost, options: NotifyOptions): Promise<DeliveryResult> {
  let url: URL;
  try {
    url = new URL(post.url);
  } catch {
    return deliveryFailure(post.channel, 0, 'the URL is not a valid absolute URL');
  }
  const blocked = blockedUrlReason(url, options.allowedHosts);
  if (blocked !== undefined) return deliveryFailure(post.channel, 0, blocked);

  let headers: Headers;
  let body: string;
  try {
    headers = new Headers({ 'user-agent': `${SERVICE_NAME}/${SERVICE_VERSION}` });
    for (const [name, value] of Object.entries(post.headers ?? {})) headers.set(name, value);
    headers.set('content-type', 'application/json');
    body = JSON.stringify(post.body);
  } catch (error) {
    return deliveryFailure(post.channel, 0, `request not sent: ${describeError(error)}`);
  }

  return withRetries(post.channel, options, async () => {
    try {
      const response = await fetch(url, {
        method: 'POST',
        headers,
        body,
        redirect: 'manual',
        signal: AbortSignal.timeout(post.timeoutMs),
      });
      return await outcomeOf(response);
    } catch (error) {
      const timedOut = error instanceof Error && error.name === 'TimeoutError';
      return {
        kind: 'retry',
        error: timedOut ? `timed out after ${post.timeoutMs} ms` : describeError(error),
      };
    }
  });
}
