/**
 * @module The service's HTTP API as the page calls it: same origin, the key as a Bearer token,
 * JSON both ways. A refused call becomes an ApiError holding the server's own message and field
 * errors, which the page shows as they are.
 */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    /** Field -> message, as the server names them (a 400's `errors`). */
    readonly fields: Readonly<Record<string, string>>,
  ) {
    super(message);
  }
}

export interface Api {
  get<T>(path: string): Promise<T>;
  /** POST (PUT with `method`) a JSON body; undefined for a 204. */
  send<T>(path: string, body?: unknown, method?: 'POST' | 'PUT'): Promise<T>;
}

interface ErrorBody {
  readonly message?: string;
  readonly errors?: Record<string, string>;
}

export function createApi(key: string): Api {
  const call = async <T>(path: string, init: RequestInit): Promise<T> => {
    const headers: Record<string, string> = { Authorization: `Bearer ${key}` };
    if (init.body !== undefined) headers['Content-Type'] = 'application/json';
    const res = await fetch(path, { ...init, headers, cache: 'no-store' });
    if (res.status === 204) return undefined as T;
    const text = await res.text();
    const parsed: unknown = text === '' ? null : JSON.parse(text);
    if (!res.ok) {
      const body = (parsed ?? {}) as ErrorBody;
      throw new ApiError(res.status, body.message ?? `HTTP ${res.status}`, body.errors ?? {});
    }
    return parsed as T;
  };
  return {
    get: (path) => call(path, { method: 'GET' }),
    send: (path, body, method = 'POST') =>
      call(path, { method, ...(body === undefined ? {} : { body: JSON.stringify(body) }) }),
  };
}

/** A readable line for any failure: the server's message and its field errors. */
export function describeError(error: unknown): string {
  if (error instanceof ApiError) {
    const fields = Object.entries(error.fields).map(([field, message]) => `${field}: ${message}`);
    return [error.message, ...fields].join(' — ');
  }
  return error instanceof Error ? error.message : String(error);
}
