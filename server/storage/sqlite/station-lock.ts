import Database from 'better-sqlite3';
import { closeSync, existsSync, openSync, readSync } from 'node:fs';
import { StoreError } from '../store-error.js';

/**
 * Refuses when another process has the station's database open (a running station), for the
 * commands that must run on a stopped one (restore, key rotation). A station holds its database
 * open in WAL mode for as long as it runs, and then no other connection can take it exclusively,
 * even while the station is idle.
 */
export function assertDatabaseNotInUse(file: string, doing: string): void {
  // A file SQLite cannot take for a database no station serves from; opening it could change
  // what is left beside it (a WAL SQLite finds invalid is deleted on close).
  if (!existsSync(file) || !hasSqliteHeader(file)) return;
  let db: Database.Database | null = null;
  try {
    db = new Database(file, { fileMustExist: true, timeout: 0 });
    db.pragma('locking_mode = EXCLUSIVE');
    db.exec('BEGIN EXCLUSIVE');
    db.exec('COMMIT');
  } catch (error) {
    if ((error as { code?: string }).code === 'SQLITE_BUSY')
      throw new StoreError(`La estación está en marcha sobre ${file}: deténgala antes de ${doing}.`, 'unavailable');
    // Any other failure is the file's own (damaged, not a database): no station is serving from it.
  } finally {
    db?.close();
  }
}

const SQLITE_HEADER = Buffer.from('SQLite format 3\0', 'latin1');

/** Whether a file starts as every SQLite database does. */
export function hasSqliteHeader(file: string): boolean {
  const header = Buffer.alloc(SQLITE_HEADER.length);
  const fd = openSync(file, 'r');
  try {
    readSync(fd, header, 0, header.length, 0);
  } finally {
    closeSync(fd);
  }
  return header.equals(SQLITE_HEADER);
}
