import type { Logger } from '../../log/index.js';
import type { SqliteGallery } from './sqlite-gallery.js';

export interface BlockSealingOptions {
  logger?: Pick<Logger, 'info' | 'warn'>;
  /** Between two blocks: each holds the event loop while it is read, opened and sealed (some tens of milliseconds at 1M). */
  pauseMs?: number;
  /** Between two looks once every block is sealed: deletions and new enrollments leave new ranges without. */
  idleMs?: number;
  /** How much of each embedding the blocks hold: what the search index reads (all without). */
  leading?: number;
}

/**
 * Keeps the gallery's sealed embedding blocks written (SqliteGallery.sealEmbeddingBlocks), one block
 * at a time on timers that do not keep the process alive, so that the next rebuild of the search
 * index opens blocks instead of rows. Returns the stop.
 */
export function sealBlocksInBackground(
  gallery: Pick<SqliteGallery, 'sealEmbeddingBlocks'>,
  modelId: string,
  options: BlockSealingOptions = {},
): () => void {
  const pauseMs = options.pauseMs ?? 50;
  const idleMs = options.idleMs ?? 60_000;
  let timer: NodeJS.Timeout | null = null;
  let stopped = false;
  let sealed = 0;
  const tick = () => {
    timer = null;
    if (stopped) return;
    let step: { sealed: number; missing: number };
    try {
      step = gallery.sealEmbeddingBlocks(modelId, 1, options.leading);
    } catch (error) {
      // The rows stay readable: a rebuild without blocks only takes longer.
      options.logger?.warn({ err: error }, 'bloques de muestras: no se pudo sellar uno; se reintenta más tarde');
      schedule(idleMs);
      return;
    }
    sealed += step.sealed;
    if (step.missing > 0) return schedule(pauseMs);
    if (sealed > 0) options.logger?.info({ sealed }, 'bloques de muestras sellados para la reconstrucción del índice');
    sealed = 0;
    schedule(idleMs);
  };
  const schedule = (ms: number) => {
    if (stopped) return;
    timer = setTimeout(tick, ms);
    timer.unref();
  };
  schedule(pauseMs);
  return () => {
    stopped = true;
    if (timer) clearTimeout(timer);
    timer = null;
  };
}
