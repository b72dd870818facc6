import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { postgresBinDir, postgresForFile } from '../../../e2e/helpers/postgres.js';
import { freshSharedGallery } from '../../../e2e/helpers/shared-gallery.js';
import { keepInStep } from '../../gallery-index/index-sync.js';
import { createLogger } from '../../log/logger.js';
import { EmbeddingIndex } from '../../search/index.js';
import type { Gallery } from '../gallery.js';
import { KEY_CHECK, keyCheckValue, sampleAad } from '../sample-codec.js';
import { FleetKeys } from './fleet-keys.js';
import { openPostgresGallery } from './postgres-gallery.js';
import { rotateFleetKey } from './rotate-fleet-key.js';

// A fleet's key changed online on a real PostgreSQL: the stations hold both keys, the gallery
// says which one seals, and every stored value ends under the new key.
const MODEL = 'test-model@1';
const DIM = 4;
const logger = createLogger('silent');
const face = (i: number) => Float32Array.from({ length: DIM }, (_, d) => (d === i % DIM ? 1 : 0.1 * (i + 1)));

const postgres = postgresForFile();

describe.skipIf(!postgresBinDir())('fleet key rotation (postgres)', () => {
  it('switches every station to the new key at once and seals every stored value again', async () => {
    const [k1, k2] = [randomBytes(32), randomBytes(32)];
    // The fleet before the rotation: its stations hold k1 alone.
    const { url, sql, writer: before } = await freshSharedGallery(postgres, { dataKey: k1, model: MODEL, dim: DIM });
    const station = async (dataKey: Buffer, previousDataKey: Buffer | null = null) => {
      const gallery: Gallery = await openPostgresGallery({ url, dataKey, previousDataKey, logger, station: 's' });
      const index = new EmbeddingIndex(DIM);
      await keepInStep(gallery, index, MODEL);
      postgres.defer(() => gallery.close());
      return { gallery, index };
    };
    const enroll = (g: Gallery, id: string, i: number) =>
      g.enroll(id, [{ modelId: MODEL, embedding: face(i), quality: 80, thumbnail: new Uint8Array([i, 7]) }], { replace: true });
    /** Which of the two keys each stored value opens with, per person and field. */
    const sealedWith = async () => {
      const { rows } = await sql.query<{ id_persona: string; embedding: Buffer; thumbnail: Buffer }>(
        'SELECT id_persona, embedding, thumbnail FROM face_samples ORDER BY id',
      );
      const which = (blob: Buffer, aad: string) =>
        FleetKeys.opensWith(k2, blob, aad) ? 'k2' : FleetKeys.opensWith(k1, blob, aad) ? 'k1' : '?';
      return rows.map(
        (r) =>
          `${r.id_persona}:${which(r.embedding, sampleAad(r.id_persona, 'embedding'))}/${which(r.thumbnail, sampleAad(r.id_persona, 'thumbnail'))}`,
      );
    };

    await enroll(before, 'p1', 1);

    // Phase 1: every station gets the new key beside the old one. The gallery still seals with k1.
    const a = await station(k2, k1);
    const b = await station(k2, k1);
    await enroll(a.gallery, 'p2', 2);
    expect(await sealedWith()).toEqual(['p1:k1/k1', 'p2:k1/k1']);

    // Phase 2, online: the switch, then the samples sealed again.
    expect(await rotateFleetKey(sql, [k2, k1], k2)).toEqual({ resealed: 4, already: 0 });
    const check = await sql.query<{ value: Buffer }>('SELECT value FROM gallery_meta WHERE name = $1', [KEY_CHECK]);
    expect(FleetKeys.opensWith(k2, check.rows[0]!.value, KEY_CHECK)).toBe(true);
    expect(await sealedWith()).toEqual(['p1:k2/k2', 'p2:k2/k2']);

    // Station b, not restarted, now writes with k2; a follows it and reads everything.
    await enroll(b.gallery, 'p3', 3);
    expect((await sealedWith())[2]).toBe('p3:k2/k2');
    await enroll(a.gallery, 'p4', 4); // a's write brings its index up to date with b's
    expect(a.index.search(face(3), 1)[0]).toMatchObject({ idPersona: 'p3' });
    expect((await a.gallery.listSamples('p1'))[0]!.thumbnail).toEqual(new Uint8Array([1, 7]));

    // Again: nothing left to do.
    expect(await rotateFleetKey(sql, [k2, k1], k2)).toEqual({ resealed: 0, already: 4 });

    // Phase 3: the old key is dropped. A station with k2 alone reads every person; one with k1 alone is refused.
    const after = await station(k2);
    expect(after.index.personCount).toBe(4);
    expect((await after.gallery.embeddingsOf('p2'))[0]!.embedding).toEqual(face(2));
    await expect(openPostgresGallery({ url, dataKey: k1, logger, station: 'old' })).rejects.toThrow(
      /no es la de la galería compartida/,
    );
  });

  it('reads values under either key while a rotation is half done, and refuses a ring without the gallery key', async () => {
    const [k1, k2] = [randomBytes(32), randomBytes(32)];
    const { url, sql, writer: old, enroll } = await freshSharedGallery(postgres, { dataKey: k1, model: MODEL, dim: DIM });
    await enroll('early', face(1));

    const s = await openPostgresGallery({ url, dataKey: k2, previousDataKey: k1, logger, station: 's' });
    postgres.defer(() => s.close());
    const index = new EmbeddingIndex(DIM);
    await keepInStep(s, index, MODEL);
    // The switch alone, as if the rotation stopped right after it.
    await sql.query('UPDATE gallery_meta SET value = $2 WHERE name = $1', [KEY_CHECK, keyCheckValue(k2)]);
    await s.enroll('late', [{ modelId: MODEL, embedding: face(2), quality: 80, thumbnail: null }], { replace: false });
    expect((await s.embeddingsOf('early'))[0]!.embedding).toEqual(face(1));
    expect((await s.embeddingsOf('late'))[0]!.embedding).toEqual(face(2));
    expect(index.personCount).toBe(2);
    const late = await sql.query<{ embedding: Buffer }>("SELECT embedding FROM face_samples WHERE id_persona = 'late'");
    expect(FleetKeys.opensWith(k2, late.rows[0]!.embedding, sampleAad('late', 'embedding'))).toBe(true);
    // A station holding only the old key can no longer write: it is told why.
    await expect(
      old.enroll('refused', [{ modelId: MODEL, embedding: face(3), quality: 80, thumbnail: null }], { replace: false }),
    ).rejects.toThrow(/no es la de la galería compartida/);

    await expect(rotateFleetKey(sql, [randomBytes(32)], randomBytes(32))).rejects.toThrow(/no es la de la galería compartida/);
  });
});
