import { randomBytes } from 'node:crypto';
import { existsSync, rmSync } from 'node:fs';
import path from 'node:path';
import {
  DATA_KEY_BYTES,
  DATABASE_FILE,
  keyFile,
  keyOpensFile,
  loadOrCreateDataKey,
  REPLACED_KEY_PREFIX,
  replacedKeyName,
} from '../server/storage/index.js';
import { SecretStoreError, type SealedSecrets } from './secret-store.js';

export const DATA_KEY_SECRET = 'data-key';
/** A restore's backup key, sealed while the database is swapped: taken at the next start if the swap finished. */
export const RESTORING_KEY_SECRET = 'data-key-restoring';

export interface HostDataKey {
  key: Buffer;
  source: 'sealed' | 'created' | 'migrated';
  /**
   * Call once the station has opened its database with `key`: only then is a headless key file
   * holding the same key deleted, so a failed start never loses the only copy.
   */
  finish(): void;
}

/**
 * The desktop station's data key, sealed with safeStorage: read it, or take over the headless
 * key file (`<dataDir>/keys/data.key`) when a station made by `enrolla serve` is opened here, or
 * create a new one. ENROLLA_DATA_KEY is not consulted: the desktop keeps its key itself.
 */
export function loadOrCreateHostDataKey(secrets: SealedSecrets, stationDataDir: string): HostDataKey {
  finishInterruptedRestore(secrets, stationDataDir);
  const legacy = keyFile(stationDataDir);
  const sealed = secrets.read(DATA_KEY_SECRET);
  if (sealed !== null) {
    const key = decodeKey(sealed, secrets.file(DATA_KEY_SECRET));
    const fileKey = existsSync(legacy) ? loadOrCreateDataKey(stationDataDir, {}) : null;
    // A migration interrupted after sealing: the key file is the same key, finish removing it.
    if (fileKey?.equals(key)) return { key, source: 'sealed', finish: () => rmSync(legacy, { force: true }) };
    // `enrolla restore --key` run on this data directory: the key file is the restored database's.
    const database = path.join(stationDataDir, DATABASE_FILE);
    if (fileKey && keyOpensFile(database, fileKey) === true && keyOpensFile(database, key) !== true) {
      secrets.write(replacedKeyName(new Date()), key.toString('base64'));
      seal(secrets, fileKey);
      return { key: fileKey, source: 'migrated', finish: () => rmSync(legacy, { force: true }) };
    }
    return { key, source: 'sealed', finish: () => undefined };
  }
  if (existsSync(legacy)) {
    const key = loadOrCreateDataKey(stationDataDir, {}); // validates length and owner-only mode
    seal(secrets, key);
    return { key, source: 'migrated', finish: () => rmSync(legacy, { force: true }) };
  }
  const key = randomBytes(DATA_KEY_BYTES);
  seal(secrets, key);
  return { key, source: 'created', finish: () => undefined };
}

/**
 * The keys a restore may need besides the station's own: those kept when a restore replaced a
 * database sealed with another key (so the replaced database can be restored back).
 */
export function replacedKeys(secrets: SealedSecrets): Buffer[] {
  return secrets
    .names()
    .filter((n) => n.startsWith(REPLACED_KEY_PREFIX))
    .map((n) => decodeKey(secrets.read(n)!, secrets.file(n)));
}

/**
 * Makes `next` the station's key around `swap` (a restore of a database sealed with it), keeping
 * `current` sealed first as `kept` (`replacedKeyName` of the restore's moment). A crash between the swap and the key's sealing is
 * finished at the next start (`RESTORING_KEY_SECRET`); a failed swap leaves the keys as they were.
 */
export async function swapHostDataKey<T>(
  secrets: SealedSecrets,
  current: Buffer,
  next: Buffer,
  kept: string,
  swap: () => Promise<T>,
): Promise<T> {
  if (next.equals(current)) return swap();
  secrets.write(kept, current.toString('base64'));
  secrets.write(RESTORING_KEY_SECRET, next.toString('base64'));
  let result: T;
  try {
    result = await swap();
  } catch (error) {
    secrets.remove(RESTORING_KEY_SECRET);
    secrets.remove(kept);
    throw error;
  }
  seal(secrets, next);
  secrets.remove(RESTORING_KEY_SECRET);
  return result;
}

/** A restore's key left sealed by a crash: the station's key if the restored database opens with it. */
function finishInterruptedRestore(secrets: SealedSecrets, stationDataDir: string): void {
  const sealed = secrets.read(RESTORING_KEY_SECRET);
  if (sealed === null) return;
  const key = decodeKey(sealed, secrets.file(RESTORING_KEY_SECRET));
  if (keyOpensFile(path.join(stationDataDir, DATABASE_FILE), key) === true) seal(secrets, key);
  secrets.remove(RESTORING_KEY_SECRET);
}

/** Seals and reads back: a keyring that does not return what it was given is caught now. */
function seal(secrets: SealedSecrets, key: Buffer): void {
  secrets.write(DATA_KEY_SECRET, key.toString('base64'));
  const back = secrets.read(DATA_KEY_SECRET);
  if (back === null || !decodeKey(back, secrets.file(DATA_KEY_SECRET)).equals(key)) {
    secrets.remove(DATA_KEY_SECRET);
    throw new SecretStoreError('El llavero del sistema no devolvió la clave guardada: no se puede continuar.');
  }
}

function decodeKey(base64: string, file: string): Buffer {
  const key = Buffer.from(base64, 'base64');
  if (key.length !== DATA_KEY_BYTES) throw new SecretStoreError(`${file} no contiene una clave de 32 bytes`);
  return key;
}
