import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync, chmodSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { keyFile, loadOrCreateDataKey, openSqliteStation, replacedKeyName } from '../server/storage/index.js';
import { FakeSafeStorage } from '../test/fakes/electron.js';
import {
  DATA_KEY_SECRET,
  loadOrCreateHostDataKey,
  replacedKeys,
  RESTORING_KEY_SECRET,
  swapHostDataKey,
} from './host-data-key.js';
import { ALLOW_PLAINTEXT_ENV, assertProtectedStorage, SealedSecrets, SecretStoreError } from './secret-store.js';

const dirs: string[] = [];
function tempDir(): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'enrolla-secrets-'));
  dirs.push(dir);
  return dir;
}
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe('safeStorage backend policy', () => {
  it('refuses Linux’s plaintext backend with a clear message, unless explicitly overridden', () => {
    const plain = new FakeSafeStorage('basic_text');
    expect(() => assertProtectedStorage(plain, 'linux', {})).toThrow(SecretStoreError);
    expect(() => assertProtectedStorage(plain, 'linux', {})).toThrow(/llavero.*texto plano.*ENROLLA_ALLOW_PLAINTEXT_SECRETS=1/s);
    expect(() => assertProtectedStorage(plain, 'linux', { [ALLOW_PLAINTEXT_ENV]: 'true' })).toThrow(SecretStoreError);
    expect(assertProtectedStorage(plain, 'linux', { [ALLOW_PLAINTEXT_ENV]: '1' })).toEqual({ backend: 'basic_text' });
  });

  it('accepts a keyring on Linux and the OS store elsewhere; refuses when encryption is unavailable', () => {
    expect(assertProtectedStorage(new FakeSafeStorage('gnome_libsecret'), 'linux', {})).toEqual({ backend: 'gnome_libsecret' });
    expect(assertProtectedStorage(new FakeSafeStorage('kwallet5'), 'linux', {})).toEqual({ backend: 'kwallet5' });
    // The backend query is Linux-only: on Windows (DPAPI) and macOS (Keychain) it is not consulted.
    expect(assertProtectedStorage(new FakeSafeStorage('basic_text'), 'win32', {})).toEqual({ backend: 'os' });
    expect(() => assertProtectedStorage(new FakeSafeStorage('gnome_libsecret', false), 'linux', {})).toThrow(
      /almacenamiento cifrado/,
    );
  });
});

describe('sealed secrets', () => {
  it('round-trips through safeStorage into an owner-only file that does not hold the plaintext', () => {
    const dir = path.join(tempDir(), 'keys');
    const secrets = new SealedSecrets(dir, new FakeSafeStorage());
    expect(secrets.read('x')).toBeNull();
    secrets.write('x', 'secreto-muy-secreto');
    expect(secrets.read('x')).toBe('secreto-muy-secreto');
    expect(readFileSync(secrets.file('x')).includes('secreto')).toBe(false);
    expect(statSync(secrets.file('x')).mode & 0o777).toBe(0o600);
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    secrets.write('x', 'otro');
    expect(secrets.read('x')).toBe('otro');
  });

  it('says which file another keyring sealed', () => {
    const dir = tempDir();
    new SealedSecrets(dir, new FakeSafeStorage('gnome_libsecret', true, 'uno')).write('x', 'v');
    expect(() => new SealedSecrets(dir, new FakeSafeStorage('gnome_libsecret', true, 'otro')).read('x')).toThrow(
      /x\.sealed.*otra cuenta/s,
    );
  });
});

