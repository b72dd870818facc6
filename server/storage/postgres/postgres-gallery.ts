import { randomBytes } from 'node:crypto';
import pg from 'pg';
import type { PersonSummary } from '../../../common/api/admin-schemas.js';
import type { Logger } from '../../log/index.js';
import type { EnrollOutcome, Gallery, NewSample, SampleListing, Screen, StoredEmbedding } from '../gallery.js';
import { personOf, SampleCodec, type PersonRow, type SampleRow, type SealedEmbedding } from '../sample-codec.js';
import { UNREADABLE_SAMPLE_LOG } from '../store-error.js';
import { CHANNEL, type ChangeFeed, type OwnChange } from './change-feed.js';
import { FleetKeys } from './fleet-keys.js';
import { galleryError } from './errors.js';
import { migrate, WRITE_LOCK } from './migrations.js';
import { PostgresFeed } from './postgres-feed.js';

export interface PostgresGalleryOptions {
  url: string;
  /** The fleet's data key: every station sharing the database must hold the same one. */
  dataKey: Buffer;
  /** During a key rotation, the key being replaced (values under it still open). */
  previousDataKey?: Buffer | null;
  logger: Logger;
  /** Recorded with each change (which station wrote it). */
  station: string;
  poolSize?: number;
  pollMs?: number;
  /** Changes older than this are deleted from the change feed (default CHANGE_RETENTION_DAYS). */
  changeRetentionMs?: number;
  /** How often this station prunes the change feed (default hourly, and once when its index starts following). */
  pruneEveryMs?: number;
}

/** "PostgreSQL host:port/db", never the password. */
export function describeDatabase(url: string): string {
  try {
    const u = new URL(url);
    return `PostgreSQL ${u.hostname || 'localhost'}:${u.port || '5432'}${u.pathname || '/'}`;
  } catch {
    return 'PostgreSQL';
  }
}

/** Connects, migrates and checks the key; a search index follows it through `feed` (index-sync.ts). */
export async function openPostgresGallery(options: PostgresGalleryOptions): Promise<PostgresGallery> {
  const location = describeDatabase(options.url);
  const config: pg.ClientConfig = {
    connectionString: options.url,
    connectionTimeoutMillis: 5000,
    statement_timeout: 30_000,
    application_name: 'enrolla',
  };
  let galleryId = '';
  const keys = new FleetKeys(options.previousDataKey ? [options.dataKey, options.previousDataKey] : [options.dataKey]);
  const pool = new pg.Pool({ ...config, max: options.poolSize ?? 8, idleTimeoutMillis: 30_000 });
  // An idle client losing its server must not bring the station down; the next query reports it.
  pool.on('error', (error) => options.logger.warn({ err: error.message, db: location }, 'galería compartida: conexión perdida'));
  try {
    const client = await pool.connect();
    try {
      await migrate(client);
      await keys.start(client);
      galleryId = await readGalleryId(client);
    } finally {
      client.release();
    }
  } catch (error) {
    await pool.end().catch(() => {});
    throw galleryError(error, location, 'starting');
  }
  return new PostgresGallery(pool, config, location, galleryId, keys, options);
}

/** The shared gallery's own random id, made by its first station: a snapshot of another gallery is not used. */
async function readGalleryId(client: pg.ClientBase): Promise<string> {
  await client.query("INSERT INTO gallery_meta (name, value) VALUES ('gallery-id', $1) ON CONFLICT (name) DO NOTHING", [
    randomBytes(16),
  ]);
  const { rows } = await client.query<{ value: Buffer }>("SELECT value FROM gallery_meta WHERE name = 'gallery-id'");
  return rows[0]!.value.toString('hex');
}

type ListingRow = SampleRow & { thumbnail: Buffer | null };
type EmbeddingRow = SealedEmbedding & { model_id: string };

const PERSON_COLUMNS = `p.id_persona, p.created_at, p.updated_at,
  (SELECT count(*)::int FROM face_samples s WHERE s.id_persona = p.id_persona) AS samples`;
// Byte order, as SQLite: the column is COLLATE "C"; U+10FFFF sorts after every continuation.
const PREFIX = `p.id_persona >= $1 AND p.id_persona < $1 || chr(1114111)`;
const EMBEDDINGS_OF = 'SELECT id_persona, model_id, embedding FROM face_samples WHERE id_persona = $1 ORDER BY id';

/** A gallery shared by a fleet of stations (docs/fleet-gallery.md). */
export class PostgresGallery implements Gallery {
  readonly backend = 'postgres';
  readonly feed: PostgresFeed;
  private readonly codec: SampleCodec;
  private closing: Promise<void> | null = null;

