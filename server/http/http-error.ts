import { httpStatusOf } from '../../common/errors.js';
import { ApiError, type ErrorKind } from '../domain/index.js';

/** A failure of the HTTP exchange itself, with the headers its status calls for (Allow, WWW-Authenticate). */
export class HttpError extends ApiError {
  constructor(
    kind: ErrorKind,
    descripcion: string,
    readonly headers: Record<string, string>,
  ) {
    super(kind, descripcion);
  }
}

/** The status and headers an ApiError is answered with. */
export function httpAnswerOf(error: ApiError): { status: number; headers: Record<string, string> } {
  const headers = error instanceof HttpError ? { ...error.headers } : {};
  if (error.retryAfterSeconds !== null) headers['Retry-After'] = String(error.retryAfterSeconds);
  return { status: httpStatusOf(error.kind), headers };
}
