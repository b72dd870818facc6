import { EngineBusyError, FrameDecodeError } from '../engines/index.js';
import { ApiError } from '../domain/index.js';

/**
 * Engine failures as the client should see them: an image no decoder can read is an invalid
 * template (or an invalid field), a full queue is 503 with Retry-After; anything else stays a 500.
 */
export function engineError(error: unknown, field?: string): unknown {
  if (error instanceof FrameDecodeError) {
    return new ApiError(
      'BAD_REQUEST',
      field ? `Solicitud inválida: campo '${field}': ${error.message}.` : `Template inválido: ${error.message}`,
    );
  }
  if (error instanceof EngineBusyError) return new ApiError('UNAVAILABLE', `Estación ocupada: ${error.message}.`, 2);
  return error;
}
