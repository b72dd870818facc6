import type pg from 'pg';
import type { Logger } from '../../log/index.js';
import type { ChangeListener, FeedPosition, GalleryFeed, IndexFill } from '../gallery.js';
import { ChangeFeed, type DecodeEmbeddings, embeddingsOfPersons, newestPosition, readGallerySnapshot } from './change-feed.js';
import { galleryError } from './errors.js';
import { CHANGE_RETENTION_DAYS, pruneChanges } from './prune-changes.js';
import { inTransaction } from './transaction.js';

/** Persons read per query when a station catches up at start. */
const PERSONS_PER_QUERY = 2000;

export interface PostgresFeedOptions {
  pool: pg.Pool;
  config: pg.ClientConfig;
  galleryId: string;
  location: string;
  decode: DecodeEmbeddings;
  logger: Logger;
  pollMs: number;
  /** Changes older than this are deleted from the change feed. */
  changeRetentionMs?: number;
  /** How often this station prunes the change feed (and once when it starts following). */
  pruneEveryMs?: number;
}

/**
 * A shared gallery's feed: whole reads in one `REPEATABLE READ` snapshot, the persons changed since
 * a position from `gallery_changes`, and, once followed, its `ChangeFeed` (docs/fleet-gallery.md).
 */
export class PostgresFeed implements GalleryFeed {
  private changes: ChangeFeed | null = null;
  private pruning: NodeJS.Timeout | null = null;

  constructor(private readonly o: PostgresFeedOptions) {}

  /** The change feed once followed: the gallery's writes bring it up to date under their lock. */
  get following(): ChangeFeed | null {
    return this.changes;
  }

  get position(): FeedPosition | null {
    return this.changes?.position ?? null;
  }

  readAll(modelId: string, into: IndexFill): Promise<FeedPosition> {
    return this.withClient((client) =>
      readGallerySnapshot(client, this.o.galleryId, modelId, 'ORDER BY id', (rows) => {
        const opened = this.o.decode(rows);
        rows.forEach((r, i) => opened[i] && into.add(r.id_persona, opened[i]));
      }),
    );
  }

  readAllNow(): null {
    return null;
  }

  changedSince(from: FeedPosition): Promise<{ persons: string[]; to: FeedPosition } | null> {
    if (from.gallery !== this.o.galleryId) return Promise.resolve(null);
    return this.withClient((client) =>
      inTransaction(
        client,
        async () => {
          // The change at the position must be the same one: a database restored from a backup reuses
          // numbers, and a position whose changes were pruned is no longer there.
          const { rows } = await client.query<{ id_persona: string; at: string }>(
            'SELECT id_persona, at::text AS at FROM gallery_changes WHERE seq = $1',
            [from.seq],
          );
          const found = rows[0];
          if (!found || found.id_persona !== from.idPersona || found.at !== from.at) {
            this.o.logger.warn(
              { db: this.o.location, seq: from.seq },
              'galería compartida: la instantánea del índice no sigue a esta base; se vuelve a cargar',
            );
            return null;
          }
          const changed = await client.query<{ id_persona: string }>(
            'SELECT DISTINCT id_persona FROM gallery_changes WHERE seq > $1',
            [from.seq],
          );
          return { persons: changed.rows.map((r) => r.id_persona), to: await newestPosition(client, this.o.galleryId) };
        },
        'BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY',
      ),
    );
  }

  async embeddingsOfPersons(
    ids: readonly string[],
    modelId: string,
    visit: (idPersona: string, embeddings: Float32Array[]) => void,
  ): Promise<void> {
    for (let at = 0; at < ids.length; at += PERSONS_PER_QUERY) {
      const chunk = ids.slice(at, at + PERSONS_PER_QUERY);
      const byPerson = await this.withClient((client) => embeddingsOfPersons(client, chunk, modelId, this.o.decode));
      for (const id of chunk) visit(id, byPerson.get(id) ?? []);
    }
  }

  async follow(modelId: string, from: FeedPosition, listener: ChangeListener): Promise<void> {
    if (this.changes) return this.changes.retarget(from, listener);
    const changes = new ChangeFeed({
      config: this.o.config,
      galleryId: this.o.galleryId,
      location: this.o.location,
      modelId,
      decode: this.o.decode,
      logger: this.o.logger,
      pollMs: this.o.pollMs,
    });
    try {
      await changes.start(from, listener);
    } catch (error) {
      await changes.close();
      throw galleryError(error, this.o.location, 'starting');
    }
    this.changes = changes;
    void this.pruneQuietly();
    this.pruning = setInterval(() => void this.pruneQuietly(), this.o.pruneEveryMs ?? 3_600_000);
    this.pruning.unref();
  }

  /** Tells the listener every change committed so far. */
  async catchUp(): Promise<void> {
    await this.changes?.catchUp();
  }

  async stop(): Promise<void> {
    if (this.pruning) clearInterval(this.pruning);
    this.pruning = null;
    await this.changes?.close();
  }

  // The changes are pruned by their age (prune-changes.ts), whatever a station saved.
  forgetThrough(): void {}

  private async pruneQuietly(): Promise<void> {
    try {
      const retention = this.o.changeRetentionMs ?? CHANGE_RETENTION_DAYS * 86_400_000;
      const through = await this.withClient((client) => pruneChanges(client, retention));
      if (through !== null)
        this.o.logger.info({ db: this.o.location, through }, 'galería compartida: cambios antiguos depurados');
    } catch (error) {
      this.o.logger.warn({ err: (error as Error).message }, 'galería compartida: no se pudieron depurar los cambios');
    }
  }

  private async withClient<T>(body: (client: pg.PoolClient) => Promise<T>): Promise<T> {
    let client: pg.PoolClient;
    try {
      client = await this.o.pool.connect();
    } catch (error) {
      throw galleryError(error, this.o.location, 'starting');
    }
    let broken = false;
    try {
      return await body(client);
    } catch (error) {
      broken = true;
      throw galleryError(error, this.o.location, 'starting');
    } finally {
      client.release(broken);
    }
  }
}
