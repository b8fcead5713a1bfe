/**
 * @module Which browser origins may call the API (CORS) and open /ws: the service's own, plus
 * VIGIL_ALLOWED_ORIGINS. A request without an Origin header comes from no browser page: it is
 * neither helped nor hindered by this.
 */
export interface OriginPolicy {
  /** Listed in VIGIL_ALLOWED_ORIGINS (the only origins CORS answers for). */
  listed(origin: string): boolean;
  /** Listed, or the service's own origin (its host is the request's Host header). */
  allowed(origin: string, host: string): boolean;
  /** Whether any origin is listed: when none is, the request path reads no Origin header. */
  readonly any: boolean;
}

const normalise = (origin: string): string => origin.trim().toLowerCase().replace(/\/+$/, '');

function hostOf(origin: string): string | null {
  try {
    return new URL(origin).host;
  } catch {
    return null;
  }
}

export function originPolicy(list: string): OriginPolicy {
  const origins = new Set(
    list
      .split(',')
      .map(normalise)
      .filter((o) => o !== ''),
  );
  const listed = (origin: string): boolean => origins.has(normalise(origin));
  return {
    listed,
    allowed: (origin, host) => listed(origin) || (host !== '' && hostOf(origin) === host),
    any: origins.size > 0,
  };
}
