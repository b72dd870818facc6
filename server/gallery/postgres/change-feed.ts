import pg from 'pg';
import type { Logger } from '../../log/logger.js';
import type { SearchIndex } from '../../search/search-index.js';
import type { FeedPosition } from '../gallery.js';
import { Mutex } from '../mutex.js';
import { galleryError } from './errors.js';
import { inTransaction } from './transaction.js';

export const CHANNEL = 'enrolla_gallery';
const BATCH = 2000;
const LOAD_FETCH = 5000;
/** Recent changes kept for `changedSince` (enough for the minutes an enrollment can take). */
const RECENT = 5000;

export interface FeedOptions {
  config: pg.ClientConfig;
  location: string;
  index: SearchIndex;
  modelId: string;
  /** A sample's embedding; null for one that does not open (the decoder reports it), left out. */
  decode: (idPersona: string, sealed: Buffer) => Float32Array | null;
  logger: Logger;
  /** Safety net besides LISTEN/NOTIFY: look for changes at least this often. */
  pollMs: number;
  /** Called after changes are in the index (benchmarks measure propagation with it). */
  onApplied?: (idPersonas: string[], seq: number) => void;
}

/**
 * Keeps one station's search index in step with the shared gallery. Every committed write has a
 * row in `gallery_changes` with a sequence number in commit order; the feed applies rows after the
 * last one it applied, re-reading each changed person's samples (so applying twice is harmless).
 * A NOTIFY after each commit wakes it; a periodic look and a catch-up after each reconnection
 * cover notifications lost while disconnected. It uses one dedicated connection, never the pool,
 * so an enrollment holding the write lock can always bring the index up to date.
 */
export class ChangeFeed {
  lastSeq = 0;
  /** The change at `lastSeq`, to recognise it in the database later (a snapshot's position). */
  private lastChange: { idPersona: string | null; at: string | null } = { idPersona: null, at: null };
  /** How the index was filled at start: the whole gallery, or a snapshot followed from its position. */
  startedFrom: 'gallery' | 'snapshot' = 'gallery';
  /** Times the index was filled again because it could not be followed (changes pruned, another history). */
  reloads = 0;
  private client: pg.Client | null = null;
  /** The index it keeps in step: the one given, or the fresh one a reload fills. */
  private index: SearchIndex;
  private readonly mutex = new Mutex();
  private closed = false;
  private retryMs = 250;
  private timer: NodeJS.Timeout | null = null;
  private reconnecting: NodeJS.Timeout | null = null;
  private connecting: Promise<pg.Client> | null = null;
  private queued = false;
  /** Persons changed after `recentFrom`, in seq order, with their embeddings then (null: removed). */
  private recent: { seq: number; idPersona: string; embeddings: Float32Array[] | null }[] = [];
  private recentFrom = 0;

  constructor(private readonly o: FeedOptions) {
    this.index = o.index;
  }

  get connected(): boolean {
    return this.client !== null;
  }

  /** The position the index reflects, to save beside a snapshot of it. */
  get position(): FeedPosition {
    return { seq: this.lastSeq, ...this.lastChange };
  }

