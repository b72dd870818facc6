import pg from 'pg';
import { seal } from '../../crypto/index.js';
import { KEY_CHECK, keyCheckValue, sampleAad } from '../sample-codec.js';
import { FleetKeys } from './fleet-keys.js';
import { migrate, WRITE_LOCK } from './migrations.js';
import { inTransaction } from './transaction.js';

const BATCH = 500;

export interface FleetRotation {
  /** Values sealed again under the new key (embeddings and thumbnails). */
  resealed: number;
  /** Samples found already under the new key (written after the switch, or by an earlier run). */
  already: number;
}

/**
 * Moves a shared gallery to the key `to`, online. Every station must already hold both keys (the
 * new one and the one in use: docs/fleet-gallery.md). First the check value is sealed with `to`,
 * under the fleet's write lock, so every write from then on seals with it (writers read the check
 * under the same lock); then the samples still under another key of `ring` are sealed again, a
 * batch per transaction. Running it again finishes an interrupted rotation.
 */
export async function rotateFleetKey(client: pg.ClientBase, ring: readonly Buffer[], to: Buffer): Promise<FleetRotation> {
  const keys = new FleetKeys([to, ...ring.filter((k) => !k.equals(to))]);
  await inTransaction(client, async () => {
    await client.query('SELECT pg_advisory_xact_lock($1)', [WRITE_LOCK]);
    await keys.readCheck(client); // refuses a ring that does not hold the gallery's key
    await client.query('UPDATE gallery_meta SET value = $2 WHERE name = $1', [KEY_CHECK, keyCheckValue(to)]);
  });
  const done: FleetRotation = { resealed: 0, already: 0 };
  for (let after = '0'; ; ) {
    const { rows } = await client.query<{ id: string; id_persona: string; embedding: Buffer; thumbnail: Buffer | null }>(
      'SELECT id, id_persona, embedding, thumbnail FROM face_samples WHERE id > $1 ORDER BY id LIMIT $2',
      [after, BATCH],
    );
    if (rows.length === 0) return done;
    await inTransaction(client, async () => {
      // Samples are never updated, only deleted or added: a row deleted meanwhile updates nothing.
      for (const r of rows) {
        const embeddingAad = sampleAad(r.id_persona, 'embedding');
        if (FleetKeys.opensWith(to, r.embedding, embeddingAad)) {
          done.already++;
          continue;
        }
        const thumbnailAad = sampleAad(r.id_persona, 'thumbnail');
        const thumbnail = r.thumbnail ? seal(to, keys.open(r.thumbnail, thumbnailAad), thumbnailAad) : null;
        await client.query('UPDATE face_samples SET embedding = $2, thumbnail = $3 WHERE id = $1', [
          r.id,
          seal(to, keys.open(r.embedding, embeddingAad), embeddingAad),
          thumbnail,
        ]);
        done.resealed += thumbnail ? 2 : 1;
      }
    });
    after = rows.at(-1)!.id;
  }
}

/** The same on a connection of its own to `url` (the command line's `key rotate`), the schema first brought up to date. */
export async function rotateFleetKeyAt(url: string, ring: readonly Buffer[], to: Buffer): Promise<FleetRotation> {
  const client = new pg.Client({ connectionString: url, application_name: 'enrolla-key-rotate' });
  await client.connect();
  try {
    await migrate(client);
    return await rotateFleetKey(client, ring, to);
  } finally {
    await client.end();
  }
}
