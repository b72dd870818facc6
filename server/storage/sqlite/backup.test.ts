import Database from 'better-sqlite3';
import { randomBytes } from 'node:crypto';
import {
  closeSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  statSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { TokenService } from '../../auth/tokens.js';
import { SEARCH_INDEX_DIR } from '../data-dir.js';
import { backupDatabase, backupDatabaseOffThread, inspectDatabase, REPLACED_DIR, restoreDatabase } from './backup.js';
import { openSqliteStation, type SqliteStation } from './sqlite-station.js';
import { DATABASE_FILE } from './station-database.js';
import { assertDatabaseNotInUse } from './station-lock.js';

const key = randomBytes(32);
const dir = () => mkdtempSync(path.join(tmpdir(), 'enrolla-backup-'));
const sample = (seed: number) => ({
  modelId: 'test-model@1',
  embedding: Float32Array.from({ length: 8 }, (_, i) => Math.sin(seed + i)),
  quality: 60,
  thumbnail: new Uint8Array([seed, 7]),
});
const enroll = async (store: SqliteStation, ...ids: string[]) => {
  for (const [i, id] of ids.entries()) await store.gallery.enroll(id, [sample(i + id.length)], { replace: false });
};
const persons = async (dataDir: string) => {
  const store = openSqliteStation(dataDir, key);
  try {
    return (await store.gallery.listPersons({ limit: 100, offset: 0 })).persons.map((p) => p.idPersona);
  } finally {
    store.close();
  }
};

describe('station database backups', () => {
  it('copies a database a station has open, with what it committed to its WAL, owner-only', async () => {
    const station = dir();
    const store = openSqliteStation(station, key);
    await enroll(store, 'ana', 'beto', 'carla');
    const out = path.join(dir(), 'sub', 'copy.db');
    const summary = await backupDatabase(station, out, key);
    expect(summary).toMatchObject({ persons: 3, samples: 3, key: 'opens' });
    expect(statSync(out).mode & 0o777).toBe(0o600);
    expect(existsSync(`${out}.partial`)).toBe(false);
    // The station goes on: the copy is of the moment it was taken.
    await enroll(store, 'dario');
    const original = await store.gallery.embeddingsOf('beto');
    store.close();
    const elsewhere = dir();
    copyFileSync(out, path.join(elsewhere, DATABASE_FILE));
    const copy = openSqliteStation(elsewhere, key);
    expect((await copy.gallery.listPersons({ limit: 10, offset: 0 })).total).toBe(3);
    expect((await copy.gallery.embeddingsOf('beto')).map((s) => Array.from(s.embedding))).toEqual(
      original.map((s) => Array.from(s.embedding)),
    );
    copy.close();
    // At rest in rollback mode: a read-only place opens it without WAL files.
    const db = new Database(out, { readonly: true });
    expect(db.pragma('journal_mode', { simple: true })).toBe('delete');
    db.close();
    await expect(backupDatabase(station, out, key)).rejects.toThrow(/ya existe/);
    await expect(backupDatabase(dir(), path.join(dir(), 'x.db'), key)).rejects.toThrow(/No hay base de datos/);
  });

  it('copies on a thread of its own inside a station, with the same answer and the same refusals', async () => {
    const station = dir();
    const store = openSqliteStation(station, key);
    await enroll(store, 'ana', 'beto');
    const out = path.join(dir(), 'off-thread.db');
    expect(await backupDatabaseOffThread(station, out, key)).toEqual(inspectDatabase(out, key));
    expect(inspectDatabase(out, key)).toMatchObject({ persons: 2, key: 'opens' });
    // A refusal keeps its kind across the thread (a conflict is not an internal error).
    await expect(backupDatabaseOffThread(station, out, key)).rejects.toMatchObject({ name: 'StoreError', kind: 'conflict' });
    store.close();
  });

  it('restores only onto a stopped station, and keeps the database it replaces', async () => {
    const station = dir();
    let store = openSqliteStation(station, key);
    await enroll(store, 'ana', 'beto');
    const tokens = new TokenService(store.records);
    const leaked = tokens.create('caja 3', ['verify']);
    const backup = path.join(dir(), 'b.db');
    await backupDatabase(station, backup, key);
    await enroll(store, 'carla');
    // Revoked after the backup (a leaked token, say): the restore must not bring it back.
    expect(tokens.revoke(leaked.info.id)).toBe(true);
    expect(() => restoreDatabase(station, backup, key)).toThrow(/en marcha/);
    expect(() => assertDatabaseNotInUse(path.join(station, DATABASE_FILE), 'rotar la clave')).toThrow(/en marcha/);
    store.close();
    expect(await persons(station)).toEqual(['ana', 'beto', 'carla']);
    // The 1:N index's snapshot of the gallery being replaced.
    mkdirSync(path.join(station, SEARCH_INDEX_DIR));
    writeFileSync(path.join(station, SEARCH_INDEX_DIR, 'modelo.snapshot'), 'ana beto carla');

    const result = restoreDatabase(station, backup, key, { now: new Date('2026-11-28T12:00:00Z') });
    expect(result).toMatchObject({ persons: 2, key: 'opens', revokedAgain: 1 });
    expect(existsSync(path.join(station, SEARCH_INDEX_DIR))).toBe(false);
    expect(await persons(station)).toEqual(['ana', 'beto']);
    expect(result.replaced).toBe(path.join(station, REPLACED_DIR, 'enrolla-2026-11-28T12-00-00-000Z.db'));
    expect(statSync(result.replaced!).mode & 0o777).toBe(0o600);
    expect(statSync(path.join(station, DATABASE_FILE)).mode & 0o777).toBe(0o600);
    const kept = dir();
    copyFileSync(result.replaced!, path.join(kept, DATABASE_FILE));
    expect(await persons(kept)).toEqual(['ana', 'beto', 'carla']);
    store = openSqliteStation(station, key);
    expect(new TokenService(store.records).authenticate(`Bearer ${leaked.token}`)).toEqual({ ok: false, failure: 'revoked' });
    expect(store.records.listAudit({ limit: 5 })[0]).toMatchObject({
      operation: 'restoreBackup',
      tokenName: 'cli',
      outcome: 'SUCCESS',
    });
    store.close();
    // The backup file itself is left as it was.
    expect(inspectDatabase(backup, key).auditEntries).toBe(0);
  });

  it('refuses what is not a sound backup this station can open, leaving its database as it was', async () => {
    const station = dir();
    const store = openSqliteStation(station, key);
    await enroll(store, 'ana');
    store.close();
    const other = dir();
    const otherStore = openSqliteStation(other, randomBytes(32));
    await enroll(otherStore, 'zoe');
    otherStore.close();
    const files = dir();
    const otherKey = path.join(files, 'other-key.db');
    await backupDatabase(other, otherKey, null);
    const text = path.join(files, 'notes.txt');
    writeFileSync(text, 'no es una base');
    const foreign = path.join(files, 'foreign.db');
    new Database(foreign).exec('CREATE TABLE t (x)');
    const newer = path.join(files, 'newer.db');
    await backupDatabase(station, newer, key);
    const newerOk = path.join(files, 'sound.db');
    copyFileSync(newer, newerOk);
    new Database(newer).pragma('user_version = 999');
    const damaged = path.join(files, 'damaged.db');
    await backupDatabase(station, damaged, key);
    // Every page but the first overwritten: the header still reads as SQLite, the tables do not.
    const size = statSync(damaged).size;
    expect(size).toBeGreaterThan(3 * 4096);
    const fd = openSync(damaged, 'r+');
    writeSync(fd, new Uint8Array(size - 4096).fill(0x5a), 0, size - 4096, 4096);
    closeSync(fd);

    expect(() => restoreDatabase(station, otherKey, key)).toThrow(/otra clave de datos/);
    expect(() => restoreDatabase(station, text, key)).toThrow(/no es SQLite/);
    expect(() => restoreDatabase(station, foreign, key)).toThrow(/no es una base de datos de Enrolla/);
    expect(() => restoreDatabase(station, newer, key)).toThrow(/versión más nueva/);
    expect(() => restoreDatabase(station, damaged, key)).toThrow(/está dañada/);
    expect(() => restoreDatabase(station, path.join(files, 'missing.db'), key)).toThrow(/No existe/);
    expect(await persons(station)).toEqual(['ana']);
    expect(readdirSync(station)).not.toContain(REPLACED_DIR);
    // A damaged station database is what a backup is for: restored over, and kept as it was found.
    writeFileSync(path.join(station, DATABASE_FILE), 'esto ya no es una base');
    writeFileSync(path.join(station, `${DATABASE_FILE}-wal`), 'y su WAL');
    const result = restoreDatabase(station, newerOk, key);
    expect(await persons(station)).toEqual(['ana']);
    expect(readFileSync(result.replaced!, 'utf8')).toBe('esto ya no es una base');
    expect(readFileSync(`${result.replaced!}-wal`, 'utf8')).toBe('y su WAL');
    // Without the key at hand (a desktop station's is in safeStorage) it cannot be checked, and says so.
    expect(inspectDatabase(otherKey, null).key).toBe('not-checked');
  });
});
