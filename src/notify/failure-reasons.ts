/**
 * @module The fixed texts a failed delivery stores. An error's own message can name internal
 * hosts and addresses ("connect ECONNREFUSED 10.0.0.7:80", a certificate's altnames, an SMTP
 * server's greeting) and anyone who reads alerts would see them, so only an error's code is
 * looked at, and mapped to a sentence of ours.
 */

/** Node and undici error codes of a failed HTTP exchange. */
const NETWORK_REASONS: Readonly<Record<string, string>> = {
  ECONNREFUSED: 'connection refused',
  ECONNRESET: 'connection reset',
  EPIPE: 'connection reset',
  UND_ERR_SOCKET: 'connection closed by the server',
  ETIMEDOUT: 'connect timed out',
  UND_ERR_CONNECT_TIMEOUT: 'connect timed out',
  UND_ERR_HEADERS_TIMEOUT: 'no response in time',
  UND_ERR_BODY_TIMEOUT: 'no response in time',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
  ENOTFOUND: 'DNS lookup failed',
  EAI_AGAIN: 'DNS lookup failed',
};

/** nodemailer's error codes of a failed SMTP exchange without a reply code. */
const SMTP_REASONS: Readonly<Record<string, string>> = {
  ECONNECTION: 'connection to the SMTP server failed',
  ETIMEDOUT: 'SMTP server timed out',
  ESOCKET: 'connection to the SMTP server failed',
  EDNS: 'DNS lookup of the SMTP server failed',
  ETLS: 'TLS handshake with the SMTP server failed',
  EAUTH: 'SMTP authentication failed',
  EENVELOPE: 'SMTP server refused the envelope',
};

/** Certificate and TLS codes (ERR_TLS_CERT_ALTNAME_INVALID, CERT_HAS_EXPIRED, ...): one reason. */
const TLS_CODE = /^(ERR_TLS_|ERR_SSL_)|CERT|SELF_SIGNED|UNABLE_TO_/;
/** What an error code looks like: Node's and undici's own vocabulary, never user data. */
const CODE = /^[A-Z][A-Z0-9_]{1,40}$/;

/** The `code` of an error, of its cause (fetch wraps the socket's error), or of the first of many. */
export function errorCode(error: unknown): string | undefined {
  for (
    let e: unknown = error, depth = 0;
    depth < 4 && typeof e === 'object' && e !== null;
    depth++
  ) {
    const { code, cause, errors } = e as { code?: unknown; cause?: unknown; errors?: unknown };
    if (typeof code === 'string' && CODE.test(code)) return code;
    e = cause ?? (Array.isArray(errors) ? (errors as unknown[])[0] : undefined);
  }
  return undefined;
}

/** The fixed reason of a network error of an HTTP delivery. */
export function networkReason(error: unknown): string {
  const code = errorCode(error);
  if (code === undefined) return 'network error';
  return (
    NETWORK_REASONS[code] ??
    (TLS_CODE.test(code) ? 'TLS handshake failed' : `network error (${code})`)
  );
}

/** The fixed reason of an SMTP failure: the reply code when the server gave one. */
export function smtpReason(status: number | undefined, error: unknown): string {
  if (status !== undefined) return `SMTP ${status}`;
  const code = errorCode(error);
  if (code === undefined) return 'SMTP error';
  return SMTP_REASONS[code] ?? `SMTP error (${code})`;
}

/** What an unexpected exception (a bug of ours) is stored as. */
export const INTERNAL_ERROR = 'internal error';
