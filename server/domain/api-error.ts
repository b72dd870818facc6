import { ErrorKind } from '../../common/errors.js';

/**
 * A failure the caller is told about in the envelope, by its kind (common/errors.ts). It knows
 * nothing of HTTP: http/ answers each kind with its status and `retryAfterSeconds` as Retry-After.
 */
export class ApiError extends Error {
  override name = 'ApiError';
  constructor(
    readonly kind: ErrorKind,
    readonly descripcion: string,
    /** When the same request may succeed again (a busy station, a throttled address). */
    readonly retryAfterSeconds: number | null = null,
  ) {
    super(descripcion);
  }
}

export { ErrorKind };
