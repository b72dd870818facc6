import Database from 'better-sqlite3';
import { existsSync } from 'node:fs';
import { StoreError } from '../store.js';

/**
 * Refuses when another process has the station's database open (a running station), for the
 * commands that must run on a stopped one (restore, key rotation). A station holds its database
 * open in WAL mode for as long as it runs, and then no other connection can take it exclusively,
 * even while the station is idle.
 */
export function assertDatabaseNotInUse(file: string, doing: string): void {
  if (!existsSync(file)) return;
  const db = new Database(file, { fileMustExist: true, timeout: 0 });
  try {
    db.pragma('locking_mode = EXCLUSIVE');
    db.exec('BEGIN EXCLUSIVE');
    db.exec('COMMIT');
  } catch (error) {
    if ((error as { code?: string }).code === 'SQLITE_BUSY')
      throw new StoreError(`La estación está en marcha sobre ${file}: deténgala antes de ${doing}.`, 'unavailable');
    throw error;
  } finally {
    db.close();
  }
}
