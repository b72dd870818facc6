import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { sampleAad } from '../../crypto/sample-sealing.js';
import type { PersonSummary } from '../../../common/api/admin-schemas.js';
import { seal, SealError } from '../../crypto/sealed.js';
import type { Logger } from '../../log/logger.js';
import type { SearchIndex } from '../../search/search-index.js';
import {
  StoreError,
  type NewSample,
  type SampleRecord,
  UNREADABLE_SAMPLE_LOG,
  unreadableSampleMessage,
} from '../../store/store.js';
import type { EnrollOutcome, FeedPosition, Gallery, Screen } from '../gallery.js';
import { ChangeFeed, CHANNEL } from './change-feed.js';
import { FleetKeys } from './fleet-keys.js';
import { galleryError } from './errors.js';
import { migrate, WRITE_LOCK } from './migrations.js';
import { CHANGE_RETENTION_DAYS, pruneChanges } from './prune-changes.js';

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
  /** How often this station prunes the change feed (default hourly, and once at start). */
  pruneEveryMs?: number;
  onApplied?: (idPersonas: string[], seq: number) => void;
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

/** A gallery shared by a fleet: what a station needs beyond `Gallery` to snapshot its index. */
export interface SharedGallery extends Gallery {
  readonly galleryId: string;
  readonly position: FeedPosition | null;
  readonly feedStart: { from: 'gallery' | 'snapshot'; reloads: number } | null;
  /** Fills `index` (new, empty) from the gallery and follows the changes into it from then on. */
  reloadInto(index: SearchIndex): Promise<void>;
}

