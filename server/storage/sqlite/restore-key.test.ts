import Database from 'better-sqlite3';
import { randomBytes } from 'node:crypto';
import { copyFileSync, existsSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { keyFile, loadDataKey, loadOrCreateDataKey, pendingKeyFile, writeKeyFile } from '../data-key.js';
import { backupDatabase } from './backup.js';
import { openSqliteStation } from './sqlite-station.js';
import { DATABASE_FILE } from './station-database.js';
import { restoreWithKeyFile } from './restore-key.js';
import { recoverPendingRotation } from './rotate-key.js';

const dir = () => mkdtempSync(path.join(tmpdir(), 'enrolla-restore-key-'));
const sample = { modelId: 'm', embedding: Float32Array.from([0.5, -1, 2]), quality: 80, thumbnail: new Uint8Array([1, 2, 3]) };

/** A headless station with its key file and these people, and a backup of it. */
async function stationWith(...ids: string[]) {
  const dataDir = dir();
  const key = loadOrCreateDataKey(dataDir, {});
  const store = openSqliteStation(dataDir, key);
  for (const id of ids) await store.gallery.enroll(id, [sample], { replace: false });
  store.close();
  const backup = path.join(dir(), `${ids.join('-')}.db`);
  await backupDatabase(dataDir, backup, key);
  return { dataDir, key, backup };
}

const persons = async (dataDir: string, key: Buffer) => {
  const store = openSqliteStation(dataDir, key);
  try {
    return (await store.gallery.listPersons({ limit: 10, offset: 0 })).persons.map((p) => p.idPersona);
  } finally {
    store.close();
  }
};
const keysDir = (dataDir: string) => path.dirname(keyFile(dataDir));

describe('a restore that brings its own key (headless key file)', () => {
  it("takes another station's backup with that station's key, keeps its own key, and restores back without one", async () => {
    const here = await stationWith('ana');
    const there = await stationWith('beto');
    const restored = restoreWithKeyFile(here.dataDir, there.backup, there.key, new Date('2026-11-28T10:00:00Z'));
    expect(restored).toMatchObject({ persons: 1, keyChanged: true });
    expect(loadDataKey(here.dataDir, {})!.equals(there.key)).toBe(true);
    expect(await persons(here.dataDir, there.key)).toEqual(['beto']);
    // The key that seals the replaced database is kept beside it, owner-only as the station's own.
    expect(path.basename(restored.keptKey!)).toBe(`data-key-replaced-${path.basename(restored.replaced!, '.db')}.key`);
    expect(readFileSync(restored.keptKey!, 'utf8').trim()).toBe(here.key.toString('base64'));
    expect(existsSync(pendingKeyFile(here.dataDir))).toBe(false);

    // The database replaced by mistake goes back with no key given: the kept one opens it.
    const back = restoreWithKeyFile(here.dataDir, restored.replaced!, null, new Date('2026-11-28T11:00:00Z'));
    expect(back).toMatchObject({ keyChanged: true });
    expect(loadDataKey(here.dataDir, {})!.equals(here.key)).toBe(true);
    expect(await persons(here.dataDir, here.key)).toEqual(['ana']);
    expect(readFileSync(back.keptKey!, 'utf8').trim()).toBe(there.key.toString('base64'));
  });

  it('refuses a key that does not open the backup, changing nothing', async () => {
    const here = await stationWith('ana');
    const there = await stationWith('beto');
    const database = readFileSync(path.join(here.dataDir, DATABASE_FILE));
    expect(() => restoreWithKeyFile(here.dataDir, there.backup, randomBytes(32))).toThrow(/La clave dada no abre/);
    expect(readFileSync(path.join(here.dataDir, DATABASE_FILE)).equals(database)).toBe(true);
    expect(readdirSync(keysDir(here.dataDir))).toEqual(['data.key']);
    expect(loadDataKey(here.dataDir, {})!.equals(here.key)).toBe(true);
  });

  it('leaves the keys as they were when the restore itself is refused after the key was checked', async () => {
    const here = await stationWith('ana');
    const there = await stationWith('beto');
    // Its key opens it, but it is of a newer Enrolla: refused by restoreDatabase, after the keys were laid out.
    const newer = path.join(dir(), 'newer.db');
    copyFileSync(there.backup, newer);
    const db = new Database(newer);
    db.pragma('user_version = 999');
    db.close();
    expect(() => restoreWithKeyFile(here.dataDir, newer, there.key)).toThrow(/versión más nueva/);
    expect(readdirSync(keysDir(here.dataDir))).toEqual(['data.key']);
    expect(await persons(here.dataDir, here.key)).toEqual(['ana']);
  });

  it('gives a new machine, with no key and no database, the key of the backup it restores', async () => {
    const there = await stationWith('beto');
    const fresh = dir();
    const restored = restoreWithKeyFile(fresh, there.backup, there.key);
    expect(restored).toMatchObject({ keyChanged: true, keptKey: null, replaced: null });
    expect(loadDataKey(fresh, {})!.equals(there.key)).toBe(true);
    expect(await persons(fresh, there.key)).toEqual(['beto']);
  });

  it("keeps the station's key when the backup is its own, and refuses another's without its key", async () => {
    const here = await stationWith('ana');
    const own = restoreWithKeyFile(here.dataDir, here.backup, null);
    expect(own).toMatchObject({ keyChanged: false, keptKey: null, key: 'opens' });
    const there = await stationWith('beto');
    expect(() => restoreWithKeyFile(here.dataDir, there.backup, null)).toThrow(/otra clave de datos.*--key/);
    expect(readdirSync(keysDir(here.dataDir))).toEqual(['data.key']);
  });

  it('after a crash between the swap and the key file, the next start takes the key that opens the restored database', async () => {
    const here = await stationWith('ana');
    const there = await stationWith('beto');
    // What such a crash leaves: the backup in place, its key pending, the station's key file unchanged.
    writeKeyFile(pendingKeyFile(here.dataDir), there.key);
    copyFileSync(there.backup, path.join(here.dataDir, DATABASE_FILE));
    recoverPendingRotation(here.dataDir);
    expect(loadDataKey(here.dataDir, {})!.equals(there.key)).toBe(true);
    expect(await persons(here.dataDir, there.key)).toEqual(['beto']);
  });
});
