import type Database from 'better-sqlite3';
import type { StreamVisitor } from '../../threads/index.js';
import type { ChangeListener, FeedPosition, GalleryFeed, IndexFill, NewSample } from '../gallery.js';
import type { SampleCodec, SealedEmbedding } from '../sample-codec.js';
import type { UnreadableSample } from '../store-error.js';
import { sqliteFaults } from './station-database.js';
import { BATCH, streamPersonsUnsealed, streamUnsealed } from './stream-embeddings.js';

/** Persons read again above which the reading is done on the store's threads (starting them costs tens of milliseconds). */
const ON_THREADS_FROM = 2048;

/**
 * The station gallery's feed. Nothing but this station writes its file, so following is hearing
 * its own writes, each told with the embeddings it stored; what changed while no index followed
 * (a crash before the index's snapshot) is in the journal the triggers of `face_samples` keep
 * (migrations 3 and 4): the version, bumped in the same transaction as every insert, delete or
 * update, is the position, and the journal names the person of each version.
 */
export class SqliteFeed implements GalleryFeed {
  private readonly q;
  private following: { modelId: string; listener: ChangeListener } | null = null;

  constructor(
    private readonly db: Database.Database,
    private readonly key: Buffer,
    private readonly codec: SampleCodec,
    private readonly readOnly: boolean,
    /** Where bulk reads report a sample that does not open and leave it out; without, they fail on it. */
    private readonly onUnreadable: ((sample: UnreadableSample) => void) | null,
  ) {
    this.q = {
      version: db.prepare<[], { gallery_id: string; version: number }>(
        'SELECT gallery_id, version FROM gallery_version WHERE id = 1',
      ),
      changesAfter: db.prepare<[number], { n: number }>('SELECT count(*) AS n FROM gallery_changes WHERE version > ?'),
      personsChangedAfter: db
        .prepare<[number], string>('SELECT DISTINCT id_persona FROM gallery_changes WHERE version > ?')
        .pluck(),
      forgetChanges: db.prepare('DELETE FROM gallery_changes WHERE version <= ?'),
      embeddings: db.prepare<[string], SealedEmbedding>(
        'SELECT id_persona, embedding FROM face_samples WHERE model_id = ? ORDER BY id',
      ),
      embeddingsOfPersons: db.prepare<[string, string], SealedEmbedding>(
        'SELECT id_persona, embedding FROM face_samples WHERE model_id = ? AND id_persona IN (SELECT value FROM json_each(?)) ORDER BY id',
      ),
      embeddingPage: db.prepare<[string, number, number], { id: number; id_persona: string; embedding: Buffer }>(
        'SELECT id, id_persona, embedding FROM face_samples WHERE model_id = ? AND id > ? ORDER BY id LIMIT ?',
      ),
      maxSampleId: db.prepare<[], { id: number | null }>('SELECT max(id) AS id FROM face_samples'),
    };
  }

  get position(): FeedPosition {
    const row = this.q.version.get()!;
    return { gallery: row.gallery_id, seq: row.version, idPersona: null, at: null };
  }

  async readAll(modelId: string, into: IndexFill): Promise<FeedPosition> {
    // Nothing else writes the file: the rows read after this are the gallery at this version.
    const position = this.position;
    const bulk = into.bulk();
    const addAll: StreamVisitor = (ids, embeddings) => ids.forEach((id, i) => into.add(id, embeddings[i]!));
    const maxId = this.q.maxSampleId.get()!.id ?? 0;
    // The workers read the file themselves unless it is in memory (only this connection sees it).
    const ranges = this.db.memory
      ? undefined
      : { file: this.db.name, modelId, maxId, ...(into.leading ? { leading: into.leading } : {}) };
    // Ids only grow: the last one bounds the samples without counting them.
    const page = (after: number, limit: number) => this.q.embeddingPage.all(modelId, after, limit);
    await streamUnsealed(this.key, page, bulk?.take ?? addAll, {
      ranges,
      sink: bulk?.sink(maxId) ?? null,
      ...(this.onUnreadable ? { onUnreadable: this.onUnreadable } : {}),
    });
    bulk?.finish();
    return position;
  }

