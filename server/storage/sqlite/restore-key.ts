import { existsSync, readdirSync, renameSync, rmSync } from 'node:fs';
import path from 'node:path';
import { DataKeyError, keyFile, loadDataKey, pendingKeyFile, readKeyFile, writeKeyFile } from '../data-key.js';
import { recoverPendingRotation } from './rotate-key.js';
import { keyOpensFile, REPLACED_KEY_PREFIX, replacedKeyName, restoreDatabase, type RestoreResult } from './backup.js';
import { DATABASE_FILE } from './station-database.js';
import { assertDatabaseNotInUse } from './station-lock.js';

export interface KeyFileRestore extends RestoreResult {
  /** The backup's key became the station's key file (another station's backup, or a key lost with the disk). */
  keyChanged: boolean;
  /** Where the key the station stopped using was kept (null when it kept its key or had none). */
  keptKey: string | null;
}

/**
 * `restoreDatabase` for a station whose key is its key file (`keys/data.key`), with the key that
 * opens the backup: `given` (an exported key, another station's key file), else the station's own
 * or one a restore kept. When that key is not the station's it becomes so, crash-safe in
 * `rotateDataKey`'s way: the station's key is kept first (`keys/data-key-replaced-<stamp>.key`,
 * the stamp of the database the restore moves to `replaced/`, so restoring that one back needs no
 * key given), the backup's written as the pending key, the database swapped, the pending key
 * renamed into place. A crash before the rename is finished at the next start by
 * `recoverPendingRotation`, which keeps whichever key opens the database in place; a failed
 * restore leaves the keys as they were.
 */
export function restoreWithKeyFile(dataDir: string, backup: string, given: Buffer | null, now = new Date()): KeyFileRestore {
  assertDatabaseNotInUse(path.join(dataDir, DATABASE_FILE), 'restaurar un respaldo');
  if (given && keyOpensFile(backup, given) === false)
    throw new DataKeyError(`La clave dada no abre ${backup}: es de otra estación o de otro momento (docs/security.md).`);
  recoverPendingRotation(dataDir); // its pending key file is the one this restore writes
  const current = loadDataKey(dataDir, {});
  const candidates = given ? [given] : [current, ...keptKeys(dataDir)].filter((k): k is Buffer => k !== null);
  const key = candidates.find((k) => keyOpensFile(backup, k) === true);
  if (!key || (current && key.equals(current)))
    return { ...restoreDatabase(dataDir, backup, current, { now }), keyChanged: false, keptKey: null };

  const kept = current ? path.join(path.dirname(keyFile(dataDir)), `${replacedKeyName(now)}.key`) : null;
  if (kept) writeKeyFile(kept, current!);
  writeKeyFile(pendingKeyFile(dataDir), key);
  let result: RestoreResult;
  try {
    result = restoreDatabase(dataDir, backup, key, { now });
  } catch (error) {
    rmSync(pendingKeyFile(dataDir), { force: true });
    if (kept) rmSync(kept, { force: true });
    throw error;
  }
  renameSync(pendingKeyFile(dataDir), keyFile(dataDir));
  return { ...result, keyChanged: true, keptKey: kept };
}

/** The keys earlier restores kept, newest first. */
function keptKeys(dataDir: string): Buffer[] {
  const dir = path.dirname(keyFile(dataDir));
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((name) => name.startsWith(REPLACED_KEY_PREFIX) && name.endsWith('.key'))
    .sort()
    .reverse()
    .map((name) => readKeyFile(path.join(dir, name)));
}
