/**
 * @module Resolving a delivery's host once, before anything is sent, and keeping only the
 * addresses the policy allows. The connection is then made to exactly these addresses (see
 * pinned-lookup.ts): a DNS answer that changes between the check and the connection (DNS
 * rebinding) is never asked for.
 */
import { lookup } from 'node:dns/promises';
import { isIP, type BlockList } from 'node:net';
import { isAddressAllowed } from './address-check.ts';

export interface ResolvedAddress {
  readonly address: string;
  readonly family: 4 | 6;
}

/** Host name to its addresses; the system resolver by default, tests inject their own. */
export type Resolver = (hostname: string) => Promise<readonly ResolvedAddress[]>;

export const systemResolver: Resolver = async (hostname) =>
  (await lookup(hostname, { all: true, verbatim: true })).map(({ address, family }) => ({
    address,
    family: family === 6 ? 6 : 4,
  }));

export type Target =
  | { readonly ok: true; readonly addresses: readonly ResolvedAddress[] }
  | { readonly ok: false; readonly reason: string };

/** Fixed reasons: the stored result never says what a name resolved to. */
export const TARGET_REASONS = {
  refused: 'address not allowed (private range)',
  dnsFailed: 'DNS lookup failed',
  dnsTimedOut: (ms: number) => `DNS lookup timed out after ${ms} ms`,
} as const;

export interface TargetPolicy {
  /** Addresses never connected to; undefined: any (NOTIFY_ALLOW_PRIVATE=true). */
  readonly refusedAddresses: BlockList | undefined;
  readonly resolve?: Resolver | undefined;
}

const timeout = (ms: number): { promise: Promise<'timeout'>; cancel: () => void } => {
  let timer: NodeJS.Timeout | undefined;
  const promise = new Promise<'timeout'>((resolve) => {
    timer = setTimeout(() => resolve('timeout'), ms);
  });
  return { promise, cancel: () => clearTimeout(timer) };
};

/**
 * The addresses `hostname` (as URL.hostname gives it: IPv6 in brackets, IPv4 spellings such as
 * 2130706433 or 0177.0.0.1 already normalised by the WHATWG URL parser) may be reached at. An
 * answer holding both allowed and refused addresses keeps only the allowed ones.
 */
export async function resolveTarget(
  hostname: string,
  policy: TargetPolicy,
  timeoutMs: number,
): Promise<Target> {
  const host = hostname.replace(/^\[(.*)\]$/, '$1');
  const literal = isIP(host);
  let found: readonly ResolvedAddress[];
  if (literal !== 0) {
    found = [{ address: host, family: literal === 6 ? 6 : 4 }];
  } else {
    const deadline = timeout(timeoutMs);
    try {
      const answer = await Promise.race([
        (policy.resolve ?? systemResolver)(host),
        deadline.promise,
      ]);
      if (answer === 'timeout') return { ok: false, reason: TARGET_REASONS.dnsTimedOut(timeoutMs) };
      found = answer;
    } catch {
      return { ok: false, reason: TARGET_REASONS.dnsFailed };
    } finally {
      deadline.cancel();
    }
  }
  if (found.length === 0) return { ok: false, reason: TARGET_REASONS.dnsFailed };
  const addresses = found.filter((a) => isAddressAllowed(a.address, policy.refusedAddresses));
  return addresses.length === 0
    ? { ok: false, reason: TARGET_REASONS.refused }
    : { ok: true, addresses };
}
