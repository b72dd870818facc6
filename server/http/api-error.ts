import { ErrorKind, httpStatusOf } from '../../common/errors.js';

/** A failure the client is told about in the envelope, with its HTTP status. */
export class ApiError extends Error {
  override name = 'ApiError';
  constructor(
    readonly kind: ErrorKind,
    readonly descripcion: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(descripcion);
  }

  get status(): number {
    return httpStatusOf(this.kind);
  }
}

export { ErrorKind };
