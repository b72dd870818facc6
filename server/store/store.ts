import type { AuditEntry, PersonSummary } from '../../common/api/admin-schemas.js';
import type { Scope } from '../../common/scopes.js';

/**
 * Everything the station keeps, behind one interface (persons and their biometric samples,
 * API tokens, the audit log). Every write is durable when the call returns.
 */
export interface StationStore {
  enrollPerson(idPersona: string, samples: NewSample[], options: { replace: boolean }): EnrollResult;
  getPerson(idPersona: string): PersonSummary | null;
  listPersons(query: { prefix?: string | undefined; limit: number; offset: number }): { total: number; persons: PersonSummary[] };
  listSamples(idPersona: string): SampleRecord[];
  /** Number of samples removed, or null when the person does not exist. */
  deletePerson(idPersona: string): number | null;
  countPersons(): number;
  /** Every stored embedding of one recognition model, for the search index. */
  forEachEmbedding(modelId: string, visit: (idPersona: string, embedding: Float32Array) => void): void;
  /**
   * The same rows in batches, opened off the caller's thread while it works on the previous
   * batch: the bulk read of a start-up rebuild. `sink`, called once with a bound on the samples
   * the stream may bring (the caller sizes its memory by it), gives work for the threads that open
   * the batches to do on each. `leading`: the caller uses only each embedding's first values, so
   * the store may hand over just those (or more). Optional: callers fall back to `forEachEmbedding`.
   */
  streamEmbeddings?(
    modelId: string,
    visit: StreamVisitor,
    sink?: (atMost: number) => BatchSink | null,
    leading?: number,
  ): Promise<void>;
  /**
   * Changes whenever any sample is added, removed or changed, in the same transaction: the search
   * index's snapshot is trusted only at the stamp it was saved at. Optional: without it the index
   * is always rebuilt from `forEachEmbedding` at start.
   */
  galleryStamp?(): string;
  /**
   * Seals up to `atMost` of the blocks a rebuild would read instead of rows (SQLite's
   * embedding-blocks.ts), for ranges of ids no enrollment can reach any more, each holding every
   * embedding's first `leading` values (all without): how many it sealed, and how many such
   * ranges are still without one. Optional: a store without it is read row by row.
   */
  sealEmbeddingBlocks?(modelId: string, atMost: number, leading?: number): { sealed: number; missing: number };
  /**
   * The persons whose samples changed after `stamp` (an earlier `galleryStamp` of this gallery), or
   * null when the journal does not cover every change since (another gallery, entries forgotten).
   */
  changedSince?(stamp: string): string[] | null;
  /**
   * Each of `ids` once, with its embeddings of one model (none for a person deleted): what the
   * index reads again after a crash, a batch at a time. Optional: callers fall back to `listSamples`.
   */
  embeddingsOfPersons?(
    ids: readonly string[],
    modelId: string,
    visit: (idPersona: string, embeddings: Float32Array[]) => void,
  ): void;
  /**
   * The same as `embeddingsOfPersons`, read and opened off the caller's thread while it works on
   * the batch before (a crash's catch-up at start). Resolves false, having visited nobody, when it
   * cannot (an in-memory database): callers then use `embeddingsOfPersons`.
   */
  streamPersonsEmbeddings?(
    ids: readonly string[],
    modelId: string,
    visit: (idPersona: string, embeddings: Float32Array[]) => void,
  ): Promise<boolean>;
  /** Forgets the journal up to `stamp` (a snapshot of the index at that stamp is saved). */
  forgetChangesThrough?(stamp: string): void;

  insertToken(token: TokenRecord): void;
  findToken(id: string): TokenRecord | null;
  listTokens(): TokenRecord[];
  revokeToken(id: string, at: string): boolean;
  touchToken(id: string, at: string): void;

  appendAudit(entry: Omit<AuditEntry, 'seq'>): void;
  listAudit(query: { limit: number; beforeSeq?: number | undefined }): AuditEntry[];

  /** Re-seals every sealed value under a new key in one transaction. */
  rotateDataKey(newKey: Buffer): number;

  close(): void;
}

/**
 * A batch of streamed embeddings: the floats, or (`coded`, with `embeddings` empty) what the
 * caller's sink made of them on the thread that opened them.
 */
export type StreamVisitor = (ids: string[], embeddings: Float32Array[], coded?: unknown) => void;

/**
 * A stored sample that does not open (its sealed value damaged on disk, or altered): the search
 * index is built without it, and the station reports it, rather than refusing to start over one
 * sample. The person's own operations still refuse it with a clear error (verify, a re-read).
 */
export interface UnreadableSample {
  idPersona: string;
  reason: string;
}

/** How a sample that does not open is named, in errors and in UnreadableSample.reason. */
export function unreadableSampleMessage(idPersona: string, cause: string): string {
  return `Muestra de ${idPersona || '?'} ilegible: ${cause}.`;
}

/** The log line of an UnreadableSample: what it costs and what mends it. */
export const UNREADABLE_SAMPLE_LOG =
  'muestra ilegible: queda fuera de la búsqueda 1:N; vuelva a enrolar a la persona (reemplazando sus muestras) o elimínela';

/**
 * Work the caller hands to the threads that open a stream's batches: the module at `url` exports
 * `openedBatchSink(data)`, which returns a function of each opened batch (its persons, its floats
 * one after the other, where each embedding ends) giving what to send back instead of the floats
 * (and the buffers to transfer), or null to send the floats.
 */
export interface BatchSink {
  url: string;
  data: unknown;
}

export type OpenedBatchSink = (
  ids: string[],
  floats: Float32Array,
  ends: Int32Array,
) => { coded: unknown; transfer: ArrayBuffer[] } | null;

/** Each of `ids` with its embeddings of one model: in batches where the store can, else person by person. */
export function forEachPersonEmbeddings(
  store: Pick<StationStore, 'listSamples' | 'embeddingsOfPersons'>,
  ids: readonly string[],
  modelId: string,
  visit: (idPersona: string, embeddings: Float32Array[]) => void,
): void {
  if (store.embeddingsOfPersons) store.embeddingsOfPersons(ids, modelId, visit);
  else for (const id of ids) visit(id, embeddingsOf(store, id, modelId));
}

/** One person's stored embeddings of one recognition model (empty when none), for the search index. */
export function embeddingsOf(store: Pick<StationStore, 'listSamples'>, idPersona: string, modelId: string): Float32Array[] {
  return store
    .listSamples(idPersona)
    .filter((sample) => sample.modelId === modelId)
    .map((sample) => sample.embedding);
}

export interface NewSample {
  modelId: string;
  embedding: Float32Array;
  quality: number;
  thumbnail: Uint8Array | null;
}

export interface SampleRecord extends NewSample {
  id: number;
  idPersona: string;
  createdAt: string;
}

export interface EnrollResult {
  created: boolean;
  samples: number;
}

export interface TokenRecord {
  id: string;
  name: string;
  /** SHA-256 of the secret part; the token itself is never stored. */
  secretHash: Buffer;
  scopes: Scope[];
  createdAt: string;
  lastUsedAt: string | null;
  revokedAt: string | null;
}

export class StoreError extends Error {
  override name = 'StoreError';
  constructor(
    message: string,
    readonly kind: 'conflict' | 'storage_full' | 'read_only' | 'unavailable',
  ) {
    super(message);
  }
}