describe('the desktop data key', () => {
  it('is created once, sealed, and read back the same at the next start', () => {
    const dataDir = tempDir();
    const secrets = new SealedSecrets(path.join(dataDir, 'keys'), new FakeSafeStorage());
    const first = loadOrCreateHostDataKey(secrets, dataDir);
    expect(first.source).toBe('created');
    expect(first.key).toHaveLength(32);
    expect(existsSync(keyFile(dataDir))).toBe(false); // never written in clear
    expect(readFileSync(secrets.file(DATA_KEY_SECRET)).includes(first.key.toString('base64'))).toBe(false);
    const again = loadOrCreateHostDataKey(secrets, dataDir);
    expect(again.source).toBe('sealed');
    expect(again.key.equals(first.key)).toBe(true);
  });

  it('takes over a headless key file, deleting it only once the station has opened with it', () => {
    const dataDir = tempDir();
    const headless = loadOrCreateDataKey(dataDir, {});
    const secrets = new SealedSecrets(path.join(dataDir, 'keys'), new FakeSafeStorage());
    const migrated = loadOrCreateHostDataKey(secrets, dataDir);
    expect(migrated.source).toBe('migrated');
    expect(migrated.key.equals(headless)).toBe(true);
    expect(existsSync(keyFile(dataDir))).toBe(true); // the start has not succeeded yet
    // Interrupted here (the station failed to start): the next start finishes the migration.
    const resumed = loadOrCreateHostDataKey(secrets, dataDir);
    expect(resumed.source).toBe('sealed');
    expect(resumed.key.equals(headless)).toBe(true);
    resumed.finish();
    expect(existsSync(keyFile(dataDir))).toBe(false);
    expect(loadOrCreateHostDataKey(secrets, dataDir).key.equals(headless)).toBe(true);
  });

  it('leaves a key file that holds a different key alone', () => {
    const dataDir = tempDir();
    const secrets = new SealedSecrets(path.join(dataDir, 'keys'), new FakeSafeStorage());
    const sealed = loadOrCreateHostDataKey(secrets, dataDir).key;
    const other = loadOrCreateDataKey(dataDir, {});
    expect(other.equals(sealed)).toBe(false);
    const loaded = loadOrCreateHostDataKey(secrets, dataDir);
    loaded.finish();
    expect(loaded.key.equals(sealed)).toBe(true);
    expect(existsSync(keyFile(dataDir))).toBe(true);
  });

  it('takes the key file `enrolla restore --key` left when it opens the database and the sealed key does not', () => {
    const dataDir = tempDir();
    const secrets = new SealedSecrets(path.join(dataDir, 'keys'), new FakeSafeStorage());
    const sealed = loadOrCreateHostDataKey(secrets, dataDir).key;
    openSqliteStation(dataDir, sealed).close();
    // What the command leaves: another station's database in place, its key as the key file.
    const restoredKey = randomBytes(32);
    rmSync(path.join(dataDir, 'enrolla.db'));
    openSqliteStation(dataDir, restoredKey).close();
    writeFileSync(keyFile(dataDir), `${restoredKey.toString('base64')}\n`, { mode: 0o600 });
    const loaded = loadOrCreateHostDataKey(secrets, dataDir);
    expect(loaded.key.equals(restoredKey)).toBe(true);
    loaded.finish();
    expect(existsSync(keyFile(dataDir))).toBe(false);
    // The key it stopped using is kept for the database the restore replaced.
    expect(replacedKeys(secrets).map((k) => k.equals(sealed))).toEqual([true]);
    expect(loadOrCreateHostDataKey(secrets, dataDir).key.equals(restoredKey)).toBe(true);
  });

  it('refuses to migrate a key file readable by other users, as the headless station does', () => {
    const dataDir = tempDir();
    loadOrCreateDataKey(dataDir, {});
    chmodSync(keyFile(dataDir), 0o644);
    const secrets = new SealedSecrets(path.join(dataDir, 'keys'), new FakeSafeStorage());
    expect(() => loadOrCreateHostDataKey(secrets, dataDir)).toThrow(/chmod 600/);
    expect(secrets.has(DATA_KEY_SECRET)).toBe(false);
  });

  it('takes a restore’s key, keeping the replaced one; a failed restore leaves the keys as they were', async () => {
    const dataDir = tempDir();
    const secrets = new SealedSecrets(path.join(dataDir, 'keys'), new FakeSafeStorage());
    const current = loadOrCreateHostDataKey(secrets, dataDir).key;
    const backupKey = randomBytes(32);
    await expect(
      swapHostDataKey(secrets, current, backupKey, replacedKeyName(new Date('2026-11-28T10:00:00Z')), () =>
        Promise.reject(new Error('no es SQLite')),
      ),
    ).rejects.toThrow(/no es SQLite/);
    expect(secrets.names()).toEqual([DATA_KEY_SECRET]);
    expect(loadOrCreateHostDataKey(secrets, dataDir).key.equals(current)).toBe(true);

    expect(
      await swapHostDataKey(secrets, current, backupKey, replacedKeyName(new Date('2026-11-28T11:00:00Z')), () =>
        Promise.resolve('restaurado'),
      ),
    ).toBe('restaurado');
    expect(loadOrCreateHostDataKey(secrets, dataDir).key.equals(backupKey)).toBe(true);
    expect(replacedKeys(secrets).map((k) => k.equals(current))).toEqual([true]);
    expect(secrets.has(RESTORING_KEY_SECRET)).toBe(false);
  });

  it('finishes a restore a crash interrupted: the restoring key is taken only if the database opens with it', () => {
    const dataDir = tempDir();
    const secrets = new SealedSecrets(path.join(dataDir, 'keys'), new FakeSafeStorage());
    const current = loadOrCreateHostDataKey(secrets, dataDir).key;
    const backupKey = randomBytes(32);
    // The crash came before the database was swapped: the station's database is still the current key's.
    openSqliteStation(dataDir, current).close();
    secrets.write(RESTORING_KEY_SECRET, backupKey.toString('base64'));
    expect(loadOrCreateHostDataKey(secrets, dataDir).key.equals(current)).toBe(true);
    expect(secrets.has(RESTORING_KEY_SECRET)).toBe(false);
    // After the swap, before the key was sealed: the restored database is the backup key's.
    rmSync(path.join(dataDir, 'enrolla.db'));
    openSqliteStation(dataDir, backupKey).close();
    secrets.write(RESTORING_KEY_SECRET, backupKey.toString('base64'));
    expect(loadOrCreateHostDataKey(secrets, dataDir).key.equals(backupKey)).toBe(true);
    expect(secrets.has(RESTORING_KEY_SECRET)).toBe(false);
  });

  it('rejects a sealed blob that is not a 32-byte key', () => {
    const dataDir = tempDir();
    const secrets = new SealedSecrets(path.join(dataDir, 'keys'), new FakeSafeStorage());
    secrets.write(DATA_KEY_SECRET, Buffer.alloc(16).toString('base64'));
    expect(() => loadOrCreateHostDataKey(secrets, dataDir)).toThrow(/32 bytes/);
    writeFileSync(secrets.file(DATA_KEY_SECRET), 'basura');
    expect(() => loadOrCreateHostDataKey(secrets, dataDir)).toThrow(/descifrar/);
  });
});
