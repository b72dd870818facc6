import Database from 'better-sqlite3';
import { randomUUID } from 'node:crypto';
import {
  chmodSync,
  closeSync,
  copyFileSync,
  existsSync,
  fsyncSync,
  mkdirSync,
  openSync,
  renameSync,
  rmSync,
  statSync,
} from 'node:fs';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import { workerScript } from '../../threads/index.js';
import { SEARCH_INDEX_DIR } from '../data-dir.js';
import type { AuditEntry } from '../../../common/api/admin-schemas.js';
import { StoreError } from '../store-error.js';
import { MIGRATIONS } from './migrations.js';
import { auditValues, INSERT_AUDIT } from './sqlite-records.js';
import { DATABASE_FILE, keyOpens } from './station-database.js';
import { assertDatabaseNotInUse, hasSqliteHeader } from './station-lock.js';

/** What a station database (or a backup of one) holds, and whether the station's key opens it. */
export interface DatabaseSummary {
  schema: number;
  persons: number;
  samples: number;
  tokens: number;
  auditEntries: number;
  /** `not-checked`: no key at hand (a desktop station keeps it in safeStorage). */
  key: 'opens' | 'other-key' | 'not-checked';
}

/** Where a station keeps the databases a restore replaced: never deleted by the station. */
export const REPLACED_DIR = 'replaced';

/** `<prefix>-2026-11-28T10-49-44-305Z.db`: a database copy named by its moment, sorting by it. */
export const stampedName = (prefix: string, at: Date): string => `${prefix}-${at.toISOString().replace(/[:.]/g, '-')}.db`;

/** The name a restore gives the database it replaces, in `<dataDir>/replaced/`. */
export const replacedDatabaseName = (at: Date): string => stampedName('enrolla', at);

/**
 * The name of the data key a restore stopped using, kept (as a key file, or sealed by the desktop)
 * for the database it replaced: named after that database, so one is found for the other.
 */
export const REPLACED_KEY_PREFIX = 'data-key-replaced-';
export const replacedKeyName = (at: Date): string => `${REPLACED_KEY_PREFIX}${path.basename(replacedDatabaseName(at), '.db')}`;

/** The moment in a `stampedName`, or NaN for another name. */
export function stampOf(name: string): number {
  const m = /-(\d{4}-\d{2}-\d{2})T(\d{2})-(\d{2})-(\d{2})-(\d{3})Z\.db$/.exec(name);
  return m ? Date.parse(`${m[1]}T${m[2]}:${m[3]}:${m[4]}.${m[5]}Z`) : NaN;
}

/** An audit entry for what an operator did on the station's machine, not through the API (HTTP status 0). */
export function localAuditEntry(operation: string, by: string, outcome: 'SUCCESS' | 'ERROR', at: Date): Omit<AuditEntry, 'seq'> {
  return {
    at: at.toISOString(),
    txId: randomUUID(),
    operation,
    tokenName: by,
    idPersona: null,
    outcome,
    httpStatus: 0,
    auditToken: null,
  };
}

/**
 * Checks that `file` is a sound station database this version can run, and counts what it holds.
 * Throws a StoreError that says what is wrong: not SQLite, damaged, not a station's, newer.
 */
export function inspectDatabase(file: string, key: Buffer | null): DatabaseSummary {
  if (!existsSync(file) || !statSync(file).isFile()) throw new StoreError(`No existe el archivo ${file}.`, 'unavailable');
  if (!hasSqliteHeader(file)) throw new StoreError(`${file} no es una base de datos de Enrolla (no es SQLite).`, 'unavailable');
  try {
    return summarize(file, key);
  } catch (error) {
    if (error instanceof StoreError) throw error;
    // SQLite's own word for a file it cannot read (`database disk image is malformed`, ...).
    throw new StoreError(`${file} está dañada (${(error as Error).message}).`, 'unavailable');
  }
}

function summarize(file: string, key: Buffer | null): DatabaseSummary {
  const db = new Database(file, { readonly: true, fileMustExist: true });
  try {
    const problems = db.pragma('integrity_check', { simple: false }) as { integrity_check: string }[];
    if (problems.length !== 1 || problems[0]!.integrity_check !== 'ok') {
      const first = problems
        .slice(0, 3)
        .map((p) => p.integrity_check)
        .join('; ');
      throw new StoreError(`${file} está dañada (integrity_check: ${first}).`, 'unavailable');
    }
    const schema = db.pragma('user_version', { simple: true }) as number;
    const latest = MIGRATIONS.at(-1)!.version;
    const tables = new Set(
      db
        .prepare<[], { name: string }>("SELECT name FROM sqlite_master WHERE type = 'table'")
        .all()
        .map((t) => t.name),
    );
    if (schema < 1 || !['persons', 'face_samples', 'api_tokens', 'audit_log'].every((t) => tables.has(t)))
      throw new StoreError(`${file} no es una base de datos de Enrolla.`, 'unavailable');
    if (schema > latest)
      throw new StoreError(
        `${file} es de una versión más nueva de Enrolla (esquema ${schema}; esta conoce hasta ${latest}).`,
        'unavailable',
      );
    const count = (table: string) => db.prepare<[], { n: number }>(`SELECT count(*) AS n FROM ${table}`).get()!.n;
    // Before schema 2 nothing was sealed, and there is no key to check.
    const opens = key ? keyOpens(db, key) : null;
    const keyState: DatabaseSummary['key'] = opens === null ? 'not-checked' : opens ? 'opens' : 'other-key';
    return {
      schema,
      persons: count('persons'),
      samples: count('face_samples'),
      tokens: count('api_tokens'),
      auditEntries: count('audit_log'),
      key: keyState,
    };
  } finally {
    db.close();
  }
}

