/**
 * @module The NOTIFY_ALLOWED_HOSTS check, made before any webhook or Slack request: a URL whose host
 * is not allowed is never contacted. Entries are host names or IPs, exact, or `*.suffix`. The
 * address check (address-check.ts) applies as well: an allowed name still may not resolve to a
 * private address unless NOTIFY_ALLOW_PRIVATE is true.
 */

/** Lower case, IPv6 brackets and a trailing root dot removed, so that equal hosts compare equal. */
const canonical = (host: string): string =>
  host
    .trim()
    .toLowerCase()
    .replace(/^\[(.*)\]$/, '$1')
    .replace(/\.$/, '');

/**
 * Whether `hostname` (as `URL.hostname` gives it, already canonical for IPs) is allowed.
 * `*.example.com` allows every subdomain of example.com but not example.com itself; an empty list
 * allows every host. Names are compared, not the addresses they resolve to.
 */
export function isHostAllowed(hostname: string, allowedHosts: readonly string[]): boolean {
  if (allowedHosts.length === 0) return true;
  const host = canonical(hostname);
  return allowedHosts.some((entry) => {
    const allowed = canonical(entry);
    if (allowed.startsWith('*.')) {
      const suffix = allowed.slice(1);
      return host.length > suffix.length && host.endsWith(suffix);
    }
    return host === allowed;
  });
}

/**
 * The reason a URL may not be contacted, or undefined when it may. A fixed text: the host of a
 * contact point's URL can be part of its secret.
 */
export function blockedUrlReason(url: URL, allowedHosts: readonly string[]): string | undefined {
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    return `only http and https URLs are delivered to, not ${url.protocol}`;
  }
  if (!isHostAllowed(url.hostname, allowedHosts)) {
    return 'host not in NOTIFY_ALLOWED_HOSTS: not contacted';
  }
  return undefined;
}