  constructor(
    private readonly pool: pg.Pool,
    config: pg.ClientConfig,
    readonly location: string,
    readonly galleryId: string,
    private readonly keys: FleetKeys,
    private readonly o: PostgresGalleryOptions,
  ) {
    this.codec = new SampleCodec(keys);
    this.feed = new PostgresFeed({
      pool,
      config,
      galleryId,
      location,
      // As the SQLite store's bulk reads: a sample that does not open is left out of 1:N, and logged.
      decode: (rows) => this.codec.embeddings(rows, (sample) => o.logger.error(sample, UNREADABLE_SAMPLE_LOG)),
      logger: o.logger,
      pollMs: o.pollMs ?? 5000,
      ...(o.changeRetentionMs !== undefined ? { changeRetentionMs: o.changeRetentionMs } : {}),
      ...(o.pruneEveryMs !== undefined ? { pruneEveryMs: o.pruneEveryMs } : {}),
    });
  }

  async enroll<R>(
    idPersona: string,
    samples: NewSample[],
    options: { replace: boolean; screen?: Screen<R> },
  ): Promise<EnrollOutcome<R>> {
    const screen = options.screen;
    const changes = this.feed.following;
    // First the whole index, without the lock (the slow part at a large gallery; may refuse early)...
    const mark = changes?.lastSeq ?? 0;
    if (screen) {
      const rejection = await screen({
        existing: options.replace ? [] : await this.embeddingsOf(idPersona),
        candidates: 'index',
      });
      if (rejection !== null) return { stored: false, rejection };
    }
    const outcome = await this.telling(changes, async () => {
      const written = await this.write(async (client) => {
        if (screen) {
          // ...then, holding the lock that serializes every write of the fleet, only the persons
          // changed since: with them the index has every committed enrollment, wherever made.
          await changes?.catchUp();
          const existing = options.replace ? [] : (await client.query<EmbeddingRow>(EMBEDDINGS_OF, [idPersona])).rows;
          const rejection = await screen({
            existing: existing.map((r) => this.codec.stored(r)),
            candidates: changes?.recentChanges(mark) ?? 'index',
          });
          if (rejection !== null) return { stored: false as const, rejection };
        }
        const now = new Date();
        const person = await client.query<{ created: boolean }>(
          `INSERT INTO persons (id_persona, created_at, updated_at) VALUES ($1, $2, $2)
         ON CONFLICT (id_persona) DO UPDATE SET updated_at = excluded.updated_at RETURNING (xmax = 0) AS created`,
          [idPersona, now],
        );
        if (options.replace) await client.query('DELETE FROM face_samples WHERE id_persona = $1', [idPersona]);
        for (const s of samples) {
          const sealed = this.codec.seal(idPersona, s);
          await client.query(
            'INSERT INTO face_samples (id_persona, model_id, embedding, quality, thumbnail, created_at) VALUES ($1, $2, $3, $4, $5, $6)',
            [idPersona, s.modelId, sealed.embedding, s.quality, sealed.thumbnail, now],
          );
        }
        const change = await this.recordChange(client, idPersona, 'enroll');
        const count = await client.query<{ n: number }>('SELECT count(*)::int AS n FROM face_samples WHERE id_persona = $1', [
          idPersona,
        ]);
        return { stored: true as const, created: person.rows[0]!.created, samples: count.rows[0]!.n, change };
      });
      const kind = options.replace ? ('replace' as const) : ('add' as const);
      return { result: written, own: written.stored ? { ...written.change, idPersona, kind, samples } : null };
    });
    if (!outcome.stored) return outcome;
    return { stored: true, created: outcome.created, samples: outcome.samples };
  }

  deletePerson(idPersona: string): Promise<number | null> {
    return this.telling(this.feed.following, async () => {
      const removed = await this.write(async (client) => {
        const exists = await client.query('SELECT 1 FROM persons WHERE id_persona = $1', [idPersona]);
        if (exists.rowCount === 0) return null;
        const samples = await client.query('DELETE FROM face_samples WHERE id_persona = $1', [idPersona]);
        await client.query('DELETE FROM persons WHERE id_persona = $1', [idPersona]);
        return { samples: samples.rowCount ?? 0, change: await this.recordChange(client, idPersona, 'delete') };
      });
      if (removed === null) return { result: null, own: null };
      return { result: removed.samples, own: { ...removed.change, idPersona, kind: 'delete' as const, samples: [] } };
    });
  }

  async getPerson(idPersona: string): Promise<PersonSummary | null> {
    const { rows } = await this.query<PersonRow>(`SELECT ${PERSON_COLUMNS} FROM persons p WHERE p.id_persona = $1`, [idPersona]);
    return rows[0] ? personOf(rows[0]) : null;
  }

