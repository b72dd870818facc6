import { StoreError } from '../store-error.js';

/** SQLSTATE classes and socket codes that mean "the database is not there", not "the query is wrong". */
const UNREACHABLE_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ENOTFOUND',
  'EHOSTUNREACH',
  'ETIMEDOUT',
  'EPIPE',
  '57P01',
  '57P02',
  '57P03',
  '53300',
]);

export function isUnreachable(error: unknown): boolean {
  const e = error as { code?: string; message?: string };
  if (e.code && (UNREACHABLE_CODES.has(e.code) || e.code.startsWith('08'))) return true;
  const message = e.message ?? '';
  return /Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error|not queryable/i.test(
    message,
  );
}

/** A PostgreSQL failure as the StoreError the HTTP layer turns into a 503 envelope naming the database. */
export function galleryError(error: unknown, location: string, when: 'running' | 'starting' = 'running'): unknown {
  if (error instanceof StoreError) return error;
  if (isUnreachable(error)) {
    const what = `La base de datos de la galería (${location}) no responde (${(error as Error).message}).`;
    return new StoreError(
      when === 'starting'
        ? `${what} La estación llena su índice desde ella al arrancar: no puede arrancar sin ella.`
        : `${what} La identificación sigue respondiendo con el índice local de esta estación; enrolar, verificar y consultar o borrar personas necesitan la base.`,
      'unavailable',
    );
  }
  const e = error as { code?: string };
  if (e.code === '40001' || e.code === '40P01' || e.code === '55P03' || e.code === '57014') {
    return new StoreError(`La galería compartida (${location}) está ocupada; reintente.`, 'unavailable');
  }
  return error;
}
