import type { PersonSummary } from '../../../common/api/admin-schemas.js';
import type { EnrollOutcome, Gallery, NewSample, SampleListing, Screen, StoredEmbedding } from '../gallery.js';
import { Mutex } from '../mutex.js';
import { oneKey, personOf, SampleCodec, type PersonRow, type SampleRow, type SealedEmbedding } from '../sample-codec.js';
import type { UnreadableSample } from '../store-error.js';
import { BLOCK_IDS, sealBlock } from './embedding-blocks.js';
import { SqliteFeed } from './sqlite-feed.js';
import { sqliteFaults, type StationDatabase } from './station-database.js';

const PERSON_COLUMNS = `p.id_persona, p.created_at, p.updated_at,
  (SELECT count(*) FROM face_samples s WHERE s.id_persona = p.id_persona) AS samples`;

type ListingRow = SampleRow & { thumbnail: Buffer | null };
type EmbeddingRow = SealedEmbedding & { model_id: string };

/** The one-station gallery: persons and samples in the station's own SQLite file. */
export class SqliteGallery implements Gallery {
  readonly backend = 'sqlite';
  readonly location = 'SQLite (directorio de datos de la estación)';
  readonly feed: SqliteFeed;
  private readonly codec: SampleCodec;
  private readonly db;
  private readonly readOnly: boolean;
  // Screening awaits (it may search the index), so the check-then-write of enrollments is
  // serialized here; SQLite's own transaction covers only the write.
  private readonly writes = new Mutex();
  private readonly q;

  constructor(
    database: StationDatabase,
    private readonly key: Buffer,
    onUnreadable: ((sample: UnreadableSample) => void) | null,
  ) {
    const db = database.db;
    this.db = db;
    this.readOnly = database.readOnly;
    this.codec = new SampleCodec(oneKey(key));
    this.feed = new SqliteFeed(db, key, this.codec, database.readOnly, onUnreadable);
    this.q = {
      personById: db.prepare<[string], PersonRow>(`SELECT ${PERSON_COLUMNS} FROM persons p WHERE p.id_persona = ?`),
      insertPerson: db.prepare('INSERT INTO persons (id_persona, created_at, updated_at) VALUES (?, ?, ?)'),
      touchPerson: db.prepare('UPDATE persons SET updated_at = ? WHERE id_persona = ?'),
      deleteSamples: db.prepare('DELETE FROM face_samples WHERE id_persona = ?'),
      insertSample: db.prepare(
        'INSERT INTO face_samples (id_persona, model_id, embedding, quality, thumbnail, created_at, sealed) VALUES (?, ?, ?, ?, ?, ?, 1)',
      ),
      countSamples: db.prepare<[string], { n: number }>('SELECT count(*) AS n FROM face_samples WHERE id_persona = ?'),
      listingsOf: db.prepare<[string], ListingRow>(
        'SELECT id, id_persona, model_id, quality, thumbnail, created_at FROM face_samples WHERE id_persona = ? ORDER BY id',
      ),
      embeddingsOf: db.prepare<[string], EmbeddingRow>(
        'SELECT id_persona, model_id, embedding FROM face_samples WHERE id_persona = ? ORDER BY id',
      ),
      deletePerson: db.prepare('DELETE FROM persons WHERE id_persona = ?'),
      countPersons: db.prepare<[], { n: number }>('SELECT count(*) AS n FROM persons'),
      countPersonsPrefix: db.prepare<[{ prefix: string }], { n: number }>(
        'SELECT count(*) AS n FROM persons WHERE id_persona >= @prefix AND id_persona < @prefix || char(1114111)',
      ),
      listPersons: db.prepare<[number, number], PersonRow>(
        `SELECT ${PERSON_COLUMNS} FROM persons p ORDER BY p.id_persona LIMIT ? OFFSET ?`,
      ),
      listPersonsPrefix: db.prepare<[{ prefix: string; limit: number; offset: number }], PersonRow>(
        `SELECT ${PERSON_COLUMNS} FROM persons p WHERE p.id_persona >= @prefix AND p.id_persona < @prefix || char(1114111)
         ORDER BY p.id_persona LIMIT @limit OFFSET @offset`,
      ),
      maxSampleId: db.prepare<[], { id: number | null }>('SELECT max(id) AS id FROM face_samples'),
      embeddingRange: db.prepare<[string, number, number], SealedEmbedding>(
        'SELECT id_persona, embedding FROM face_samples WHERE model_id = ? AND id > ? AND id <= ? ORDER BY id',
      ),
      sealedBlocks: db
        .prepare<[string, number | null], number>('SELECT block FROM embedding_blocks WHERE model_id = ? AND leading IS ?')
        .pluck(),
      insertBlock: db.prepare('INSERT OR REPLACE INTO embedding_blocks (block, model_id, leading, sealed) VALUES (?, ?, ?, ?)'),
    };
  }