/** Connects, migrates and checks the key; the index is filled by `attach`. */
export async function openPostgresGallery(options: PostgresGalleryOptions): Promise<SharedGallery> {
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

interface PersonRow {
  id_persona: string;
  created_at: Date;
  updated_at: Date;
  samples: number;
}

interface SampleRow {
  id: string;
  id_persona: string;
  model_id: string;
  embedding: Buffer;
  quality: number;
  thumbnail: Buffer | null;
  created_at: Date;
}

const PERSON_COLUMNS = `p.id_persona, p.created_at, p.updated_at,
  (SELECT count(*)::int FROM face_samples s WHERE s.id_persona = p.id_persona) AS samples`;
// Byte order, as SQLite: the column is COLLATE "C"; U+10FFFF sorts after every continuation.
const PREFIX = `p.id_persona >= $1 AND p.id_persona < $1 || chr(1114111)`;

class PostgresGallery implements SharedGallery {
  readonly backend = 'postgres';
  private feed: ChangeFeed | null = null;
  private pruning: NodeJS.Timeout | null = null;
  private closing: Promise<void> | null = null;

  constructor(
    private readonly pool: pg.Pool,
    private readonly config: pg.ClientConfig,
    readonly location: string,
    readonly galleryId: string,
    private readonly keys: FleetKeys,
    private readonly o: PostgresGalleryOptions,
  ) {}

  async attach(index: SearchIndex, modelId: string, options: { from?: FeedPosition } = {}): Promise<void> {
    this.feed = new ChangeFeed({
      config: this.config,
      location: this.location,
      index,
      modelId,
      decode: (id, sealed) => this.embeddingForIndex(id, sealed),
      logger: this.o.logger,
      pollMs: this.o.pollMs ?? 5000,
      ...(this.o.onApplied ? { onApplied: this.o.onApplied } : {}),
    });
    try {
      await this.feed.start(options.from);
    } catch (error) {
      await this.feed.close();
      throw galleryError(error, this.location, 'starting');
    }
    void this.pruneQuietly();
    this.pruning = setInterval(() => void this.pruneQuietly(), this.o.pruneEveryMs ?? 3_600_000);
    this.pruning.unref();
  }

  /** Deletes the change feed's rows past their retention; returns the new mark, or null. */
  private pruneChanges(): Promise<number | null> {
    return this.withClient((client) => pruneChanges(client, this.o.changeRetentionMs ?? CHANGE_RETENTION_DAYS * 86_400_000));
  }

  private async pruneQuietly(): Promise<void> {
    try {
      const through = await this.pruneChanges();
      if (through !== null) this.o.logger.info({ db: this.location, through }, 'galería compartida: cambios antiguos depurados');
    } catch (error) {
      this.o.logger.warn({ err: (error as Error).message }, 'galería compartida: no se pudieron depurar los cambios');
    }
  }

  async enroll<R>(
    idPersona: string,
    samples: NewSample[],
    options: { replace: boolean; screen?: Screen<R> },
  ): Promise<EnrollOutcome<R>> {
    const screen = options.screen;
    // First the whole index, without the lock (the slow part at a large gallery; may refuse early)...
    const mark = this.feed?.lastSeq ?? 0;
    if (screen) {
      const rejection = await screen({ existing: options.replace ? [] : await this.listSamples(idPersona), candidates: 'index' });
      if (rejection !== null) return { stored: false, rejection };
    }
    const outcome = await this.write(async (client) => {
      if (screen) {
        // ...then, holding the lock that serializes every write of the fleet, only the persons
        // changed since: with them the index has every committed enrollment, wherever made.
        await this.feed?.catchUp();
        const existing = options.replace
          ? []
          : (await client.query<SampleRow>('SELECT * FROM face_samples WHERE id_persona = $1 ORDER BY id', [idPersona])).rows;
        const rejection = await screen({
          existing: existing.map((r) => this.sampleOf(r)),
          candidates: this.feed?.changedSince(mark) ?? 'index',
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
        await client.query(
          'INSERT INTO face_samples (id_persona, model_id, embedding, quality, thumbnail, created_at) VALUES ($1, $2, $3, $4, $5, $6)',
          [
            idPersona,
            s.modelId,
            seal(this.keys.sealing, floatsToBlob(s.embedding), sampleAad(idPersona, 'embedding')),
            s.quality,
            s.thumbnail ? seal(this.keys.sealing, s.thumbnail, sampleAad(idPersona, 'thumbnail')) : null,
            now,
          ],
        );
      }
      await this.recordChange(client, idPersona, 'enroll');
      const count = await client.query<{ n: number }>('SELECT count(*)::int AS n FROM face_samples WHERE id_persona = $1', [
        idPersona,
      ]);
      return { stored: true as const, created: person.rows[0]!.created, samples: count.rows[0]!.n };
    });
    if (outcome.stored) await this.afterWrite();
    return outcome;
  }

  async deletePerson(idPersona: string): Promise<number | null> {
    const removed = await this.write(async (client) => {
      const exists = await client.query('SELECT 1 FROM persons WHERE id_persona = $1', [idPersona]);
      if (exists.rowCount === 0) return null;
      const samples = await client.query('DELETE FROM face_samples WHERE id_persona = $1', [idPersona]);
      await client.query('DELETE FROM persons WHERE id_persona = $1', [idPersona]);
      await this.recordChange(client, idPersona, 'delete');
      return samples.rowCount ?? 0;
    });
    if (removed !== null) await this.afterWrite();
    return removed;
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

  async listSamples(idPersona: string): Promise<SampleRecord[]> {
    const { rows } = await this.query<SampleRow>('SELECT * FROM face_samples WHERE id_persona = $1 ORDER BY id', [idPersona]);
    return rows.map((r) => this.sampleOf(r));
  }

  async countPersons(): Promise<number> {
    const { rows } = await this.query<{ n: number }>('SELECT count(*)::int AS n FROM persons');
    return rows[0]!.n;
  }

  async reloadInto(index: SearchIndex): Promise<void> {
    if (!this.feed) throw new Error('galería sin índice');
    await this.feed.reload(index);
  }

  /** The change the station's index reflects (saved with its snapshot at close). */
  get position(): FeedPosition | null {
    return this.feed?.position ?? null;
  }

  /** How the index started (`gallery` or `snapshot`) and how often it was filled again since. */
  get feedStart(): { from: 'gallery' | 'snapshot'; reloads: number } | null {
    return this.feed ? { from: this.feed.startedFrom, reloads: this.feed.reloads } : null;
  }

  close(): Promise<void> {
    // Once, whoever asks: the station saves its index's snapshot after the feed has stopped.
    this.closing ??= (async () => {
      if (this.pruning) clearInterval(this.pruning);
      await this.feed?.close();
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

  private async recordChange(client: pg.PoolClient, idPersona: string, kind: 'enroll' | 'delete'): Promise<void> {
    const { rows } = await client.query<{ seq: string }>(
      'INSERT INTO gallery_changes (id_persona, kind, station) VALUES ($1, $2, $3) RETURNING seq',
      [idPersona, kind, this.o.station],
    );
    // Delivered by PostgreSQL at commit, to every station listening (this one included).
    await client.query('SELECT pg_notify($1, $2)', [CHANNEL, rows[0]!.seq]);
  }

  /** This station's own write is searchable here when the call returns. */
  private async afterWrite(): Promise<void> {
    try {
      await this.feed?.catchUp();
    } catch (error) {
      // Committed: the feed applies it once the connection is back.
      this.o.logger.warn({ err: (error as Error).message }, 'galería compartida: cambio guardado, índice pendiente');
    }
  }

  private sampleOf(row: SampleRow): SampleRecord {
    return {
      id: Number(row.id),
      idPersona: row.id_persona,
      modelId: row.model_id,
      embedding: blobToFloats(this.unseal(row.embedding, row.id_persona, 'embedding')),
      quality: row.quality,
      thumbnail: row.thumbnail ? new Uint8Array(this.unseal(row.thumbnail, row.id_persona, 'thumbnail')) : null,
      createdAt: row.created_at.toISOString(),
    };
  }

  /** As the SQLite store's bulk reads: a sample that does not open is left out of 1:N, and logged. */
  private embeddingForIndex(idPersona: string, sealed: Buffer): Float32Array | null {
    try {
      return blobToFloats(this.unseal(sealed, idPersona, 'embedding'));
    } catch (error) {
      if (!(error instanceof StoreError)) throw error;
      this.o.logger.error({ idPersona, reason: error.message }, UNREADABLE_SAMPLE_LOG);
      return null;
    }
  }

  private unseal(blob: Buffer, idPersona: string, field: 'embedding' | 'thumbnail'): Buffer {
    try {
      return this.keys.open(blob, sampleAad(idPersona, field));
    } catch (error) {
      if (error instanceof SealError) throw new StoreError(unreadableSampleMessage(idPersona, error.message), 'unavailable');
      throw error;
    }
  }
}

function personOf(row: PersonRow): PersonSummary {
  return {
    idPersona: row.id_persona,
    samples: row.samples,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  };
}

function floatsToBlob(values: Float32Array): Buffer {
  return Buffer.from(values.buffer, values.byteOffset, values.byteLength);
}

function blobToFloats(blob: Buffer): Float32Array {
  const out = new Float32Array(blob.byteLength / 4);
  new Uint8Array(out.buffer).set(blob);
  return out;
}
