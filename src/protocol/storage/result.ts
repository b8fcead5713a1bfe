/**
 * @module What every storage operation answers: a value, or an expected failure as data
 * ({ ok: false, code }), never a thrown error (STYLE 2).
 */
export type Result<T, C extends string> =
  | { readonly ok: true; readonly value: T }
  | { readonly ok: false; readonly code: C; readonly message: string };

/** The database failed or could not be reached; `message` is safe to show to a client. */
export type DbFailure = 'DB_FAILURE';
