import type { Envelope } from '../../../common/envelope.js';
import { OPERATIONS, type OperationId, type RequestOf, type ResponseOf } from '../../../common/api/operations.js';

/** A failure answered by the station, with its envelope's code and Spanish description. */
export class StationError extends Error {
  constructor(
    readonly codigo: number,
    message: string,
  ) {
    super(message);
  }
}

/** Calls one operation of the catalogue on the station that served this page. */
export async function callOperation<K extends OperationId>(
  id: K,
  token: string,
  body: RequestOf<K>,
  signal?: AbortSignal,
): Promise<ResponseOf<K>> {
  let response: Response;
  try {
    response = await fetch(OPERATIONS[id].path, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${token}` },
      body: JSON.stringify(body),
      signal: signal ?? null,
    });
  } catch {
    throw new StationError(0, 'No se pudo contactar a la estación.');
  }
  let envelope: Envelope<ResponseOf<K>>;
  try {
    envelope = (await response.json()) as Envelope<ResponseOf<K>>;
  } catch {
    throw new StationError(response.status, `La estación respondió ${response.status} sin un sobre JSON.`);
  }
  if (!envelope.success) throw new StationError(envelope.error.codigo, envelope.error.descripcion);
  return envelope.data;
}
