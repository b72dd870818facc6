import { cpus } from 'node:os';
import type { TemplateFrame } from '../../../common/uitemplate/index.js';
import { IdleWorkers } from '../idle-workers.js';
import { EngineFailedError, FrameDecodeError, WorkerPool, type PoolState } from '../worker-pool.js';
import { workerScript } from '../../threads/index.js';
import { FACE_MODEL_ID } from './face-model.js';
import { onnxRuntime } from '../onnx/onnx-session.js';
import type { NetworkRuntimeSetting } from './native/descriptor-nets.js';
import type { AnalyzeOptions, FrameAnalysis, WorkerRequest, WorkerResponse } from './types.js';

/**
 * A face worker's young generation: 6 MB (1 MB semi-spaces) instead of V8's 48. A request leaves
 * megabytes of short-lived garbage, much of it in buffers outside the heap that only a collection
 * frees; V8 counts those bytes against the old generation's headroom, which in a worker is small,
 * so unless scavenges free them first it starts a full mark of the whole heap every few requests
 * (docs/face-engine.md, worker pool). Each smaller young generation made those marks rarer.
 */
const FACE_WORKER_HEAP = { maxYoungGenerationSizeMb: 6 };

export interface FaceEngineOptions {
  modelsDir: string;
  /** Worker threads; defaults to the number of cores. */
  workers?: number;
  maxQueue?: number;
  taskTimeoutMs?: number;
  /** Warm each worker up before it reports ready (worker/warm-up-face.ts); true by default. */
  warmUp?: boolean;
  /** Where MobileFaceNet and face-api's ResNet run (native/descriptor-nets.ts); `auto` by default. */
  networkRuntime?: NetworkRuntimeSetting;
  /** A request's recognition networks borrow another worker's core while it is idle; true by default. */
  borrowIdleCores?: boolean;
  onEvent?: (event: string, detail?: unknown) => void;
}

export { defaultModelsDir } from '../models-dir.js';

/**
 * The face engine as the HTTP layer sees it: frames in, analyses out, on a pool of worker
 * threads so the event loop never blocks and both cores work.
 */
export class FaceEngine {
  readonly modelId = FACE_MODEL_ID;

  private constructor(private readonly pool: WorkerPool<WorkerRequest, WorkerResponse>) {}

  static start(options: FaceEngineOptions): FaceEngine {
    const size = options.workers ?? Math.max(1, cpus().length);
    // onnxruntime-node's addon, once every worker that loaded it has ended, no longer loads in a
    // new one ("Module did not self-register"): a replaced or restarted worker would fall back to
    // WASM. Loaded here too, it stays loaded for the process's life.
    if (options.networkRuntime !== 'wasm') onnxRuntime();
    const idleWorkers = (options.borrowIdleCores ?? true) && size > 1 ? new IdleWorkers() : null;
    const pool = new WorkerPool<WorkerRequest, WorkerResponse>({
      script: workerScript(import.meta.url, 'face-worker'),
      workerData: {
        modelsDir: options.modelsDir,
        warmUp: options.warmUp ?? true,
        networkRuntime: options.networkRuntime ?? 'auto',
        idleWorkers: idleWorkers?.buffer ?? null,
      },
      size,
      maxQueue: options.maxQueue ?? size * 8,
      taskTimeoutMs: options.taskTimeoutMs ?? 30_000,
      resourceLimits: FACE_WORKER_HEAP,
      ...(idleWorkers ? { idleWorkers } : {}),
      ...(options.onEvent ? { onEvent: options.onEvent } : {}),
    });
    return new FaceEngine(pool);
  }

  get state(): PoolState {
    return this.pool.state;
  }

  /** Resolves once at least one worker has its models loaded. */
  ready(): Promise<void> {
    return this.pool.readyPromise;
  }

  async analyzeImage(image: Uint8Array, options: AnalyzeOptions, frameIndex = 0): Promise<FrameAnalysis> {
    // Copy: the request's bytes may be a view into a larger buffer that must not be detached.
    const copy = new Uint8Array(image); // Buffer#slice would share memory
    const response = await this.pool.run({ type: 'analyze', image: copy, options }, [copy.buffer]);
    if (response.ok) return response.result;
    if (response.kind === 'image') throw new FrameDecodeError(frameIndex, response.error);
    throw new EngineFailedError(response.error);
  }

  /** Analyzes frames in parallel across the workers. */
  analyzeFrames(frames: readonly TemplateFrame[], options: AnalyzeOptions): Promise<FrameAnalysis[]> {
    return Promise.all(frames.map((frame, i) => this.analyzeImage(frame.data, options, i)));
  }

  /** Fault injection: makes one worker crash (tests of recovery). */
  crashOneWorker(): Promise<unknown> {
    return this.pool.run({ type: 'crash' }).catch((error: unknown) => error);
  }

  close(): Promise<void> {
    return this.pool.close();
  }
}
