import { rmSync } from 'node:fs';
import type { Logger } from '../log/index.js';
import { indexFacade, IndexIntegrityError, kernelLogFields, QuantizedEmbeddingIndex, type SearchIndex } from '../search/index.js';
import type { ChangeListener, FeedPosition, Gallery } from '../storage/index.js';
import { stationIndexFiles, type IndexFileOptions } from './station-index-files.js';

export interface GalleryIndexOptions extends Omit<IndexFileOptions, 'prefix'> {
  dim: number;
  modelId: string;
  logger?: Pick<Logger, 'info' | 'warn' | 'error'>;
  threads?: number;
  /**
   * A whole read's rows coded on the threads that open them, where the gallery has such threads
   * (SQLite; the default), or all on the caller's (false: what bench:identify --startup compares it with).
   */
  codeOnStoreThreads?: boolean;
}

export interface GalleryIndex {
  /** The index the operations use; a damaged one is replaced by one filled again from the gallery. */
  index: SearchIndex;
  /**
   * Where it came from at start: its snapshot, its snapshot plus the persons changed since (after
   * a crash, or while a fleet station was down), or the whole gallery; and how long that took.
   */
  source: 'snapshot' | 'snapshot+changes' | 'gallery';
  readyMs: number;
  /** Persons read again from the gallery on top of the snapshot. */
  caughtUp: number;
  /**
   * Resolves once the work a start leaves to the event loop is done (a snapshot's ids hashed, its
   * float rows copied to memory), as it is before a station's first request (benchmarks).
   */
  settled(): Promise<void>;
  /** Resolves once a fill started by a damaged row, if any, is over (tests). */
  reloaded(): Promise<void>;
  /** Stops following the gallery, saves the snapshot at the position reached, stops the index; before the gallery closes. */
  close(): Promise<void>;
}

/** A listener keeping `target()` in step with the index's public methods only. */
export function indexListener(target: () => Pick<SearchIndex, 'set' | 'add' | 'remove' | 'personIds'>): ChangeListener {
  return {
    changed: (idPersona, embeddings) =>
      embeddings.length > 0 ? target().set(idPersona, embeddings) : target().remove(idPersona),
    added: (idPersona, embeddings) => embeddings.forEach((e) => target().add(idPersona, e)),
    only: (persons) => {
      const index = target();
      for (const id of [...index.personIds()]) if (!persons.has(id)) index.remove(id);
    },
  };
}

/**
 * Fills `index` (new, empty) with the gallery and keeps it in step from then on, without files of
 * its own: what a gallery's tests and benchmarks need of a station's index. `onChange` hears each
 * person changed after the fill, once it is in the index.
 */
export async function keepInStep(
  gallery: Gallery,
  index: SearchIndex,
  modelId: string,
  onChange?: (idPersona: string) => void,
): Promise<void> {
  const at = await gallery.feed.readAll(modelId, { add: (id, e) => index.add(id, e), bulk: () => null });
  const apply = indexListener(() => index);
  const listener: ChangeListener = onChange
    ? {
        changed: (id, embeddings) => (apply.changed(id, embeddings), onChange(id)),
        added: (id, embeddings) => (apply.added(id, embeddings), onChange(id)),
        only: apply.only,
      }
    : apply;
  await gallery.feed.follow(modelId, at, listener);
}

/**
 * The station's 1:N index over one model of its gallery (the source of truth), kept in step with
 * it through the gallery's feed (docs/search-index.md, docs/fleet-gallery.md). At start: the
 * snapshot in `<dataDir>/search-index` when it is of this gallery, model and dimension and opens
 * with the station's key, plus the persons changed after the position it was saved at (unless
 * they are many, or the gallery cannot be followed from there); otherwise the whole gallery. Then
 * it follows every change. A stored row that fails its check fills a fresh index from the gallery.
 * At close: a fresh snapshot labelled with the position reached.
 */
