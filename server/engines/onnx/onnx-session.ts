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

/**
 * One network on onnxruntime's CPU provider: one input, one output, float32. One intra-op thread:
 * the engine runs one worker thread per core, and each request's networks stay on its thread.
 */
export class NativeModel {
  private constructor(
    private readonly ort: typeof Ort,
    private readonly session: Ort.InferenceSession,
  ) {}

  static async create(model: Uint8Array): Promise<NativeModel> {
    const runtime = onnxRuntime();
    if ('error' in runtime) throw new Error(`onnxruntime-node no cargó: ${runtime.error}`);
    const session = await runtime.ort.InferenceSession.create(model, SESSION_OPTIONS);
    return new NativeModel(runtime.ort, session);
  }

  async run(input: Float32Array, dims: number[]): Promise<Float32Array> {
    const [inputName] = this.session.inputNames;
    const [outputName] = this.session.outputNames;
    const feeds = { [inputName!]: new this.ort.Tensor('float32', input, dims) };
    const result = await this.session.run(feeds);
    const out = result[outputName!]!;
    try {
      return new Float32Array(out.data as Float32Array);
    } finally {
      for (const t of Object.values(result)) t.dispose();
    }
  }

  async dispose(): Promise<void> {
    await this.session.release();
  }
}

/** onnxruntime-node's own session wrap: synchronous, as its binding.d.ts documents. */
interface BindingSession {
  loadModel(buffer: ArrayBuffer, byteOffset: number, byteLength: number, options: Ort.InferenceSession.SessionOptions): void;
  readonly outputMetadata: { name: string }[];
  run(feeds: Record<string, Ort.Tensor>, fetches: Record<string, null>, options: object): Record<string, Ort.Tensor>;
  dispose(): void;
}

/**
 * A network with any number of outputs, run synchronously on the calling thread: for callers that
 * need the result before returning (a tfjs GraphModel's `execute`, which Human calls inline).
 * onnxruntime-node's public session only runs through a promise; its binding runs in place.
 */
export class SyncNativeGraph {
  private constructor(
    private readonly ort: typeof Ort,
    private readonly session: BindingSession,
    readonly outputNames: string[],
  ) {}

  static create(model: Uint8Array): SyncNativeGraph {
    const runtime = onnxRuntime();
    if ('error' in runtime) throw new Error(`onnxruntime-node no cargó: ${runtime.error}`);
    const { binding, initOrt } = require('onnxruntime-node/dist/binding') as {
      binding: { InferenceSession: new () => BindingSession };
      initOrt: () => void;
    };
    initOrt();
    const session = new binding.InferenceSession();
    session.loadModel(model.buffer as ArrayBuffer, model.byteOffset, model.byteLength, SESSION_OPTIONS);
    return new SyncNativeGraph(
      runtime.ort,
      session,
      session.outputMetadata.map((m) => m.name),
    );
  }

  /** Every output, in the graph's order. */
  run(input: Float32Array, dims: number[]): { data: Float32Array; dims: number[] }[] {
    const result = this.session.run(
      { input: new this.ort.Tensor('float32', input, dims) },
      Object.fromEntries(this.outputNames.map((n) => [n, null])),
      {},
    );
    return this.outputNames.map((n) => {
      const t = result[n]!;
      return { data: t.data as Float32Array, dims: [...t.dims] };
    });
  }

  dispose(): void {
    this.session.dispose();
  }
}
