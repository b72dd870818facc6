import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, renameSync } from 'node:fs';
import { seal } from '../../crypto/index.js';
import { DATA_KEY_BYTES, keyFile, loadOrCreateDataKey, pendingKeyFile, writeKeyFile } from '../data-key.js';
import { KEY_CHECK, keyCheckValue, oneKey, SampleCodec, sampleAad } from '../sample-codec.js';
import { closeStationDatabase, openStationDatabase, sqliteFaults, type StationDatabase } from './station-database.js';

/**
 * Rotates the data key of a station whose key lives in its key file. Crash-safe order: the new
 * key is written beside the old one, the database is re-sealed in one transaction, and only then
 * does the new key replace the old. A crash before the commit leaves the old key valid; a crash
 * after it is finished by `recoverPendingRotation` at the next start.
 */
export function rotateDataKey(dataDir: string): { samples: number } {
  recoverPendingRotation(dataDir);
  const key = loadOrCreateDataKey(dataDir, {});
  const database = openStationDatabase(dataDir, key);
  try {
    const next = randomBytes(DATA_KEY_BYTES);
    writeKeyFile(pendingKeyFile(dataDir), next);
    const samples = resealSamples(database, key, next);
    renameSync(pendingKeyFile(dataDir), keyFile(dataDir));
    return { samples };
  } finally {
    closeStationDatabase(database);
  }
}

/** Re-seals every sample, and the key check, under `to`, in one transaction. */
function resealSamples({ db }: StationDatabase, from: Buffer, to: Buffer): number {
  const codec = new SampleCodec(oneKey(from));
  const rows = db.prepare<[], { id: number; id_persona: string; embedding: Buffer; thumbnail: Buffer | null }>(
    'SELECT id, id_persona, embedding, thumbnail FROM face_samples',
  );
  const update = db.prepare('UPDATE face_samples SET embedding = ?, thumbnail = ? WHERE id = ?');
  return sqliteFaults(() =>
    db.transaction(() => {
      let n = 0;
      for (const r of rows.all()) {
        const embedding = codec.open(r.embedding, r.id_persona, 'embedding');
        const thumbnail = r.thumbnail ? codec.open(r.thumbnail, r.id_persona, 'thumbnail') : null;
        update.run(
          seal(to, embedding, sampleAad(r.id_persona, 'embedding')),
          thumbnail ? seal(to, thumbnail, sampleAad(r.id_persona, 'thumbnail')) : null,
          r.id,
        );
        n++;
      }
      db.prepare('UPDATE station_meta SET value = ? WHERE name = ?').run(keyCheckValue(to), KEY_CHECK);
      return n;
    })(),
  );
}

/** After a crash mid-rotation: keep whichever key opens the database. */
export function recoverPendingRotation(dataDir: string): void {
  const pending = pendingKeyFile(dataDir);
  if (!existsSync(pending)) return;
  const next = Buffer.from(readFileSync(pending, 'utf8').trim(), 'base64');
  try {
    closeStationDatabase(openStationDatabase(dataDir, next)); // the re-sealing committed: the new key is the key
    renameSync(pending, keyFile(dataDir));
  } catch {
    renameSync(pending, `${pending}.abandoned-${Date.now()}`); // it did not: the old key still holds
  }
}
