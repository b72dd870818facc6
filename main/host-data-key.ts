import { randomBytes } from 'node:crypto';
import { existsSync, rmSync } from 'node:fs';
import { DATA_KEY_BYTES, keyFile, loadOrCreateDataKey } from '../server/crypto/data-key.js';
import { SecretStoreError, type SealedSecrets } from './secret-store.js';

export const DATA_KEY_SECRET = 'data-key';

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
  const legacy = keyFile(stationDataDir);
  const sealed = secrets.read(DATA_KEY_SECRET);
  if (sealed !== null) {
    const key = decodeKey(sealed, secrets.file(DATA_KEY_SECRET));
    // A migration interrupted after sealing: the key file is the same key, finish removing it.
    const sameAsLegacy = existsSync(legacy) && loadOrCreateDataKey(stationDataDir, {}).equals(key);
    return { key, source: 'sealed', finish: () => sameAsLegacy && rmSync(legacy, { force: true }) };
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
