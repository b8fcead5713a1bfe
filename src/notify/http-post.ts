/**
 * @module The HTTP side of the webhook and Slack channels: scheme and allow-list check, one DNS
 * resolution checked against the address policy, then POSTs of a JSON body to the checked
 * addresses only, with a per-attempt timeout; 2xx ok, 5xx and network errors retried, 3xx and 4xx
 * final. What fails is stored as a status and a fixed reason, never the answer's body.
 */
import { Agent, fetch, Headers, type Response } from 'undici';
import { SERVICE_NAME, SERVICE_VERSION } from '../version.ts';
import type { DeliveryResult } from '../domain/rules/alerts/alert.ts';
import { networkReason } from './failure-reasons.ts';
import { blockedUrlReason } from './host-allowed.ts';
import type { NotifyOptions } from './notify-options.ts';
import { pinnedLookup } from './pinned-lookup.ts';
import { resolveTarget } from './resolve-target.ts';
import { type AttemptOutcome, deliveryFailure, withRetries } from './result.ts';

export interface JsonPost {
  readonly channel: 'webhook' | 'slack';
  readonly url: string;
  readonly body: unknown;
  readonly headers?: Readonly<Record<string, string>> | undefined;
  readonly timeoutMs: number;
}

async function outcomeOf(response: Response): Promise<AttemptOutcome> {
  const { status } = response;
  // The body is never read: whatever the receiver answers must not come back to a rule's author.
  await response.body?.cancel().catch(() => undefined);
  if (status >= 200 && status < 300) return { kind: 'ok', status };
  if (status >= 300 && status < 400) {
    // Following a redirect could lead past the address check (to an internal address): never.
    return { kind: 'fail', status, error: `HTTP ${status}: redirects are not followed` };
  }
  return { kind: status >= 500 ? 'retry' : 'fail', status, error: `HTTP ${status}` };
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
  } catch {
    return deliveryFailure(post.channel, 0, 'request not sent: invalid header or body');
  }

  const target = await resolveTarget(url.hostname, options, post.timeoutMs);
  if (!target.ok) return deliveryFailure(post.channel, 0, target.reason);
  // One dispatcher per attempt: its sockets reach only the checked addresses, and are destroyed
  // before the next attempt, whatever the receiver does, so a delivery holds at most one socket
  // (one that timed out is not left open beside its retry).
  return withRetries(post.channel, options, async () => {
    const dispatcher = new Agent({
      connect: { lookup: pinnedLookup(target.addresses), timeout: post.timeoutMs },
    });
    try {
      const response = await fetch(url, {
        method: 'POST',
        headers,
        body,
        redirect: 'manual',
        signal: AbortSignal.timeout(post.timeoutMs),
        dispatcher,
      });
      return await outcomeOf(response);
    } catch (error) {
      const timedOut = error instanceof Error && error.name === 'TimeoutError';
      return {
        kind: 'retry',
        error: timedOut ? `timed out after ${post.timeoutMs} ms` : networkReason(error),
      };
    } finally {
      await dispatcher.destroy().catch(() => undefined);
    }
  });
}
