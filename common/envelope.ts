/**
 * The response envelope of every call (service-api.md section 2.1).
 * `codigo` is 0 on success; on failure it equals the HTTP status so that clients that
 * only read the body and clients that only read the status agree (docs/errors.md).
 */
export interface ErrorDescriptor {
  codigo: number;
  descripcion: string;
  tipo: 'ERROR' | 'NONE';
}

export interface SuccessEnvelope<T> {
  success: true;
  error: ErrorDescriptor;
  data: T;
}

export interface FailureEnvelope {
  success: false;
  error: ErrorDescriptor;
  data: null;
}

export type Envelope<T> = SuccessEnvelope<T> | FailureEnvelope;

export function successEnvelope<T>(data: T): SuccessEnvelope<T> {
  return { success: true, error: { codigo: 0, descripcion: 'OK', tipo: 'NONE' }, data };
}

export function failureEnvelope(codigo: number, descripcion: string): FailureEnvelope {
  return { success: false, error: { codigo, descripcion, tipo: 'ERROR' }, data: null };
}
