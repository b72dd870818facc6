/** A storage fault the HTTP layer turns into a clear envelope (docs/errors.md), not an internal error. */
export class StoreError extends Error {
  override name = 'StoreError';
  constructor(
    message: string,
    readonly kind: 'conflict' | 'storage_full' | 'read_only' | 'unavailable',
  ) {
    super(message);
  }
}

/**
 * A stored sample that does not open (its sealed value damaged on disk, or altered): the search
 * index is built without it, and the station reports it, rather than refusing to start over one
 * sample. The person's own operations still refuse it with a clear error (verify, a re-read).
 */
export interface UnreadableSample {
  idPersona: string;
  reason: string;
}

/** How a sample that does not open is named, in errors and in UnreadableSample.reason. */
export function unreadableSampleMessage(idPersona: string, cause: string): string {
  return `Muestra de ${idPersona || '?'} ilegible: ${cause}.`;
}

/** The log line of an UnreadableSample: what it costs and what mends it. */
export const UNREADABLE_SAMPLE_LOG =
  'muestra ilegible: queda fuera de la búsqueda 1:N; vuelva a enrolar a la persona (reemplazando sus muestras) o elimínela';