  /**
   * Connects, subscribes, and fills the index from a consistent snapshot of the gallery; or, given
   * the position of the index's own snapshot, follows the changes after it, once the change there
   * is found the same in the database (else, a restored or another database: filled again).
   */
  async start(from?: FeedPosition): Promise<void> {
    const client = await this.connect();
    await this.mutex.run(async () => {
      if (!from) return this.load(client);
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
        return this.resync(client);
      }
      this.startedFrom = 'snapshot';
      this.restartAt(from);
      await this.applyPending(client);
    });
    this.timer = setInterval(() => void this.catchUpQuietly(), this.o.pollMs);
    this.timer.unref();
  }

  /**
   * Fills `index` (new and empty) from the gallery and keeps it in step from then on instead of
   * the current one: for an index found damaged. Until it resolves, the old one serves searches.
   */
  reload(index: SearchIndex): Promise<void> {
    return this.mutex.run(async () => {
      this.index = index;
      try {
        await this.resync(this.client ?? (await this.connect()));
      } catch (error) {
        throw galleryError(error, this.o.location);
      }
    });
  }

  /** Applies every change committed so far; serialized with every other index update. */
  catchUp(): Promise<void> {
    return this.mutex.run(async () => {
      try {
        // Disconnected: one attempt now rather than waiting for the next scheduled retry.
        await this.applyPending(this.client ?? (await this.connect()));
      } catch (error) {
        throw galleryError(error, this.o.location);
      }
    });
  }

  /**
   * The persons changed after `seq` as the index holds them now (removed ones left out), or null
   * when that is older than what is remembered.
   */
  changedSince(seq: number): Map<string, Float32Array[]> | null {
    if (seq < this.recentFrom) return null;
    const latest = new Map<string, Float32Array[] | null>();
    for (const c of this.recent) if (c.seq > seq) latest.set(c.idPersona, c.embeddings);
    const out = new Map<string, Float32Array[]>();
    for (const [id, embeddings] of latest) if (embeddings) out.set(id, embeddings);
    return out;
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.timer) clearInterval(this.timer);
    if (this.reconnecting) clearTimeout(this.reconnecting);
    await this.mutex.run(async () => {
      const client = this.client;
      this.client = null;
      await client?.end().catch(() => {});
    });
  }

  /** One connection at a time: concurrent callers share the attempt in progress. */
  private connect(): Promise<pg.Client> {
    if (this.client) return Promise.resolve(this.client);
    this.connecting ??= this.openListener().finally(() => (this.connecting = null));
    return this.connecting;
  }

  private async openListener(): Promise<pg.Client> {
    if (this.closed) throw new Error('galería cerrada');
    const client = new pg.Client({ ...this.o.config, keepAlive: true, application_name: 'enrolla-feed' });
    client.on('error', (error) => this.lost(client, error));
    client.on('end', () => this.lost(client, new Error('conexión cerrada')));
    client.on('notification', () => void this.catchUpQuietly());
    try {
      await client.connect();
      await client.query(`LISTEN ${CHANNEL}`);
    } catch (error) {
      await client.end().catch(() => {});
      throw error;
    }
    this.client = client;
    this.retryMs = 250;
    return client;
  }

  private lost(client: pg.Client, error: Error): void {
    if (this.client !== client) return;
    this.client = null;
    client.end().catch(() => {});
    if (this.closed) return;
    this.o.logger.warn({ err: error.message, db: this.o.location }, 'galería compartida: conexión perdida; se reintenta');
    this.scheduleReconnect();
  }

  private scheduleReconnect(): void {
    if (this.closed || this.reconnecting) return;
    this.reconnecting = setTimeout(() => {
      this.reconnecting = null;
      this.connect()
        .then(() => {
          this.o.logger.info(
            { db: this.o.location, lastSeq: this.lastSeq },
            'galería compartida: reconectada; poniéndose al día',
          );
          return this.catchUp();
        })
        .catch(() => {
          this.retryMs = Math.min(this.retryMs * 2, 10_000);
          this.scheduleReconnect();
        });
    }, this.retryMs);
    this.reconnecting.unref();
  }

  private async catchUpQuietly(): Promise<void> {
    // A burst of notifications needs one catch-up, not one each.
    if (!this.client || this.queued) return;
    this.queued = true;
    try {
      await this.mutex.run(async () => {
        this.queued = false;
        if (this.client) await this.applyPending(this.client);
      });
    } catch (error) {
      this.o.logger.warn({ err: (error as Error).message }, 'galería compartida: no se pudo aplicar cambios');
    }
  }

  private async load(client: pg.Client): Promise<void> {
    const position = await this.readSnapshot(client, 'ORDER BY id', (rows) => {
      for (const r of rows) {
        const embedding = this.o.decode(r.id_persona, r.embedding);
        if (embedding) this.index.add(r.id_persona, embedding);
      }
    });
    this.restartAt(position);
  }

  private moveTo(position: FeedPosition): void {
    this.lastSeq = position.seq;
    this.lastChange = { idPersona: position.idPersona, at: position.at };
  }

  /** The index holds the gallery as of `position`: nothing changed after it is remembered yet. */
  private restartAt(position: FeedPosition): void {
    this.moveTo(position);
    this.recent = [];
    this.recentFrom = position.seq;
  }

  /**
   * The index made equal to the gallery as it is now, when it cannot be followed from its position:
   * changes after it were pruned (the station was away longer than their retention), or its
   * snapshot's position is not in this database's history. Every person's samples are set again,
   * and the persons no longer there removed.
   */
  private async resync(client: pg.Client): Promise<void> {
    const seen = new Set<string>();
    let person: string | null = null;
    let samples: Float32Array[] = [];
    const flush = () => {
      // A person whose every sample failed to open is left out, as if without samples.
      if (person !== null && samples.length > 0) this.index.set(person, samples);
      else if (person !== null) this.index.remove(person);
      samples = [];
    };
    const position = await this.readSnapshot(client, 'ORDER BY id_persona, id', (rows) => {
      for (const r of rows) {
        if (r.id_persona !== person) {
          flush();
          person = r.id_persona;
          seen.add(person);
        }
        const embedding = this.o.decode(r.id_persona, r.embedding);
        if (embedding) samples.push(embedding);
      }
    });
    flush();
    for (const id of [...this.index.personIds()]) if (!seen.has(id)) this.index.remove(id);
    this.restartAt(position);
    this.reloads++;
  }

  /** Streams this model's samples from one snapshot; returns the change they correspond to. */
  private async readSnapshot(
    client: pg.Client,
    order: string,
    onRows: (rows: { id_persona: string; embedding: Buffer }[]) => void,
  ): Promise<FeedPosition> {
    return inTransaction(
      client,
      async () => {
        // The snapshot's position: its newest change (never pruned), or the mark if none is left.
        const newest = await client.query<{ seq: string; id_persona: string; at: string }>(
          'SELECT seq, id_persona, at::text AS at FROM gallery_changes ORDER BY seq DESC LIMIT 1',
        );
        const last = newest.rows[0];
        const position: FeedPosition = last
          ? { seq: Number(last.seq), idPersona: last.id_persona, at: last.at }
          : {
              seq: Number(
                (await client.query<{ through: string }>('SELECT through FROM gallery_changes_pruned')).rows[0]!.through,
              ),
              idPersona: null,
              at: null,
            };
        await client.query(
          `DECLARE load_embeddings NO SCROLL CURSOR FOR SELECT id_persona, embedding FROM face_samples WHERE model_id = $1 ${order}`,
          [this.o.modelId],
        );
        for (;;) {
          const batch = await client.query<{ id_persona: string; embedding: Buffer }>(`FETCH ${LOAD_FETCH} FROM load_embeddings`);
          onRows(batch.rows);
          if (batch.rows.length < LOAD_FETCH) break;
        }
        return position;
      },
      'BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY',
    );
  }

  private async applyPending(client: pg.Client): Promise<void> {
    for (;;) {
      // One statement, one snapshot: the changes after ours and the pruning mark as of the same
      // moment. The newest change is never pruned, so a mark past ours always comes with a row.
      const changes = await client.query<{ seq: string; id_persona: string; at: string; pruned: string }>(
        `SELECT seq, id_persona, at::text AS at, (SELECT through FROM gallery_changes_pruned) AS pruned
           FROM gallery_changes WHERE seq > $1 ORDER BY seq LIMIT $2`,
        [this.lastSeq, BATCH],
      );
      if (changes.rows.length === 0) return;
      if (Number(changes.rows[0]!.pruned) > this.lastSeq) {
        this.o.logger.warn(
          { db: this.o.location, lastSeq: this.lastSeq, pruned: Number(changes.rows[0]!.pruned) },
          'galería compartida: faltan cambios ya depurados; se vuelve a cargar el índice',
        );
        await this.resync(client);
        continue;
      }
      const ids = [...new Set(changes.rows.map((r) => r.id_persona))];
      // The persons' samples now: later than the changes read, never earlier, so the index only moves forward.
      const samples = await client.query<{ id_persona: string; embedding: Buffer }>(
        'SELECT id_persona, embedding FROM face_samples WHERE id_persona = ANY($1) AND model_id = $2 ORDER BY id',
        [ids, this.o.modelId],
      );
      const byPerson = new Map<string, Float32Array[]>();
      for (const r of samples.rows) {
        const embedding = this.o.decode(r.id_persona, r.embedding);
        if (!embedding) continue;
        const list = byPerson.get(r.id_persona) ?? [];
        list.push(embedding);
        byPerson.set(r.id_persona, list);
      }
      const lastRow = changes.rows.at(-1)!;
      const last = Number(lastRow.seq);
      for (const id of ids) {
        const embeddings = byPerson.get(id);
        if (embeddings) this.index.set(id, embeddings);
        else this.index.remove(id);
        this.recent.push({ seq: last, idPersona: id, embeddings: embeddings ?? null });
      }
      if (this.recent.length > RECENT) {
        const dropped = this.recent.splice(0, this.recent.length - RECENT);
        this.recentFrom = dropped.at(-1)!.seq;
      }
      this.moveTo({ seq: last, idPersona: lastRow.id_persona, at: lastRow.at });
      this.o.onApplied?.(ids, last);
      if (changes.rows.length < BATCH) return;
    }
  }
}
