import { onnxRuntime } from '../onnx/onnx-session.js';
import { EngineFailedError, FrameDecodeError, WorkerPool, type PoolState } from '../worker-pool.js';
import { workerScript } from '../../threads/index.js';
import type { SideOptions, SideReading } from './read-card-side.js';
import type { DocumentRequest, DocumentResponse } from './worker/document-types.js';

/**
 * The document engine as the HTTP layer sees it: one worker thread (its tesseract workers and
 * the barcode decoders are CPU-bound already), a bounded queue, crash recovery.
 */
export class DocumentEngine {
  private constructor(private readonly pool: WorkerPool<DocumentRequest, DocumentResponse>) {}

  static start(options: {
    modelsDir: string;
    maxQueue?: number;
    /** Read a sample card before taking requests (worker/warm-up-cards.ts); true by default. */
    warmUp?: boolean;
    onEvent?: (event: string, detail?: unknown) => void;
  }): DocumentEngine {
    // The text detector runs on onnxruntime-node, whose addon no longer loads in a new thread once
    // every thread that loaded it has ended: loaded here too, a restarted worker still has it.
    onnxRuntime();
    return new DocumentEngine(
      new WorkerPool<DocumentRequest, DocumentResponse>({
        script: workerScript(import.meta.url, 'document-worker'),
        workerData: { modelsDir: options.modelsDir, warmUp: options.warmUp ?? true },
        size: 1,
        maxQueue: options.maxQueue ?? 16,
        taskTimeoutMs: 30_000,
        ...(options.onEvent ? { onEvent: options.onEvent } : {}),
      }),
    );
  }

  get state(): PoolState {
    return this.pool.state;
  }

  ready(): Promise<void> {
    return this.pool.readyPromise;
  }

  /** A card's sides (a template's frames), read together in the worker. */
  async readSides(images: readonly Uint8Array[], options: readonly SideOptions[]): Promise<SideReading[]> {
    const copies = images.map((image) => new Uint8Array(image));
    const response = await this.pool.run(
      { type: 'readSides', images: copies, options: [...options] },
      copies.map((c) => c.buffer),
    );
    if (response.ok) return response.result;
    if (response.kind === 'image') throw new FrameDecodeError(response.frameIndex ?? 0, response.error);
    throw new EngineFailedError(response.error);
  }

  close(): Promise<void> {
    return this.pool.close();
  }
}