/**
 * Whether `key` opens the station database `file`: one row read, no integrity check. Null when
 * there is no such SQLite file or nothing in it was sealed.
 */
export function keyOpensFile(file: string, key: Buffer): boolean | null {
  if (!existsSync(file) || !hasSqliteHeader(file)) return null;
  try {
    const db = new Database(file, { readonly: true, fileMustExist: true });
    try {
      return keyOpens(db, key);
    } finally {
      db.close();
    }
  } catch {
    return null;
  }
}

/**
 * Copies the station's database to `out` with SQLite's online backup, so the station may keep
 * serving meanwhile: the copy is of one consistent moment, never of a half-written page. Written
 * beside `out` and renamed once checked, owner-only; an existing `out` is never overwritten. The
 * samples stay sealed with the station's key: the copy is of no use without it, nor is it to
 * anyone who takes it (docs/security.md, "Backups").
 */
export async function backupDatabase(dataDir: string, out: string, key: Buffer | null): Promise<DatabaseSummary> {
  const source = path.join(dataDir, DATABASE_FILE);
  if (!existsSync(source)) throw new StoreError(`No hay base de datos de la estación en ${dataDir}.`, 'unavailable');
  if (existsSync(out))
    throw new StoreError(`${out} ya existe: elija otro nombre (un respaldo nunca se sobrescribe).`, 'conflict');
  mkdirSync(path.dirname(out), { recursive: true, mode: 0o700 });
  const partial = `${out}.partial`;
  rmSync(partial, { force: true });
  const db = new Database(source, { fileMustExist: true, readonly: true });
  try {
    await db.backup(partial);
  } finally {
    db.close();
  }
  try {
    // The copy carries the station's WAL mode; as a file at rest it opens anywhere in rollback mode.
    const copy = new Database(partial, { fileMustExist: true });
    copy.pragma('journal_mode = DELETE');
    copy.close();
    chmodSync(partial, 0o600);
    const summary = inspectDatabase(partial, key);
    syncFile(partial);
    renameSync(partial, out);
    syncFile(path.dirname(out));
    return summary;
  } catch (error) {
    rmSync(partial, { force: true });
    throw error;
  }
}

/** A disk that filled up during a copy is said as such (507 through the API), not as an internal error. */
export function storageFullAsStoreError(error: unknown): never {
  const code = (error as { code?: string }).code;
  if (code === 'SQLITE_FULL' || code === 'ENOSPC')
    throw new StoreError('No hay espacio en disco para el respaldo: no quedó ninguna copia a medias.', 'storage_full');
  throw error;
}

/**
 * `backupDatabase` on a thread of its own, for a station that goes on serving meanwhile: run on
 * the station's thread, a gallery of 100,000 persons (450 MiB) held its event loop for over a
 * second (by hand), and a million would for tens. A disk that fills is said as `storage_full`.
 */
export function backupDatabaseOffThread(dataDir: string, out: string, key: Buffer | null): Promise<DatabaseSummary> {
  return offThread({ job: 'backup', dataDir, out, key });
}

/** `inspectDatabase` on a thread of its own: its integrity check reads the whole file. */
export function inspectDatabaseOffThread(file: string, key: Buffer | null): Promise<DatabaseSummary> {
  return offThread({ job: 'inspect', file, key });
}

/** `restoreDatabase` on a thread of its own, for the desktop, whose window must not freeze meanwhile. */
export function restoreDatabaseOffThread(
  dataDir: string,
  backup: string,
  key: Buffer | null,
  by: string,
  now = new Date(),
): Promise<RestoreResult> {
  return offThread({ job: 'restore', dataDir, backup, key, by, at: now.toISOString() }) as Promise<RestoreResult>;
}

/** The work the backup worker (worker/backup-worker.ts) is given, and its answer. */
export type BackupWorkerData =
  | { job: 'backup'; dataDir: string; out: string; key: Uint8Array | null }
  | { job: 'inspect'; file: string; key: Uint8Array | null }
  | { job: 'restore'; dataDir: string; backup: string; key: Uint8Array | null; by: string; at: string };

export type BackupWorkerReply = { summary: DatabaseSummary } | { error: string; kind: StoreError['kind'] | null };

