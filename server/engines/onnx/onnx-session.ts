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
 * One network on onnxruntime's CPU provider: input `input` (float32), any number of outputs, run
 * synchronously on the calling thread. One intra-op thread: the engine runs one worker thread per
 * core, and each request's networks stay on its thread. Synchronous because some callers need the
 * result before they return (a tfjs GraphModel's `execute`, which Human calls inline), and a
 * worker has nothing else to do meanwhile: onnxruntime-node's public session only runs through a
 * promise, its binding runs in place. A session lives as long as its worker.
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

  static create(model: Uint8Array): NativeGraph {
    const runtime = onnxRuntime();
    if ('error' in runtime) throw new Error(`onnxruntime-node no cargó: ${runtime.error}`);
    const { binding, initOrt } = require('onnxruntime-node/dist/binding') as {
      binding: { InferenceSession: new () => BindingSession };
      initOrt: () => void;
    };
    initOrt();
    const session = new binding.InferenceSession();
    session.loadModel(model.buffer as ArrayBuffer, model.byteOffset, model.byteLength, SESSION_OPTIONS);
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