  async listPersons(query: { prefix?: string | undefined; limit: number; offset: number }) {
    if (query.prefix) {
      const total = await this.query<{ n: number }>(`SELECT count(*)::int AS n FROM persons p WHERE ${PREFIX}`, [query.prefix]);
      const rows = await this.query<PersonRow>(
        `SELECT ${PERSON_COLUMNS} FROM persons p WHERE ${PREFIX} ORDER BY p.id_persona LIMIT $2 OFFSET $3`,
        [query.prefix, query.limit, query.offset],
      );
      return { total: total.rows[0]!.n, persons: rows.rows.map(personOf) };
    }
    const rows = await this.query<PersonRow>(`SELECT ${PERSON_COLUMNS} FROM persons p ORDER BY p.id_persona LIMIT $1 OFFSET $2`, [
      query.limit,
      query.offset,
    ]);
    return { total: await this.countPersons(), persons: rows.rows.map(personOf) };
  }

  async listSamples(idPersona: string): Promise<SampleListing[]> {
    const { rows } = await this.query<ListingRow>(
      'SELECT id, id_persona, model_id, quality, thumbnail, created_at FROM face_samples WHERE id_persona = $1 ORDER BY id',
      [idPersona],
    );
    return rows.map((r) => this.codec.listing(r));
  }

  async embeddingsOf(idPersona: string): Promise<StoredEmbedding[]> {
    const { rows } = await this.query<EmbeddingRow>(EMBEDDINGS_OF, [idPersona]);
    return rows.map((r) => this.codec.stored(r));
  }

  async countPersons(): Promise<number> {
    const { rows } = await this.query<{ n: number }>('SELECT count(*)::int AS n FROM persons');
    return rows[0]!.n;
  }

  close(): Promise<void> {
    // Once, whoever asks: the station saves its index's snapshot once the feed has stopped.
    this.closing ??= (async () => {
      await this.feed.stop();
      await this.pool.end().catch(() => {});
    })();
    return this.closing;
  }

  private async query<T extends pg.QueryResultRow>(sql: string, params: unknown[] = []): Promise<pg.QueryResult<T>> {
    try {
      return await this.pool.query<T>(sql, params);
    } catch (error) {
      throw galleryError(error, this.location);
    }
  }

  /** A write transaction holding the fleet-wide write lock: writes commit in `gallery_changes` order. */
  private write<T>(body: (client: pg.PoolClient) => Promise<T>): Promise<T> {
    return this.withClient(async (client) => {
      await client.query('BEGIN');
      await client.query('SELECT pg_advisory_xact_lock($1)', [WRITE_LOCK]);
      // Under the lock a key rotation also takes: this write seals with the fleet's key of now.
      await this.keys.readCheck(client);
      const result = await body(client);
      await client.query('COMMIT');
      return result;
    });
  }

  /** A pooled connection for `body`; after a failure it is rolled back, or dropped if it cannot be. */
  private async withClient<T>(body: (client: pg.PoolClient) => Promise<T>): Promise<T> {
    let client: pg.PoolClient;
    try {
      client = await this.pool.connect();
    } catch (error) {
      throw galleryError(error, this.location);
    }
    let broken = false;
    try {
      return await body(client);
    } catch (error) {
      await client.query('ROLLBACK').catch(() => (broken = true));
      throw galleryError(error, this.location);
    } finally {
      client.release(broken);
    }
  }

  /**
   * Records the write in the feed, with the number of the newest change before it: under the lock,
   * every change up to that one is committed, so a feed that has told them can tell this one from
   * what the write holds.
   */
  private async recordChange(
    client: pg.PoolClient,
    idPersona: string,
    kind: 'enroll' | 'delete',
  ): Promise<{ seq: number; before: number; at: string }> {
    const { rows } = await client.query<{ seq: string; before: string; at: string }>(
      `WITH newest AS (SELECT coalesce((SELECT max(seq) FROM gallery_changes), (SELECT through FROM gallery_changes_pruned)) AS seq)
       INSERT INTO gallery_changes (id_persona, kind, station) VALUES ($1, $2, $3)
       RETURNING seq, at::text AS at, (SELECT seq FROM newest) AS before`,
      [idPersona, kind, this.o.station],
    );
    // Delivered by PostgreSQL at commit, to every station listening (this one included).
    await client.query('SELECT pg_notify($1, $2)', [CHANNEL, rows[0]!.seq]);
    return { seq: Number(rows[0]!.seq), before: Number(rows[0]!.before), at: rows[0]!.at };
  }

  /**
   * A write this station's index is told from what it stored, searchable here when the call
   * returns: the feed holds the notifications that come meanwhile (the write's own among them)
   * until it is told, so nothing is read back.
   */
  private async telling<T>(changes: ChangeFeed | null, write: () => Promise<{ result: T; own: OwnChange | null }>): Promise<T> {
    changes?.beginWrite();
    let own: OwnChange | null = null;
    try {
      const done = await write();
      own = done.own;
      return done.result;
    } finally {
      try {
        await changes?.written(own);
      } catch (error) {
        // Committed: the feed applies it once the connection is back.
        this.o.logger.warn({ err: (error as Error).message }, 'galería compartida: cambio guardado, índice pendiente');
      }
    }
  }
}
