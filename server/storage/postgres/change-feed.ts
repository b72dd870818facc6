import pg from 'pg';
import type { Logger } from '../../log/index.js';
import type { ChangeListener, FeedPosition, NewSample } from '../gallery.js';
import { Mutex } from '../mutex.js';
import type { SealedEmbedding } from '../sample-codec.js';
import { galleryError } from './errors.js';
import { inTransaction } from './transaction.js';

export const CHANNEL = 'enrolla_gallery';
const BATCH = 2000;
const LOAD_FETCH = 5000;
/** Recent changes kept for `recentChanges` (enough for the minutes an enrollment can take). */
const RECENT = 5000;

/** A batch of sealed embeddings opened together; null for one that does not open (the decoder reports it), left out. */
export type DecodeEmbeddings = (rows: readonly SealedEmbedding[]) => (Float32Array | null)[];

export interface FeedOptions {
  config: pg.ClientConfig;
  /** The shared gallery's own id, for the positions the feed reports. */
  galleryId: string;
  location: string;
  modelId: string;
  decode: DecodeEmbeddings;
  logger: Logger;
  /** Safety net besides LISTEN/NOTIFY: look for changes at least this often. */
  pollMs: number;
}

/** A write committed through this station: its change, and the number of the newest change before it. */
export interface OwnChange {
  seq: number;
  before: number;
  idPersona: string;
  at: string;
  /** What it did: the person deleted, or samples stored (replacing the person's, or added to them). */
  kind: 'delete' | 'replace' | 'add';
  samples: readonly NewSample[];
}

/**
 * Tells one station's listener every change of the shared gallery. Every committed write has a row
 * in `gallery_changes` with a sequence number in commit order; the feed reads the rows after the
 * last one it told, re-reading each changed person's samples (so telling twice is harmless), and
 * tells this station's own writes with the embeddings they stored. A NOTIFY after each commit wakes
 * it; a periodic look and a catch-up after each reconnection cover notifications lost while
 * disconnected. It uses one dedicated connection, never the pool, so an enrollment holding the
 * write lock can always bring the listener up to date.
 */
export class ChangeFeed {
  lastSeq = 0;
  /** The change at `lastSeq`, to recognise it in the database later (a snapshot's position). */
  private lastChange: { idPersona: string | null; at: string | null } = { idPersona: null, at: null };
  private client: pg.Client | null = null;
  private listener: ChangeListener | null = null;
  private readonly mutex = new Mutex();
  private closed = false;
  private retryMs = 250;
  private timer: NodeJS.Timeout | null = null;
  private reconnecting: NodeJS.Timeout | null = null;
  private connecting: Promise<pg.Client> | null = null;
  private queued = false;
  /** Writes of this station begun and not yet told. */
  private ownWrites = 0;
  /** The newest change a notification announced. */
  private notified = 0;
  /** Persons changed after `recentFrom`, in seq order, with their embeddings then (null: removed). */
  private recent: { seq: number; idPersona: string; embeddings: Float32Array[] | null }[] = [];
  private recentFrom = 0;

  constructor(private readonly o: FeedOptions) {}

  get connected(): boolean {
    return this.client !== null;
  }

  /** The position the listener has been told up to, to save beside a snapshot of its index. */
  get position(): FeedPosition {
    return { gallery: this.o.galleryId, seq: this.lastSeq, ...this.lastChange };
  }

  /** Connects, subscribes, and tells `listener` every change after `from`. */
  async start(from: FeedPosition, listener: ChangeListener): Promise<void> {
    await this.retarget(from, listener);
    this.timer = setInterval(() => void this.catchUpQuietly(), this.o.pollMs);
    this.timer.unref();
  }

  /** From now on every change after `from` goes to `listener` instead (an index filled again beside the damaged one). */
  retarget(from: FeedPosition, listener: ChangeListener): Promise<void> {
    return this.mutex.run(async () => {
      this.listener = listener;
      this.restartAt(from);
      try {
        await this.applyPending(this.client ?? (await this.connect()));
      } catch (error) {
        throw galleryError(error, this.o.location);
      }
    });
  }

  /** Tells every change committed so far; serialized with every other telling. */
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
   * A write of this station begins: the looks that notifications and the timer ask for are left to
   * `written`, so its own notification does not read back what it stored.
   */
  beginWrite(): void {
    this.ownWrites++;
  }

  /**
   * That write is over: committed (`change`), told with the embeddings it stored when the listener
   * was told every change before it, else read back with them; or not (null). Then any change
   * announced meanwhile by another station.
   */
  written(change: OwnChange | null): Promise<void> {
    return this.mutex.run(async () => {
      try {
        if (change) await this.tell(change);
      } finally {
        this.ownWrites--;
      }
      if (this.notified <= this.lastSeq) return;
      try {
        await this.applyPending(this.client ?? (await this.connect()));
      } catch (error) {
        throw galleryError(error, this.o.location);
      }
    });
  }

  private async tell(change: OwnChange): Promise<void> {
    if (this.lastSeq >= change.seq) return;
    if (this.lastSeq !== change.before) {
      try {
        return await this.applyPending(this.client ?? (await this.connect()));
      } catch (error) {
        throw galleryError(error, this.o.location);
      }
    }
    const { idPersona, kind } = change;
    const embeddings = change.samples.filter((s) => s.modelId === this.o.modelId).map((s) => s.embedding);
    if (kind === 'add' && embeddings.length > 0) this.listener?.added(idPersona, embeddings);
    else if (kind !== 'add') this.listener?.changed(idPersona, embeddings);
    // What it added is what is new: the rest was in the index before.
    if (kind !== 'add' || embeddings.length > 0) this.remember(change.seq, idPersona, embeddings.length > 0 ? embeddings : null);
    this.moveTo({ gallery: this.o.galleryId, seq: change.seq, idPersona, at: change.at });
  }