  readAllNow(modelId: string, add: (idPersona: string, embedding: Float32Array) => void): FeedPosition {
    const position = this.position;
    this.forEachEmbedding(modelId, add);
    return position;
  }

  /** Every stored embedding of one model, read and opened a batch at a time on this thread. */
  forEachEmbedding(modelId: string, visit: (idPersona: string, embedding: Float32Array) => void): void {
    const batch: SealedEmbedding[] = [];
    const visitBatch = () => {
      this.codec.embeddings(batch, this.onUnreadable).forEach((e, i) => e && visit(batch[i]!.id_persona, e));
      batch.length = 0;
    };
    for (const row of this.q.embeddings.iterate(modelId)) {
      batch.push(row);
      if (batch.length === BATCH) visitBatch();
    }
    visitBatch();
  }

  async changedSince(from: FeedPosition): Promise<{ persons: string[]; to: FeedPosition } | null> {
    const to = this.position;
    if (from.gallery !== to.gallery || from.seq > to.seq) return null;
    // Every version in (from, to] has its entry, unless some were forgotten or never written.
    if (this.q.changesAfter.get(from.seq)!.n !== to.seq - from.seq) return null;
    return { persons: this.q.personsChangedAfter.all(from.seq), to };
  }

  async embeddingsOfPersons(
    ids: readonly string[],
    modelId: string,
    visit: (idPersona: string, embeddings: Float32Array[]) => void,
  ): Promise<void> {
    // Many: read and opened on the store's threads while this one takes the batch before.
    if (ids.length > ON_THREADS_FROM && (await this.embeddingsOfPersonsOnThreads(ids, modelId, visit))) return;
    this.embeddingsOfPersonsNow(ids, modelId, visit);
  }

  /** False, having read nothing, where the threads cannot read the file (a database in memory). */
  private embeddingsOfPersonsOnThreads(
    ids: readonly string[],
    modelId: string,
    visit: (idPersona: string, embeddings: Float32Array[]) => void,
  ): Promise<boolean> {
    if (this.db.memory) return Promise.resolve(false);
    return streamPersonsUnsealed(this.key, { file: this.db.name, modelId }, ids, visit, this.onUnreadable);
  }

  private embeddingsOfPersonsNow(
    ids: readonly string[],
    modelId: string,
    visit: (idPersona: string, embeddings: Float32Array[]) => void,
  ): void {
    for (let at = 0; at < ids.length; at += BATCH) {
      const chunk = ids.slice(at, at + BATCH);
      const rows = this.q.embeddingsOfPersons.all(modelId, JSON.stringify(chunk));
      const byPerson = new Map<string, Float32Array[]>();
      this.codec.embeddings(rows, this.onUnreadable).forEach((e, i) => {
        if (!e) return;
        const id = rows[i]!.id_persona;
        const list = byPerson.get(id);
        if (list) list.push(e);
        else byPerson.set(id, [e]);
      });
      for (const id of chunk) visit(id, byPerson.get(id) ?? []);
    }
  }

  async follow(modelId: string, from: FeedPosition, listener: ChangeListener): Promise<void> {
    this.following = { modelId, listener };
    const now = this.position;
    if (from.gallery === now.gallery && from.seq === now.seq) return;
    const gap = await this.changedSince(from);
    if (!gap) throw new Error('galería: no se puede seguir desde esa posición');
    this.embeddingsOfPersonsNow(gap.persons, modelId, (id, list) => listener.changed(id, list));
  }

  stop(): Promise<void> {
    this.following = null;
    return Promise.resolve();
  }

  forgetThrough(position: FeedPosition): void {
    if (this.readOnly || position.gallery !== this.position.gallery) return;
    sqliteFaults(() => this.q.forgetChanges.run(position.seq));
  }

  /** An enrollment committed through this gallery, told with the embeddings it stored. */
  enrolled(idPersona: string, samples: readonly NewSample[], replaced: boolean): void {
    if (!this.following) return;
    const { modelId, listener } = this.following;
    const embeddings = samples.filter((s) => s.modelId === modelId).map((s) => s.embedding);
    if (replaced) listener.changed(idPersona, embeddings);
    else if (embeddings.length > 0) listener.added(idPersona, embeddings);
  }

  deleted(idPersona: string): void {
    this.following?.listener.changed(idPersona, []);
  }
}
