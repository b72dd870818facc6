import { rmSync } from 'node:fs';
import type { Logger } from '../../log/logger.js';
import { indexFiles } from '../../search/open-search-index.js';
import { IndexIntegrityError, QuantizedEmbeddingIndex } from '../../search/quantized-index.js';
import { indexFacade } from '../../search/index-facade.js';
import { kernelLogFields } from '../../search/native-kernels.js';
import type { SearchIndex } from '../../search/search-index.js';
import type { FeedPosition } from '../gallery.js';
import type { SharedGallery } from './postgres-gallery.js';

export interface FleetIndexOptions {
  dim: number;
  modelId: string;
  /** Seals the snapshot and the float rows' file (`searchIndexKey(dataKey)`), as a single station's. */
  sealKey?: Buffer;
  /** Float rows also kept in memory up to this many bytes (the index's default otherwise). */
  residentFloatBytes?: number;
  /** False: the codes on 4 KiB pages (QuantizedIndexOptions.hugePages). */
  hugePages?: boolean;
  /** The stored embeddings are longer than `dim`: the index holds their first `dim` values. */
  leadingPart?: boolean;
  logger?: Pick<Logger, 'info' | 'warn' | 'error'>;
}

export interface FleetIndex {
  /** The index the operations use; a damaged one is replaced by a fresh one filled from the gallery. */
  index: SearchIndex;
  /** Where the index came from at start (its snapshot, followed from its position; or the gallery), and how long until it was ready. */
  source: 'snapshot' | 'gallery';
  readyMs: number;
  /** Resolves once a reload started by a damaged row, if any, is over (tests). */
  reloaded(): Promise<void>;
  /** Closes the gallery (its feed stops), saves the snapshot at the position reached, stops the index. */
  close(): Promise<void>;
}

interface Label {
  gallery: string;
  modelId: string;
  dim: number;
  position: FeedPosition;
}

/**
 * A fleet station's 1:N index, attached to the shared gallery. Reading a whole gallery takes tens of
 * seconds at a million persons, so the station starts from its own snapshot when it is of this
 * gallery, model and dimension and opens with this station's key: the change feed then follows the
 * changes after the snapshot's position (or fills the index again when that position is not found
 * in the database, or its changes were pruned). Otherwise, the whole gallery. At close, once the
 * feed has stopped, a new snapshot labelled with the position the index reflects.
 */
export async function openFleetIndex(gallery: SharedGallery, dataDir: string, options: FleetIndexOptions): Promise<FleetIndex> {
  const started = performance.now();
  // As a single station's index: float rows in a file (the snapshot's, read in place, once loaded).
  const {
    writable,
    snapshot: file,
    storage,
    removeVectorFiles,
  } = indexFiles(dataDir, options.modelId, { ...options, prefix: 'fleet-' });
  removeVectorFiles();
  const create = () => QuantizedEmbeddingIndex.create(options.dim, { threads: 2, ...storage() });
  let index = await create();
  let from: FeedPosition | undefined;
  const label = readLabel(QuantizedEmbeddingIndex.snapshotLabel(file));
  if (label && label.gallery === gallery.galleryId && label.modelId === options.modelId && label.dim === options.dim) {
    try {
      index.loadSnapshot(file);
      from = label.position;
    } catch (error) {
      options.logger?.warn(
        { err: error, snapshot: file },
        'índice de búsqueda: instantánea dañada o de otra clave; se carga la galería',
      );
      await index.close();
      index = await create();
    }
  }
  // A stored row that fails its check (the disk changed under the station) makes the station fill
  // a fresh index from the gallery, as a single station rebuilds from its store; meanwhile the
  // failing call fails and the others are answered by the index it has. No snapshot is saved
  // until the fresh index is in place.
  let reloading: Promise<void> | null = null;
  let sound = true;
  const damaged = (error: IndexIntegrityError) => {
    sound = false;
    if (reloading) return;
    options.logger?.error({ err: error }, 'índice de búsqueda: fila dañada, se vuelve a cargar desde la galería');
    rmSync(file, { force: true });
    reloading = (async () => {
      const fresh = await create();
      await gallery.reloadInto(fresh);
      const old = index;
      index = fresh;
      sound = true;
      await old.close();
    })()
      .catch((failure: unknown) => options.logger?.error({ err: failure }, 'índice de búsqueda: no se pudo volver a cargar'))
      .finally(() => (reloading = null));
  };
  const facade = indexFacade(
    () => index,
    (error) => {
      if (error instanceof IndexIntegrityError) damaged(error);
      throw error;
    },
  );

  await gallery.attach(facade, options.modelId, from ? { from } : {});
  const followed = gallery.feedStart?.from === 'snapshot' && gallery.feedStart.reloads === 0;
  const source = followed ? 'snapshot' : 'gallery';
  const readyMs = performance.now() - started;
  options.logger?.info(
    {
      source,
      reloads: gallery.feedStart?.reloads ?? 0,
      persons: index.personCount,
      ms: Math.round(readyMs),
      ...kernelLogFields(index),
    },
    'índice de búsqueda listo (galería compartida)',
  );
  return {
    index: facade,
    source,
    readyMs,
    reloaded: async () => {
      await reloading;
    },
    async close() {
      await gallery.close();
      await reloading;
      const position = gallery.position;
      if (writable && position && sound) {
        try {
          const saved: Label = { gallery: gallery.galleryId, modelId: options.modelId, dim: options.dim, position };
          index.saveSnapshot(file, JSON.stringify(saved));
        } catch (error) {
          options.logger?.warn({ err: error }, 'índice de búsqueda: no se pudo guardar la instantánea');
          rmSync(file, { force: true });
        }
      }
      await index.close();
      removeVectorFiles();
    },
  };
}

function readLabel(text: string | null): Label | null {
  if (text === null) return null;
  try {
    const l = JSON.parse(text) as Partial<Label>;
    const p = l.position;
    const valid =
      typeof l.gallery === 'string' &&
      typeof l.modelId === 'string' &&
      typeof l.dim === 'number' &&
      p !== undefined &&
      Number.isSafeInteger(p.seq) &&
      (p.idPersona === null || typeof p.idPersona === 'string') &&
      (p.at === null || typeof p.at === 'string');
    return valid ? (l as Label) : null;
  } catch {
    return null;
  }
}
