/**
 * @module The error catalogue (DESIGN 7): every code the API can answer with and its HTTP status.
 * Handlers throw AppError; src/http/error-response.ts is the only place one becomes a response.
 */
export const ERROR_STATUS = {
  VALIDATION_FAILED: 400,
  MALFORMED_JSON: 400,
  UNAUTHORIZED: 401,
  FORBIDDEN: 403,
  SOURCE_NOT_ALLOWED: 403,
  NOT_FOUND: 404,
  METHOD_NOT_ALLOWED: 405,
  CONFLICT: 409,
  CONTACT_POINT_NAME_TAKEN: 409,
  PAYLOAD_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  RULE_LIMIT: 422,
  KEY_LIMIT: 422,
  SILENCE_LIMIT: 422,
  UNKNOWN_RULE: 422,
  IDEMPOTENCY_KEY_REUSED: 422,
  RATE_LIMITED: 429,
  INTERNAL: 500,
  OVERLOADED: 503,
  TOO_MANY_CONNECTIONS: 503,
  SHUTTING_DOWN: 503,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

export class AppError extends Error {
  readonly status: number;
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly fields?: Readonly<Record<string, string>>,
    readonly headers?: Readonly<Record<string, string>>,
  ) {
    super(message);
    this.name = 'AppError';
    this.status = ERROR_STATUS[code];
  }
}

export const validationError = (fields: Record<string, string>): AppError =>
  new AppError('VALIDATION_FAILED', 'Validation failed', fields);

export const notFound = (message: string): AppError => new AppError('NOT_FOUND', message);