  enroll<R>(
    idPersona: string,
    samples: NewSample[],
    options: { replace: boolean; screen?: Screen<R> },
  ): Promise<EnrollOutcome<R>> {
    return this.writes.run(async (): Promise<EnrollOutcome<R>> => {
      const rejection = options.screen
        ? await options.screen({ existing: options.replace ? [] : this.embeddingsOfNow(idPersona), candidates: 'index' })
        : null;
      if (rejection !== null) return { stored: false, rejection };
      const result = this.write(idPersona, samples, options.replace);
      this.feed.enrolled(idPersona, samples, options.replace);
      return { stored: true, ...result };
    });
  }

  private write(idPersona: string, samples: readonly NewSample[], replace: boolean): { created: boolean; samples: number } {
    return sqliteFaults(() =>
      this.db.transaction(() => {
        const now = new Date().toISOString();
        const existing = this.q.personById.get(idPersona);
        if (existing) this.q.touchPerson.run(now, idPersona);
        else this.q.insertPerson.run(idPersona, now, now);
        if (replace) this.q.deleteSamples.run(idPersona);
        for (const s of samples) {
          const sealed = this.codec.seal(idPersona, s);
          this.q.insertSample.run(idPersona, s.modelId, sealed.embedding, s.quality, sealed.thumbnail, now);
        }
        return { created: !existing, samples: this.q.countSamples.get(idPersona)!.n };
      })(),
    );
  }

  // Async, though SQLite answers at once: a failing read rejects, as the interface's callers expect.
  async getPerson(idPersona: string): Promise<PersonSummary | null> {
    const row = this.q.personById.get(idPersona);
    return row ? personOf(row) : null;
  }

  async listPersons(query: { prefix?: string | undefined; limit: number; offset: number }) {
    if (query.prefix) {
      const total = this.q.countPersonsPrefix.get({ prefix: query.prefix })!.n;
      const rows = this.q.listPersonsPrefix.all({ prefix: query.prefix, limit: query.limit, offset: query.offset });
      return { total, persons: rows.map(personOf) };
    }
    const total = this.q.countPersons.get()!.n;
    return { total, persons: this.q.listPersons.all(query.limit, query.offset).map(personOf) };
  }

  async listSamples(idPersona: string): Promise<SampleListing[]> {
    return this.q.listingsOf.all(idPersona).map((row) => this.codec.listing(row));
  }

  async embeddingsOf(idPersona: string): Promise<StoredEmbedding[]> {
    return this.embeddingsOfNow(idPersona);
  }

  private embeddingsOfNow(idPersona: string): StoredEmbedding[] {
    return this.q.embeddingsOf.all(idPersona).map((row) => this.codec.stored(row));
  }

  deletePerson(idPersona: string): Promise<number | null> {
    return this.writes.run(() => {
      const removed = sqliteFaults(() =>
        this.db.transaction((): number | null => {
          if (!this.q.personById.get(idPersona)) return null;
          const removed = this.q.deleteSamples.run(idPersona).changes;
          this.q.deletePerson.run(idPersona);
          return removed;
        })(),
      );
      // The WAL still holds earlier copies of the deleted pages: fold it into the (zeroed) file and empty it.
      if (removed !== null) this.checkpoint();
      this.feed.deleted(idPersona);
      return Promise.resolve(removed);
    });
  }

  private checkpoint(): void {
    try {
      this.db.pragma('wal_checkpoint(TRUNCATE)');
    } catch {
      // Best effort (a full disk, a reader mid-scan): the next checkpoint folds and overwrites these frames.
    }
  }

  async countPersons(): Promise<number> {
    return this.q.countPersons.get()!.n;
  }

  /**
   * Seals up to `atMost` of the blocks a rebuild reads instead of rows (embedding-blocks.ts), for
   * ranges of ids no enrollment can reach any more, each holding every embedding's first `leading`
   * values (all without): how many it sealed, and how many such ranges are still without one.
   */
  sealEmbeddingBlocks(modelId: string, atMost: number, leading?: number): { sealed: number; missing: number } {
    if (this.readOnly) return { sealed: 0, missing: 0 };
    return sqliteFaults(() => {
      // Ids only grow: a range below the one holding the last id gets no more samples.
      const maxId = this.q.maxSampleId.get()!.id ?? 0;
      const complete = Math.floor(Math.max(0, maxId - 1) / BLOCK_IDS);
      // A block of another length (an earlier setting) is sealed again, and replaced.
      const sealed = new Set(this.q.sealedBlocks.all(modelId, leading ?? null));
      let missing = 0;
      let done = 0;
      for (let block = 0; block < complete; block++) {
        if (sealed.has(block)) continue;
        if (done >= atMost) {
          missing++;
          continue;
        }
        done++;
        // Read and written in one transaction: the block is the rows as committed.
        this.db.transaction(() => {
          const rows = this.q.embeddingRange.all(modelId, block * BLOCK_IDS, (block + 1) * BLOCK_IDS);
          const embeddings = this.codec.embeddings(rows) as Float32Array[];
          const persons = rows.map((r) => r.id_persona);
          const bytes = sealBlock(this.key, modelId, block, leading ?? null, persons, embeddings);
          this.q.insertBlock.run(block, modelId, leading ?? null, bytes);
        })();
      }
      return { sealed: done, missing };
    });
  }

  // The station's SQLite file holds its tokens and audit log too: closing it is the station's (sqlite-station.ts).
  close(): Promise<void> {
    return Promise.resolve();
  }
}