export async function openGalleryIndex(gallery: Gallery, dataDir: string, options: GalleryIndexOptions): Promise<GalleryIndex> {
  const started = performance.now();
  const { feed } = gallery;
  const { dim, modelId, logger } = options;
  const files = stationIndexFiles(dataDir, modelId, { ...options, prefix: gallery.backend === 'postgres' ? 'fleet-' : '' });
  files.removeVectorFiles();
  const create = () => QuantizedEmbeddingIndex.create(dim, { threads: options.threads ?? 2, ...files.storage() });
  const fill = async (into: QuantizedEmbeddingIndex) =>
    feed.readAll(modelId, {
      add: (id, e) => into.add(id, e),
      bulk: () => (options.codeOnStoreThreads === false ? null : into.bulkLoader()),
      ...(options.leadingPart ? { leading: dim } : {}),
    });

  let index = await create();
  let source: GalleryIndex['source'] = 'gallery';
  let caughtUp = 0;
  let position: FeedPosition | null = null;
  const saved = readLabel(QuantizedEmbeddingIndex.snapshotLabel(files.snapshot), modelId, dim);
  const changed = saved ? await feed.changedSince(saved) : null;
  // The persons to read again on top of the snapshot, unless they are so many that reading
  // everything is as quick (bench:identify --startup: a changed person costs three to four persons
  // of a rebuild, and the snapshot's load a fifth of it: they break even near a quarter of the gallery).
  if (changed && (changed.persons.length <= 64 || changed.persons.length <= (await gallery.countPersons()) / 4)) {
    try {
      index.loadSnapshot(files.snapshot);
      const apply = indexListener(() => index);
      await feed.embeddingsOfPersons(changed.persons, modelId, apply.changed);
      caughtUp = changed.persons.length;
      source = caughtUp > 0 ? 'snapshot+changes' : 'snapshot';
      position = changed.to;
    } catch (error) {
      logger?.warn(
        { err: error, snapshot: files.snapshot },
        'índice de búsqueda: instantánea dañada o de otra clave; se lee la galería',
      );
      caughtUp = 0;
      await index.close();
      index = await create();
    }
  }
  position ??= await fill(index);

  // A stored row that fails its check (the disk changed under the station) fills a fresh index
  // from the gallery: on this thread where the gallery can be read so (its file is on this
  // machine), and the call is answered from the fresh index, never from damaged data; beside the
  // index where it cannot (a shared gallery), which answers meanwhile, the failing call failing.
  // No snapshot is saved until the fresh index is in place.
  let reloading: Promise<void> | null = null;
  let sound = true;
  const rebuildNow = (): boolean => {
    let fresh: QuantizedEmbeddingIndex | null = null;
    const into = () => (fresh ??= new QuantizedEmbeddingIndex(dim, files.storage()));
    if (!feed.readAllNow(modelId, (id, e) => into().add(id, e))) return false;
    const old = index;
    index = into();
    void old.close();
    return true;
  };
  const reloadBeside = () => {
    sound = false;
    if (reloading) return;
    reloading = (async () => {
      const fresh = await create();
      const at = await feed.readAll(modelId, { add: (id, e) => fresh.add(id, e), bulk: () => null });
      await feed.follow(
        modelId,
        at,
        indexListener(() => fresh),
      );
      const old = index;
      index = fresh;
      sound = true;
      await old.close();
    })()
      .catch((failure: unknown) => logger?.error({ err: failure }, 'índice de búsqueda: no se pudo volver a cargar'))
      .finally(() => (reloading = null));
  };
  // An update that failed otherwise leaves the index behind the gallery: its snapshot must not be trusted.
  let diverged = false;
  const facade = indexFacade(
    () => index,
    (error, update) => {
      if (!(error instanceof IndexIntegrityError)) {
        diverged ||= update;
        throw error;
      }
      logger?.error({ err: error }, 'índice de búsqueda: fila dañada, se vuelve a llenar desde la galería');
      rmSync(files.snapshot, { force: true });
      if (rebuildNow()) return;
      reloadBeside();
      throw error;
    },
  );
  await feed.follow(
    modelId,
    position,
    indexListener(() => facade),
  );

  // One search before the first request: the kernels' first run (compiled on first use, on both
  // threads) would otherwise fall on the first enrollment or identification after a start.
  if (index.personCount > 0) {
    try {
      index.search(new Float32Array(dim).fill(1 / Math.sqrt(dim)), 10);
    } catch {
      // A damaged float row: the first real search finds it and fills the index again (above).
    }
  }
  const readyMs = performance.now() - started;
  logger?.info(
    {
      source,
      caughtUp,
      persons: index.personCount,
      samples: index.sampleCount,
      ms: Math.round(readyMs),
      gallery: gallery.location,
      ...kernelLogFields(index),
    },
    'índice de búsqueda listo',
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
    reloaded: async () => {
      await reloading;
    },
    async close() {
      await feed.stop();
      await reloading;
      if (files.writable) {
        try {
          // Read in the try: a gallery closed under the station leaves no position, and no snapshot.
          const at = feed.position;
          if (at && sound && !diverged) {
            index.saveSnapshot(files.snapshot, JSON.stringify({ modelId, dim, position: at } satisfies Label));
            feed.forgetThrough(at);
          } else rmSync(files.snapshot, { force: true });
        } catch (error) {
          logger?.warn({ err: error }, 'índice de búsqueda: no se pudo guardar la instantánea');
          rmSync(files.snapshot, { force: true });
        }
      }
      await index.close();
      files.removeVectorFiles();
    },
  };
}

interface Label {
  modelId: string;
  dim: number;
  position: FeedPosition;
}

/** The position a snapshot was saved at, when its label is of this model and dimension. */
function readLabel(text: string | null, modelId: string, dim: number): FeedPosition | null {
  if (text === null) return null;
  try {
    const l = JSON.parse(text) as Partial<Label>;
    const p = l.position;
    const valid =
      l.modelId === modelId &&
      l.dim === dim &&
      p !== undefined &&
      typeof p.gallery === 'string' &&
      Number.isSafeInteger(p.seq) &&
      (p.idPersona === null || typeof p.idPersona === 'string') &&
      (p.at === null || typeof p.at === 'string');
    return valid ? p : null;
  } catch {
    return null;
  }
}
