/**
 * Every failure the service can answer, with its HTTP status. `codigo` in the envelope is the
 * HTTP status itself (400 is the one the contract shows for an invalid template).
 * docs/errors.md is the reader's version of this table; keep them together.
 */
export const ErrorKind = {
  BAD_REQUEST: 400,
  UNAUTHENTICATED: 401,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  METHOD_NOT_ALLOWED: 405,
  PAYLOAD_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  TOO_MANY_REQUESTS: 429,
  INTERNAL: 500,
  NOT_IMPLEMENTED: 501,
  UNAVAILABLE: 503,
  INSUFFICIENT_STORAGE: 507,
} as const;

export type ErrorKind = keyof typeof ErrorKind;

export function httpStatusOf(kind: ErrorKind): number {
  return ErrorKind[kind];
}
