/**
 * @module The places of WebSockets that have not authenticated yet (front thread). Opening a
 * socket needs no key, so such sockets must not hold MAX_CONNECTIONS places, which keyed HTTP
 * requests and authenticated STOMP sessions need: they get a small pool of their own, bounded in
 * all and per remote address. A session leaves the pool when its CONNECT is accepted (it then
 * holds a MAX_CONNECTIONS place) or when its socket closes. When the pool is full, the endpoint
 * makes room by closing the oldest socket of the address that holds the most places, if that is
 * more than the newcomer's address holds: a few addresses cannot keep every other host out.
 */

export type PoolRefusal = 'pool-full' | 'address-full';

export interface UnauthenticatedPool {
  /** Why `address` may not take a place now; null when it may. */
  refusal(address: string): PoolRefusal | null;
  /** Takes a place for `address`; false (nothing taken) when refusal() would say why. */
  tryTake(address: string): boolean;
  /** Gives back a place taken by tryTake for `address`. */
  release(address: string): void;
  /** Places taken now, in all. */
  inUse(): number;
  /** Places taken now by `address` (its IPv6 /64). */
  held(address: string): number;
}

export interface PoolBounds {
  /** Sockets without an accepted CONNECT, in all. */
  readonly max: number;
  /** Of those, from one remote address (one IPv6 /64). */
  readonly maxPerAddress: number;
}

/**
 * The key an address is counted under: an IPv4 address as is (also when IPv4-mapped, as uWS
 * gives it on a dual-stack socket: `0000:...:ffff:7f00:0002`), an IPv6 address by its /64, the
 * smallest block a single host is usually given.
 */
export function addressKey(address: string): string {
  const lower = address.toLowerCase();
  if (!lower.includes(':')) return lower;
  const dotted = /^(.*:)(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(lower);
  const groups = expandIpv6(
    dotted === null
      ? lower
      : `${dotted[1]}${hex16(dotted[2], dotted[3])}:${hex16(dotted[4], dotted[5])}`,
  );
  if (groups.slice(0, 5).every((g) => g === '0') && groups[5] === 'ffff') {
    const [high, low] = [parseInt(groups[6] ?? '0', 16), parseInt(groups[7] ?? '0', 16)];
    return [high >> 8, high & 0xff, low >> 8, low & 0xff].join('.');
  }
  return `${groups.slice(0, 4).join(':')}::/64`;
}

const hex16 = (high = '0', low = '0'): string => ((Number(high) << 8) | Number(low)).toString(16);

/** The eight groups of an IPv6 address, each without leading zeros (`::` filled with '0'). */
function expandIpv6(address: string): string[] {
  const [head = '', tail] = address.split('::', 2);
  const left = head === '' ? [] : head.split(':');
  const right = tail === undefined || tail === '' ? [] : tail.split(':');
  const fill = tail === undefined ? 0 : Math.max(0, 8 - left.length - right.length);
  return [...left, ...Array<string>(fill).fill('0'), ...right].map((g) =>
    g.replace(/^0+(?=.)/, ''),
  );
}

export function createUnauthenticatedPool(bounds: PoolBounds): UnauthenticatedPool {
  let taken = 0;
  const perAddress = new Map<string, number>();
  const refusal = (address: string): PoolRefusal | null => {
    if (taken >= bounds.max) return 'pool-full';
    if ((perAddress.get(addressKey(address)) ?? 0) >= bounds.maxPerAddress) return 'address-full';
    return null;
  };
  return {
    refusal,
    tryTake(address) {
      if (refusal(address) !== null) return false;
      const key = addressKey(address);
      perAddress.set(key, (perAddress.get(key) ?? 0) + 1);
      taken++;
      return true;
    },
    release(address) {
      const key = addressKey(address);
      const count = perAddress.get(key) ?? 0;
      if (count <= 1) perAddress.delete(key);
      else perAddress.set(key, count - 1);
      taken = Math.max(0, taken - 1);
    },
    inUse: () => taken,
    held: (address) => perAddress.get(addressKey(address)) ?? 0,
  };
}

/** No bound: for tests and tools that build an app without the service. */
export const UNLIMITED_POOL: UnauthenticatedPool = createUnauthenticatedPool({
  max: Number.POSITIVE_INFINITY,
  maxPerAddress: Number.POSITIVE_INFINITY,
});
