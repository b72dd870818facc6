import Database from 'better-sqlite3';
import { accessSync, constants, existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { open, seal } from '../../crypto/index.js';
import { KEY_CHECK, keyCheckValue, sampleAad } from '../sample-codec.js';
import { StoreError } from '../store-error.js';
import { MIGRATIONS } from './migrations.js';

export const DATABASE_FILE = 'enrolla.db';

/** The station's database file, open: migrated, and checked against its data key. */
export interface StationDatabase {
  db: Database.Database;
  /** A read-only data directory: reads are served, writes refused with a clear envelope (docs/errors.md). */
  readOnly: boolean;
}

/**
 * Opens (creating and migrating as needed) the station database in `dataDir`. Embeddings and
 * face images are sealed with `dataKey` (AES-256-GCM): a copy of the file alone reveals neither.
 */
export function openStationDatabase(dataDir: string, dataKey: Buffer): StationDatabase {
  const readOnly = isReadOnlyDir(dataDir);
  if (!readOnly) mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const file = path.join(dataDir, DATABASE_FILE);
  if (readOnly && !existsSync(file)) {
    throw new StoreError(`El directorio de datos ${dataDir} es de solo lectura y no contiene una base de datos.`, 'read_only');
  }
  return sqliteFaults(() => {
    try {
      return { db: openDatabase(file, dataKey, readOnly), readOnly };
    } catch (error) {
      const code = (error as { code?: string }).code ?? '';
      // A database SQLite cannot read is said as such, with what mends it, and not as SQLite's code.
      if (code.startsWith('SQLITE_CORRUPT') || code === 'SQLITE_NOTADB')
        throw new StoreError(
          `La base de datos ${file} está dañada (${(error as Error).message}): restaure un respaldo (enrolla restore, o el menú Respaldo del escritorio; docs/security.md).`,
          'unavailable',
        );
      throw error;
    }
  });
}

function openDatabase(file: string, dataKey: Buffer, readOnly: boolean): Database.Database {
  const db = new Database(file, readOnly ? { readonly: true, fileMustExist: true } : {});
  try {
    if (!readOnly) {
      // FULL: in WAL mode NORMAL may lose the last commits on power loss; an acknowledged enrollment must survive.
      db.pragma('journal_mode = WAL');
      db.pragma('synchronous = FULL');
    }
    // Deleted rows and freed pages are overwritten with zeros: a deleted person leaves no trace in the file.
    db.pragma('secure_delete = ON');
    db.pragma('foreign_keys = ON');
    db.pragma('busy_timeout = 5000');
    migrate(db);
    checkKey(db, dataKey);
    sealPlaintextSamples(db, dataKey);
    return db;
  } catch (error) {
    // Closed now, not when the collector finds it: the desktop restores over this file in the same process.
    db.close();
    throw error;
  }
}

/** Closes the database into a file a read-only directory can open. */
export function closeStationDatabase({ db, readOnly }: StationDatabase): void {
  if (!db.open) return;
  if (!readOnly) {
    try {
      // Leave a rollback-journal file behind: unlike a WAL database, it can be opened from a read-only directory.
      db.pragma('journal_mode = DELETE');
    } catch {
      // Another connection holds it, or the disk is full: it stays in WAL mode, which is just as safe.
    }
  }
  db.close();
}

/** An existing directory the process may not write (read-only mount, or permissions for a non-root user). */
function isReadOnlyDir(dataDir: string): boolean {
  if (!existsSync(dataDir)) return false;
  try {
    accessSync(dataDir, constants.W_OK);
    return false;
  } catch {
    return true;
  }
}

/** A value sealed at creation tells, at every start, whether this is the key that sealed the data. */
function checkKey(db: Database.Database, key: Buffer): void {
  const opens = keyOpens(db, key);
  if (opens === null) {
    db.prepare('INSERT INTO station_meta (name, value) VALUES (?, ?)').run(KEY_CHECK, keyCheckValue(key));
    return;
  }
  if (!opens)
    throw new StoreError(
      'La clave de datos no es la que cifró esta base: sin la clave original las muestras biométricas no se pueden leer (docs/security.md).',
      'unavailable',
    );
}

/** Whether `key` opens the value sealed at the database's creation; null while it has none (or, before schema 2, no table for it). */
export function keyOpens(db: Database.Database, key: Buffer): boolean | null {
  const table = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'station_meta'").get();
  const row = table
    ? db.prepare<[string], { value: Buffer }>('SELECT value FROM station_meta WHERE name = ?').get(KEY_CHECK)
    : undefined;
  if (!row) return null;
  try {
    open(key, row.value, KEY_CHECK);
    return true;
  } catch {
    return false;
  }
}

/** Samples written in clear (before sealing): read through the partial index face_samples_unsealed. */
export const UNSEALED_SAMPLES = 'SELECT id, id_persona, embedding, thumbnail FROM face_samples WHERE sealed = 0';

function sealPlaintextSamples(db: Database.Database, key: Buffer): void {
  const rows = db.prepare<[], { id: number; id_persona: string; embedding: Buffer; thumbnail: Buffer | null }>(UNSEALED_SAMPLES);
  const update = db.prepare('UPDATE face_samples SET embedding = ?, thumbnail = ?, sealed = 1 WHERE id = ?');
  db.transaction(() => {
    for (const r of rows.all()) {
      update.run(
        seal(key, r.embedding, sampleAad(r.id_persona, 'embedding')),
        r.thumbnail ? seal(key, r.thumbnail, sampleAad(r.id_persona, 'thumbnail')) : null,
        r.id,
      );
    }
  })();
}

function migrate(db: Database.Database): void {
  const current = db.pragma('user_version', { simple: true }) as number;
  const latest = MIGRATIONS.at(-1)?.version ?? 0;
  if (current > latest) {
    throw new StoreError(
      `La base de datos es de una versión más nueva (esquema ${current}; esta versión conoce hasta ${latest}).`,
      'unavailable',
    );
  }
  for (const migration of MIGRATIONS) {
    if (migration.version <= current) continue;
    db.transaction(() => {
      db.exec(migration.sql);
      db.pragma(`user_version = ${migration.version}`);
    })();
  }
}

/** Storage faults become StoreErrors that the HTTP layer maps to a clear envelope. */
export function sqliteFaults<T>(fn: () => T): T {
  try {
    return fn();
  } catch (error) {
    const code = (error as { code?: string }).code ?? '';
    if (code === 'SQLITE_FULL') throw new StoreError('No queda espacio en disco para guardar los datos.', 'storage_full');
    if (code.startsWith('SQLITE_READONLY') || code === 'SQLITE_CANTOPEN') {
      throw new StoreError('El directorio de datos es de solo lectura o no se puede abrir.', 'read_only');
    }
    if (code === 'SQLITE_BUSY') throw new StoreError('La base de datos está ocupada; reintente.', 'unavailable');
    throw error;
  }
}
