/**
 * @module Which IP addresses webhook and Slack deliveries may connect to. A rule's URL is chosen by
 * whoever writes rules: without this check it could make Vigil POST to itself, to the cloud
 * metadata service or to anything else on its private network. NOTIFY_ALLOW_PRIVATE lifts it.
 */
import { BlockList, isIP } from 'node:net';

/** Ranges that are not the public internet, IPv4 then IPv6: [network, prefix length, what it is]. */
const NON_PUBLIC_RANGES: readonly (readonly [string, number, string])[] = [
  ['0.0.0.0', 8, '"this network", 0.0.0.0 included'],
  ['10.0.0.0', 8, 'private'],
  ['100.64.0.0', 10, 'carrier-grade NAT'],
  ['127.0.0.0', 8, 'loopback'],
  ['169.254.0.0', 16, 'link-local, cloud metadata services'],
  ['172.16.0.0', 12, 'private'],
  ['192.0.0.0', 24, 'IETF protocol assignments'],
  ['192.168.0.0', 16, 'private'],
  ['198.18.0.0', 15, 'benchmarking'],
  ['224.0.0.0', 4, 'multicast'],
  ['240.0.0.0', 4, 'reserved, broadcast included'],
  ['::', 96, 'unspecified ::, loopback ::1, deprecated IPv4-compatible ::a.b.c.d'],
  ['64:ff9b:1::', 48, 'local-use NAT64'],
  ['fc00::', 7, 'unique-local'],
  ['fe80::', 10, 'link-local'],
  ['fec0::', 10, 'site-local (deprecated)'],
  ['ff00::', 8, 'multicast'],
  // The client's IPv4 address is in the last 32 bits, inverted, and the tunnel goes through a
  // relay chosen by routing: no legitimate webhook lives there (RFC 4380; disabled in Windows).
  ['2001::', 32, 'Teredo tunnels'],
];

/** The well-known NAT64 prefix: 64:ff9b::a.b.c.d is IPv4 a.b.c.d behind the NAT64 gateway. */
const NAT64_PREFIX = '64:ff9b::';

/** The 6to4 form of an IPv4 network: 2002:AABB:CCDD::/48 is the site of IPv4 AA.BB.CC.DD (RFC 3056). */
function sixToFour(network: string): string {
  const [a = 0, b = 0, c = 0, d = 0] = network.split('.').map(Number);
  const hex = (high: number, low: number): string => ((high << 8) | low).toString(16);
  return `2002:${hex(a, b)}:${hex(c, d)}::`;
}

function nonPublicAddresses(): BlockList {
  const list = new BlockList();
  for (const [network, prefix] of NON_PUBLIC_RANGES) {
    if (isIP(network) === 6) {
      list.addSubnet(network, prefix, 'ipv6');
      continue;
    }
    // BlockList matches IPv4-mapped IPv6 (::ffff:127.0.0.1) against IPv4 rules by itself; the
    // NAT64 and 6to4 forms of the range are added here (a 6to4 relay, or the host itself,
    // would deliver to the embedded IPv4 address).
    list.addSubnet(network, prefix, 'ipv4');
    list.addSubnet(`${NAT64_PREFIX}${network}`, 96 + prefix, 'ipv6');
    list.addSubnet(sixToFour(network), 16 + prefix, 'ipv6');
  }
  return list;
}

/** Every address a delivery is refused unless NOTIFY_ALLOW_PRIVATE is true. */
export const NON_PUBLIC_ADDRESSES: BlockList = nonPublicAddresses();

/**
 * Whether a delivery may connect to `address` (an IP literal as DNS or a URL gives it). `refused`
 * undefined: any address (NOTIFY_ALLOW_PRIVATE). Anything that is not a plain IP is refused, and
 * so is a zone-scoped IPv6 address (`fe80::1%eth0`: link-local whatever the list says).
 */
export function isAddressAllowed(address: string, refused: BlockList | undefined): boolean {
  const family = isIP(address);
  if (family === 0 || address.includes('%')) return false;
  if (refused === undefined) return true;
  return !refused.check(address, family === 4 ? 'ipv4' : 'ipv6');
}
