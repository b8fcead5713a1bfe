/**
 * @module What alert delivery needs from the configuration (front thread): SMTP server, host
 * allow-list, address policy, timeouts and retry policy, and how to build it from the parsed Config.
 */
import type { BlockList } from 'node:net';
import { NON_PUBLIC_ADDRESSES } from './address-check.ts';
import type { Resolver } from './resolve-target.ts';

export interface NotifyOptions {
  /** `smtp://` or `smtps://` URL of the mail relay; undefined: email deliveries fail, saying so. */
  readonly smtpUrl: string | undefined;
  /** Hosts webhook and Slack URLs may reach: `name` exactly or `*.suffix`; empty = any host. */
  readonly allowedHosts: readonly string[];
  /**
   * Addresses webhook and Slack deliveries never connect to (NON_PUBLIC_ADDRESSES); undefined:
   * any address (NOTIFY_ALLOW_PRIVATE=true).
   */
  readonly refusedAddresses: BlockList | undefined;
  /** Resolves a delivery's host name; default the system resolver. Tests inject their own. */
  readonly resolve?: Resolver | undefined;
  /** Per-attempt timeout (HTTP request or SMTP connection), unless a webhook sets its own. */
  readonly timeoutMs: number;
  /** Attempts per channel, the first included (>= 1). */
  readonly attempts: number;
  /** Wait before the 2nd attempt; doubled before each later one. */
  readonly backoffMs: number;
  /** How a backoff is waited out; default a real timer. Tests pass one that records the waits. */
  readonly backoff?: ((ms: number) => Promise<unknown>) | undefined;
  /** The From address of alert e-mails. */
  readonly from: string;
}

/** The retry policy: not configurable by environment, fixed here. */
export const NOTIFY_RETRY = { attempts: 3, backoffMs: 500 } as const;

/** The Config fields this module reads (see the report for their ConfigSchema lines). */
export interface NotifyConfig {
  readonly SMTP_URL?: string | undefined;
  readonly NOTIFY_ALLOWED_HOSTS?: string | undefined;
  readonly NOTIFY_ALLOW_PRIVATE: boolean;
  readonly NOTIFY_TIMEOUT_MS: number;
  readonly NOTIFY_FROM: string;
}

/** `"hooks.slack.com, *.example.com,"` → `['hooks.slack.com', '*.example.com']`. */
export const parseAllowedHosts = (list: string | undefined): string[] =>
  (list ?? '')
    .split(',')
    .map((host) => host.trim().toLowerCase())
    .filter((host) => host !== '');

export const notifyOptionsFrom = (config: NotifyConfig): NotifyOptions => ({
  smtpUrl: config.SMTP_URL,
  allowedHosts: parseAllowedHosts(config.NOTIFY_ALLOWED_HOSTS),
  refusedAddresses: config.NOTIFY_ALLOW_PRIVATE ? undefined : NON_PUBLIC_ADDRESSES,
  timeoutMs: config.NOTIFY_TIMEOUT_MS,
  attempts: NOTIFY_RETRY.attempts,
  backoffMs: NOTIFY_RETRY.backoffMs,
  from: config.NOTIFY_FROM,
});
