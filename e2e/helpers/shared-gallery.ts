import pg from 'pg';
import { keepInStep } from '../../server/gallery-index/index-sync.js';
import { openPostgresGallery } from '../../server/storage/index.js';
import { createLogger } from '../../server/log/logger.js';
import { EmbeddingIndex } from '../../server/search/index.js';
import type { postgresForFile } from './postgres.js';

/**
 * A fresh database on the file's cluster with a station writing to it (its pruning timer far
 * away: the tests prune when they choose) and a plain SQL client, closed after the file's tests.
 */
export async function freshSharedGallery(
  postgres: ReturnType<typeof postgresForFile>,
  o: { dataKey: Buffer; model: string; dim: number },
) {
  const url = await postgres.cluster.createDatabase();
  const writer = await openPostgresGallery({
    url,
    dataKey: o.dataKey,
    logger: createLogger('silent'),
    station: 'w',
    pruneEveryMs: 3_600_000,
  });
  await keepInStep(writer, new EmbeddingIndex(o.dim), o.model);
  const sql = new pg.Client({ connectionString: url });
  await sql.connect();
  postgres.defer(
    () => writer.close(),
    () => sql.end(),
  );
  /** Enrolls (or re-enrolls) `id` with one sample. */
  const enroll = (id: string, embedding: Float32Array) =>
    writer.enroll(id, [{ modelId: o.model, embedding, quality: 80, thumbnail: null }], { replace: true });
  return { url, writer, sql, enroll };
}