  /**
   * The persons changed after `seq` with what they gained then (removed ones left out), or null
   * when that is older than what is remembered.
   */
  recentChanges(seq: number): Map<string, Float32Array[]> | null {
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
      this.listener = null;
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
    client.on('notification', (message) => {
      this.notified = Math.max(this.notified, Number(message.payload) || 0);
      void this.catchUpQuietly();
    });
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
    // A burst of notifications needs one catch-up, not one each; during this station's write,
    // `written` looks once it is told (and the timer looks again).
    if (!this.client || this.queued || this.ownWrites > 0) return;
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

  private moveTo(position: FeedPosition): void {
    this.lastSeq = position.seq;
    this.lastChange = { idPersona: position.idPersona, at: position.at };
  }

  /** The listener holds the gallery as of `position`: nothing changed after it is remembered yet. */
  private restartAt(position: FeedPosition): void {
    this.moveTo(position);
    this.recent = [];
    this.recentFrom = position.seq;
  }

  private remember(seq: number, idPersona: string, embeddings: Float32Array[] | null): void {
    this.recent.push({ seq, idPersona, embeddings });
    if (this.recent.length > RECENT) {
      const dropped = this.recent.splice(0, this.recent.length - RECENT);
      this.recentFrom = dropped.at(-1)!.seq;
    }
  }

  /**
   * The listener told the gallery as it is now, when it cannot be followed from its position: the
   * changes after it were pruned (the station was away longer than their retention). Every
   * person's samples are told again, then which persons are all there are.
   */
  private async resync(client: pg.Client, listener: ChangeListener): Promise<void> {
    const seen = new Set<string>();
    let person: string | null = null;
    let samples: Float32Array[] = [];
    const flush = () => {
      // A person whose every sample failed to open is told as without samples.
      if (person !== null) listener.changed(person, samples);
      samples = [];
    };
    const position = await readGallerySnapshot(client, this.o.galleryId, this.o.modelId, 'ORDER BY id_persona, id', (rows) => {
      const opened = this.o.decode(rows);
      rows.forEach((r, i) => {
        if (r.id_persona !== person) {
          flush();
          person = r.id_persona;
          seen.add(person);
        }
        if (opened[i]) samples.push(opened[i]);
      });
    });
    flush();
    listener.only(seen);
    this.restartAt(position);
  }

  private async applyPending(client: pg.Client): Promise<void> {
    const listener = this.listener;
    if (!listener) return;
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
        await this.resync(client, listener);
        continue;
      }
      const ids = [...new Set(changes.rows.map((r) => r.id_persona))];
      // The persons' samples now: later than the changes read, never earlier, so the index only moves forward.
      const byPerson = await embeddingsOfPersons(client, ids, this.o.modelId, this.o.decode);
      const lastRow = changes.rows.at(-1)!;
      const last = Number(lastRow.seq);
      for (const id of ids) {
        const embeddings = byPerson.get(id) ?? [];
        listener.changed(id, embeddings);
        this.remember(last, id, embeddings.length > 0 ? embeddings : null);
      }
      this.moveTo({ gallery: this.o.galleryId, seq: last, idPersona: lastRow.id_persona, at: lastRow.at });
      if (changes.rows.length < BATCH) return;
    }
  }
}

/** The embeddings of `ids` of one model now, by person (a person without any, or gone, is absent). */
export async function embeddingsOfPersons(
  client: pg.ClientBase,
  ids: readonly string[],
  modelId: string,
  decode: DecodeEmbeddings,
): Promise<Map<string, Float32Array[]>> {
  const { rows } = await client.query<{ id_persona: string; embedding: Buffer }>(
    'SELECT id_persona, embedding FROM face_samples WHERE id_persona = ANY($1) AND model_id = $2 ORDER BY id',
    [ids, modelId],
  );
  const byPerson = new Map<string, Float32Array[]>();
  decode(rows).forEach((embedding, i) => {
    if (!embedding) return;
    const id = rows[i]!.id_persona;
    const list = byPerson.get(id);
    if (list) list.push(embedding);
    else byPerson.set(id, [embedding]);
  });
  return byPerson;
}

/** Streams one model's samples from one snapshot of the gallery; returns the change they correspond to. */
export async function readGallerySnapshot(
  client: pg.ClientBase,
  galleryId: string,
  modelId: string,
  order: string,
  onRows: (rows: { id_persona: string; embedding: Buffer }[]) => void,
): Promise<FeedPosition> {
  return inTransaction(
    client,
    async () => {
      const position = await newestPosition(client, galleryId);
      await client.query(
        `DECLARE load_embeddings NO SCROLL CURSOR FOR SELECT id_persona, embedding FROM face_samples WHERE model_id = $1 ${order}`,
        [modelId],
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

/** The gallery's newest change as a position (never pruned), or the pruning mark if none is left. */
export async function newestPosition(client: pg.ClientBase, galleryId: string): Promise<FeedPosition> {
  const newest = await client.query<{ seq: string; id_persona: string; at: string }>(
    'SELECT seq, id_persona, at::text AS at FROM gallery_changes ORDER BY seq DESC LIMIT 1',
  );
  const last = newest.rows[0];
  if (last) return { gallery: galleryId, seq: Number(last.seq), idPersona: last.id_persona, at: last.at };
  const mark = await client.query<{ through: string }>('SELECT through FROM gallery_changes_pruned');
  return { gallery: galleryId, seq: Number(mark.rows[0]!.through), idPersona: null, at: null };
}
