/**
 * @module The `lookup` a delivery's sockets use: it answers with the addresses resolveTarget
 * already checked and never asks DNS again, so the connection goes where the check looked (no
 * DNS rebinding). The URL's host name still travels as Host header and TLS server name.
 */
import type { LookupAddress, LookupOptions } from 'node:dns';
import type { LookupFunction } from 'node:net';
import type { ResolvedAddress } from './resolve-target.ts';

type LookupCallback = (
  error: NodeJS.ErrnoException | null,
  address: string | LookupAddress[],
  family?: number,
) => void;

export function pinnedLookup(addresses: readonly ResolvedAddress[]): LookupFunction {
  return (_hostname: string, options: LookupOptions, callback: LookupCallback): void => {
    const wanted = options.family === 4 || options.family === 6 ? options.family : undefined;
    const usable = addresses.filter((a) => wanted === undefined || a.family === wanted);
    const first = usable[0];
    if (first === undefined) {
      const error: NodeJS.ErrnoException = new Error('no checked address of the wanted family');
      error.code = 'ENOTFOUND';
      callback(error, '');
      return;
    }
    // net.connect asks for every address when it tries them in turn (autoSelectFamily).
    if (options.all === true)
      callback(
        null,
        usable.map((a) => ({ ...a })),
      );
    else callback(null, first.address, first.family);
  };
}