function offThread(workerData: BackupWorkerData): Promise<DatabaseSummary> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(workerScript(import.meta.url, 'backup-worker'), { workerData });
    worker.once('message', (reply: BackupWorkerReply) =>
      'summary' in reply
        ? resolve(reply.summary)
        : reject(reply.kind ? new StoreError(reply.error, reply.kind) : new Error(reply.error)),
    );
    worker.once('error', reject);
    // After an answer this rejects nothing: a promise settles once.
    worker.once('exit', (code) => reject(new Error(`el trabajo sobre la base terminó sin responder (código ${code})`)));
  });
}

export interface RestoreResult extends DatabaseSummary {
  /** Where the database the backup replaced was moved (null when the station had none). */
  replaced: string | null;
  /** Tokens active in the backup that had been revoked since, revoked again. */
  revokedAgain: number;
}

/**
 * Puts a backup in place of the station's database. The station must be stopped. The backup is
 * checked first (sound, a station's, not newer, and sealed with the station's key when the key is
 * at hand); the database it replaces is moved to `<dataDir>/replaced/`, never deleted. The backup
 * file itself is left as it was, and the restored copy records the restore in its audit log.
 */
export function restoreDatabase(
  dataDir: string,
  backup: string,
  key: Buffer | null,
  { now = new Date(), by = 'cli' }: { now?: Date; by?: string } = {},
): RestoreResult {
  const summary = inspectDatabase(backup, key);
  if (summary.key === 'other-key')
    throw new StoreError(
      `${backup} fue cifrado con otra clave de datos: dé la clave con la que se hizo el respaldo (enrolla restore ARCHIVO --key CLAVE, o ENROLLA_DATA_KEY; docs/security.md).`,
      'unavailable',
    );
  const target = path.join(dataDir, DATABASE_FILE);
  assertDatabaseNotInUse(target, 'restaurar un respaldo');
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const partial = `${target}.restoring`;
  let replaced: string | null = null;
  let result: RestoreResult;
  try {
    // The copy is made whole (and its audit entry written) before the current database moves.
    copyFileSync(backup, partial);
    chmodSync(partial, 0o600);
    const revokedAgain = existsSync(target) ? carryRevocations(target, partial) : 0;
    appendLocalAudit(partial, 'restoreBackup', now, by);
    syncFile(partial);
    if (existsSync(target)) {
      replaced = path.join(dataDir, REPLACED_DIR, replacedDatabaseName(now));
      moveAside(target, replaced);
    }
    renameSync(partial, target);
    syncFile(dataDir);
    result = { ...summary, auditEntries: summary.auditEntries + 1, replaced, revokedAgain };
  } catch (error) {
    if (replaced && existsSync(replaced) && !existsSync(target)) moveAside(replaced, target);
    rmSync(partial, { force: true });
    throw error;
  }
  // The index snapshots describe the gallery that was replaced: the next start rebuilds from the restored one.
  rmSync(path.join(dataDir, SEARCH_INDEX_DIR), { recursive: true, force: true });
  return result;
}

/**
 * A restore never brings back a revoked token: tokens revoked in the database being replaced are
 * revoked in the restored copy too, with their time. A database too damaged to read has none to give.
 */
function carryRevocations(current: string, restored: string): number {
  let revoked: { id: string; revoked_at: string }[];
  try {
    const db = new Database(current, { readonly: true, fileMustExist: true });
    try {
      revoked = db
        .prepare<[], { id: string; revoked_at: string }>('SELECT id, revoked_at FROM api_tokens WHERE revoked_at IS NOT NULL')
        .all();
    } finally {
      db.close();
    }
  } catch {
    return 0;
  }
  const db = new Database(restored, { fileMustExist: true });
  try {
    const revoke = db.prepare('UPDATE api_tokens SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL');
    return db.transaction(() => revoked.reduce((n, t) => n + revoke.run(t.revoked_at, t.id).changes, 0))();
  } finally {
    db.close();
  }
}

/**
 * The station's database moved to `to` as it was found, with its WAL and journal files if a crash
 * left them (they hold committed changes that SQLite applies when the file is next opened). It is
 * not opened first: it may be damaged, which is often why a backup is restored.
 */
function moveAside(file: string, to: string): void {
  mkdirSync(path.dirname(to), { recursive: true, mode: 0o700 });
  for (const suffix of ['', '-wal', '-shm', '-journal']) {
    if (!existsSync(`${file}${suffix}`)) continue;
    renameSync(`${file}${suffix}`, `${to}${suffix}`);
    chmodSync(`${to}${suffix}`, 0o600);
  }
}

/**
 * An audit entry by an operator on the station's machine (`cli`, `escritorio`), written into a
 * database file the caller holds no store for (the station may be running on it).
 */
export function appendLocalAudit(file: string, operation: string, now = new Date(), by = 'cli'): void {
  const e = localAuditEntry(operation, by, 'SUCCESS', now);
  const db = new Database(file, { fileMustExist: true, timeout: 5000 });
  try {
    db.prepare(INSERT_AUDIT).run(...auditValues(e));
  } finally {
    db.close();
  }
}

function syncFile(file: string): void {
  const fd = openSync(file, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}
