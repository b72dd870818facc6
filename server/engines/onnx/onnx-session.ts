import { createRequire } from 'node:module';
import type * as Ort from 'onnxruntime-node';

const require = createRequire(import.meta.url);

let loaded: { ort: typeof Ort } | { error: string } | undefined;

/**
 * onnxruntime-node (CPU only: its npm package carries the native library; the install script that
 * would download GPU libraries does not run, see package.json allowScripts), or why it did not load.
 */
export function onnxRuntime(): { ort: typeof Ort } | { error: string } {
  if (!loaded) {
    try {
      loaded = { ort: require('onnxruntime-node') as typeof Ort };
    } catch (error) {
      loaded = { error: (error as Error).message.split('\n')[0]! };
    }
  }
  return loaded;
}

const SESSION_OPTIONS = {
  executionProviders: ['cpu'],
  intraOpNumThreads: 1,
  interOpNumThreads: 1,
  executionMode: 'sequential',
  graphOptimizationLevel: 'all',
  logSeverityLevel: 3,
} satisfies Ort.InferenceSession.SessionOptions;

/** onnxruntime-node's own session wrap: synchronous, as its binding.d.ts documents. */
interface BindingSession {
  loadModel(buffer: ArrayBuffer, byteOffset: number, byteLength: number, options: Ort.InferenceSession.SessionOptions): void;
  readonly outputMetadata: { name: string }[];
  run(feeds: Record<string, Ort.Tensor>, fetches: Record<string, null>, options: object): Record<string, Ort.Tensor>;
}

/**
 * A session whose kernels may also run on one more thread, for a worker that borrows an idle
 * worker's core (server/engines/idle-workers.ts). Its helper thread must not spin between runs:
 * spinning, the helpers of every such session in the process kept the cores busy and a request took
 * twice as long (by hand, 2026-11-28).
 */
const TWO_THREAD_OPTIONS = {
  ...SESSION_OPTIONS,
  intraOpNumThreads: 2,
  extra: { session: { intra_op: { allow_spinning: '0' } } },
} satisfies Ort.InferenceSession.SessionOptions;

/**
 * One network on onnxruntime's CPU provider: input `input` (float32), any number of outputs, run
 * synchronously on the calling thread. One intra-op thread by default: the engine runs one worker
 * thread per core, and each request's networks stay on its thread. Synchronous because some
 * callers need the result before they return (a tfjs GraphModel's `execute`, which Human calls
 * inline), and a worker has nothing else to do meanwhile: onnxruntime-node's public session only
 * runs through a promise, its binding runs in place. A session lives as long as its worker.
 */
export class NativeGraph {
  private readonly fetches: Record<string, null>;

  private constructor(
    private readonly ort: typeof Ort,
    private readonly session: BindingSession,
    private readonly outputNames: string[],
  ) {
    this.fetches = Object.fromEntries(outputNames.map((n) => [n, null]));
  }

  static create(model: Uint8Array, threads: 1 | 2 = 1): NativeGraph {
    const runtime = onnxRuntime();
    if ('error' in runtime) throw new Error(`onnxruntime-node no cargó: ${runtime.error}`);
    const { binding, initOrt } = require('onnxruntime-node/dist/binding') as {
      binding: { InferenceSession: new () => BindingSession };
      initOrt: () => void;
    };
    initOrt();
    const session = new binding.InferenceSession();
    session.loadModel(
      model.buffer as ArrayBuffer,
      model.byteOffset,
      model.byteLength,
      threads === 2 ? TWO_THREAD_OPTIONS : SESSION_OPTIONS,
    );
    return new NativeGraph(
      runtime.ort,
      session,
      session.outputMetadata.map((m) => m.name),
    );
  }

  /** Every output, in the graph's order. `input` may be a view of WASM memory: it is read in place. */
  run(input: Float32Array, dims: number[]): { data: Float32Array; dims: number[] }[] {
    const result = this.session.run({ input: new this.ort.Tensor('float32', input, dims) }, this.fetches, {});
    return this.outputNames.map((n) => ({ data: result[n]!.data as Float32Array, dims: [...result[n]!.dims] }));
  }
}
