import { accessSync, constants, mkdirSync, readdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import type { Logger } from '../log/logger.js';
import { forEachPersonEmbeddings, type StationStore } from '../store/store.js';
import { IndexIntegrityError, QuantizedEmbeddingIndex, type QuantizedIndexOptions } from './quantized-index.js';
import { indexFacade } from './index-facade.js';
import { kernelLogFields } from './native-kernels.js';
import type { SearchIndex } from './search-index.js';
import { SEARCH_INDEX_DIR } from './search-index-dir.js';

export { SEARCH_INDEX_DIR };
/** Persons changed since the snapshot above which the catch-up is read on the store's threads (starting them costs tens of milliseconds). */
const STREAM_CHANGES_FROM = 2048;

export interface OpenSearchIndexOptions {
  dim: number;
  modelId: string;
  logger?: Pick<Logger, 'info' | 'warn' | 'error'>;
  threads?: number;
  /** Seals the index's files (its snapshot and float rows): `searchIndexKey(dataKey)`. */
  sealKey?: Buffer;
  /** Float rows also kept in memory up to this many bytes (the index's default otherwise). */
  residentFloatBytes?: number;
  /** False: the codes on 4 KiB pages (QuantizedIndexOptions.hugePages). */
  hugePages?: boolean;
  /** The stored embeddings are longer than `dim`: the index holds their first `dim` values (QuantizedIndexOptions.prefix). */
  leadingPart?: boolean;
  /**
   * A rebuild's rows coded on the store's threads as they open them (default), or all on the
   * caller's (false: what bench:identify --startup compares it with).
   */
  codeOnStoreThreads?: boolean;
}

/**
 * Where a station keeps one model's index: its snapshot, and its float rows in a file per index
 * (read per re-ranked row, with a copy in memory while they fit the budget; the process holds the
 * codes). On a read-only data directory the float rows stay in memory and no snapshot is written.
 * `prefix` tells a shared gallery's index files from a station store's.
 */
export function indexFiles(
  dataDir: string,
  modelId: string,
  options: Pick<OpenSearchIndexOptions, 'sealKey' | 'residentFloatBytes' | 'leadingPart' | 'hugePages'> & { prefix?: string },
) {
  const dir = path.join(dataDir, SEARCH_INDEX_DIR);
  const writable = canWrite(dataDir, dir);
  const base = `${options.prefix ?? ''}${modelId.replace(/[^A-Za-z0-9._-]/g, '_')}`;
  let generation = 0;
  return {
    writable,
    snapshot: path.join(dir, `${base}.snapshot`),
    storage: (): QuantizedIndexOptions => ({
      ...(writable ? { vectorFile: path.join(dir, `${base}.vectors-${generation++}`) } : {}),
      ...(options.sealKey ? { sealKey: options.sealKey } : {}),
      ...(options.residentFloatBytes !== undefined ? { residentFloatBytes: options.residentFloatBytes } : {}),
      ...(options.leadingPart ? { prefix: true } : {}),
      ...(options.hugePages === false ? { hugePages: false } : {}),
    }),
    /** Float rows of earlier runs (the live ones are inside the snapshot): never read again. */
    removeVectorFiles: () => {
      if (!writable) return;
      for (const f of readdirSync(dir)) if (f.startsWith(`${base}.vectors-`)) rmSync(path.join(dir, f), { force: true });
    },
  };
}

export interface OpenedSearchIndex {
  /** The index the operations use; rebuilds itself from the store if a stored row fails its check. */
  index: SearchIndex;
  /**
   * Where it came from at start, and how long that took: its snapshot, its snapshot plus the
   * persons changed since (after a crash, from the store's journal), or the whole store.
   */
  source: 'snapshot' | 'snapshot+changes' | 'store';
  readyMs: number;
  /** Persons re-read from the store after loading the snapshot. */
  caughtUp: number;
  /**
   * Resolves once the work a start leaves to the event loop is done (a snapshot's ids hashed, its
   * float rows copied to memory), as it is before a station's first request (benchmarks).
   */
  settled(): Promise<void>;
  /** Saves the snapshot (labelled with the store's gallery stamp) and stops the index; call before closing the store. */
  close(): Promise<void>;
}

/**
 * The station's 1:N index over one model's embeddings, kept in step with the store (the source of
 * truth). At start: the snapshot in `<dataDir>/search-index` when its label matches the store's
 * gallery stamp (bumped in the same transaction as every enrollment and deletion) and its
 * checksum holds. After a crash the store has moved on: the snapshot is loaded and the persons
 * the store's journal lists as changed since are read again (unless they are many, or the journal
 * does not cover the gap). Otherwise (first start, a damaged or foreign file) a rebuild from the
 * store (`streamEmbeddings` where it has it, else `forEachEmbedding`). At close: a fresh snapshot,
 * and the journal up to it is forgotten.
 */
export async function openSearchIndex(
  store: StationStore,
  dataDir: string,
  options: OpenSearchIndexOptions,
): Promise<OpenedSearchIndex> {
  const started = performance.now();
  const { writable, snapshot, storage, removeVectorFiles } = indexFiles(dataDir, options.modelId, options);
  removeVectorFiles();
  const create = async () => QuantizedEmbeddingIndex.create(options.dim, { threads: options.threads ?? 2, ...storage() });
  const labelAt = (stamp: string | null) => JSON.stringify({ modelId: options.modelId, dim: options.dim, stamp });
  const fromStore = (index: QuantizedEmbeddingIndex) =>
    store.forEachEmbedding(options.modelId, (idPersona, embedding) => index.add(idPersona, embedding));
  // At start, the store may open the samples on other threads, which code them there too (bulkLoader).
  const streamFromStore = async (index: QuantizedEmbeddingIndex) => {
    if (!store.streamEmbeddings) return fromStore(index);
    const bulk = options.codeOnStoreThreads === false ? null : index.bulkLoader();
    const addAll = (ids: string[], embeddings: Float32Array[]) => ids.forEach((id, i) => index.add(id, embeddings[i]!));
    await store.streamEmbeddings(
      options.modelId,
      bulk?.take ?? addAll,
      bulk?.sink,
      options.leadingPart ? options.dim : undefined,
    );
    bulk?.finish();
  };

  let index = await create();
  let source: OpenedSearchIndex['source'] = 'store';
  let caughtUp = 0;
  const stamp = store.galleryStamp?.();
  const saved = stamp === undefined ? null : snapshotStamp(QuantizedEmbeddingIndex.snapshotLabel(snapshot), labelAt);
  // The persons to read again on top of the snapshot: none when it is current; those the journal
  // lists when the store moved on, unless they are so many that reading everything is as quick
  // (bench:identify --startup: a changed person costs three to four persons of the rebuild, and
  // the snapshot's load a fifth of the rebuild: they break even near a quarter of the gallery).
  const changed = saved === null || stamp === undefined ? null : saved === stamp ? [] : (store.changedSince?.(saved) ?? null);
  if (changed !== null && (changed.length <= 64 || changed.length <= store.countPersons() / 4)) {
    try {
      index.loadSnapshot(snapshot);
      const catchUp = (id: string, list: Float32Array[]) => index.set(id, list);
      // More than a batch: read and opened on the store's threads while this one files them.
      const streamed =
        changed.length > STREAM_CHANGES_FROM &&
        (await store.streamPersonsEmbeddings?.(changed, options.modelId, catchUp)) === true;
      if (!streamed) forEachPersonEmbeddings(store, changed, options.modelId, catchUp);
      caughtUp = changed.length;
      source = caughtUp > 0 ? 'snapshot+changes' : 'snapshot';
    } catch (error) {
      options.logger?.warn({ err: error, snapshot }, 'índice de búsqueda: instantánea dañada, se reconstruye');
      caughtUp = 0;
      await index.close();
      index = await create();
    }
  }
  if (source === 'store') await streamFromStore(index);
  // One search before the first request: the kernels' first run (compiled on first use, on both
  // threads) would otherwise fall on the first enrollment or identification after a start.
  if (index.personCount > 0) {
    try {
      index.search(new Float32Array(options.dim).fill(1 / Math.sqrt(options.dim)), 10);
    } catch {
      // A damaged float row: the first real search finds it and rebuilds (below).
    }
  }
  const readyMs = performance.now() - started;
  options.logger?.info(
    {
      source,
      caughtUp,
      persons: index.personCount,
      samples: index.sampleCount,
      ms: Math.round(readyMs),
      ...kernelLogFields(index),
    },
    'índice de búsqueda listo',
  );

  // A float row that fails its check (the disk changed under us) rebuilds the index from the store,
  // synchronously, and the search is answered by the rebuilt index: never from damaged data.
  const rebuild = (error: unknown) => {
    options.logger?.error({ err: error }, 'índice de búsqueda: fila dañada, se reconstruye desde la base');
    const old = index;
    index = new QuantizedEmbeddingIndex(options.dim, storage());
    fromStore(index);
    void old.close();
    rmSync(snapshot, { force: true });
  };
  // An update that failed leaves the index behind the store: its snapshot must not be trusted.
  let diverged = false;
  const facade = indexFacade(
    () => index,
    (error, update) => {
      if (!(error instanceof IndexIntegrityError)) {
        diverged ||= update;
        throw error;
      }
      rebuild(error);
    },
  );

  return {
    index: facade,
    source,
    readyMs,
    caughtUp,
    settled: async () => {
      await index.idsSettled();
      await index.floatsSettled();
    },
    async close() {
      if (!writable) return index.close();
      try {
        if (store.galleryStamp && !diverged) {
          const at = store.galleryStamp();
          index.saveSnapshot(snapshot, labelAt(at));
          store.forgetChangesThrough?.(at);
        } else rmSync(snapshot, { force: true });
      } catch (error) {
        options.logger?.warn({ err: error }, 'índice de búsqueda: no se pudo guardar la instantánea');
        rmSync(snapshot, { force: true });
      }
      await index.close();
      removeVectorFiles();
    },
  };
}

/** The index directory exists and can be written (a read-only mount cannot: the station still serves reads). */
function canWrite(dataDir: string, dir: string): boolean {
  try {
    accessSync(dataDir, constants.W_OK);
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    accessSync(dir, constants.W_OK);
    return true;
  } catch {
    return false;
  }
}

/** The gallery stamp a snapshot's label was written at, when the label is of this model and dimension. */
function snapshotStamp(saved: string | null, labelAt: (stamp: string | null) => string): string | null {
  if (saved === null) return null;
  try {
    const stamp = (JSON.parse(saved) as { stamp?: unknown }).stamp;
    return typeof stamp === 'string' && labelAt(stamp) === saved ? stamp : null;
  } catch {
    return null;
  }
}
