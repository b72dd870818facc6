import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, renameSync } from 'node:fs';
import { DATA_KEY_BYTES, keyFile, loadOrCreateDataKey, pendingKeyFile, writeKeyFile } from './data-key.js';
import { openSqliteStore } from '../store/sqlite/sqlite-store.js';

/**
 * Rotates the data key of a station whose key lives in its key file. Crash-safe order: the new
 * key is written beside the old one, the database is re-sealed in one transaction, and only then
 * does the new key replace the old. A crash before the commit leaves the old key valid; a crash
 * after it is finished by `recoverPendingRotation` at the next start.
 */
export function rotateDataKey(dataDir: string): { samples: number } {
  recoverPendingRotation(dataDir);
  const store = openSqliteStore(dataDir, loadOrCreateDataKey(dataDir, {}));
  try {
    const next = randomBytes(DATA_KEY_BYTES);
    writeKeyFile(pendingKeyFile(dataDir), next);
    const samples = store.rotateDataKey(next);
    renameSync(pendingKeyFile(dataDir), keyFile(dataDir));
    return { samples };
  } finally {
    store.close();
  }
}

/** After a crash mid-rotation: keep whichever key opens the database. */
export function recoverPendingRotation(dataDir: string): void {
  const pending = pendingKeyFile(dataDir);
  if (!existsSync(pending)) return;
  const next = Buffer.from(readFileSync(pending, 'utf8').trim(), 'base64');
  try {
    openSqliteStore(dataDir, next).close(); // the re-sealing committed: the new key is the key
    renameSync(pending, keyFile(dataDir));
  } catch {
    renameSync(pending, `${pending}.abandoned-${Date.now()}`); // it did not: the old key still holds
  }
}
