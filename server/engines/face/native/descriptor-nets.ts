import type { IdleWorkers } from '../../idle-workers.js';
import { NativeGraph, onnxRuntime } from '../../onnx/onnx-session.js';
import {
  type MobileFaceNetTflite,
  MOBILEFACENET_BATCH_VALUES,
  mobileFaceNetInput,
  splitEmbeddings,
} from '../tflite/expo-models.js';
import { tf, type FaceApi } from '../worker/model-loader.js';
import { RESNET_INPUT } from './faceapi-resnet-onnx.js';
import { readNetworkFile } from './network-files.js';
import { tensorValues } from './tensor-values.js';
import type { NetworkRuntime } from '../types.js';

export type { NetworkRuntime };
export type NetworkRuntimeSetting = NetworkRuntime | 'auto';

/** The two recognition networks of a face: MobileFaceNet (the stored descriptor) and face-api's ResNet. */
export interface DescriptorNets {
  readonly runtime: NetworkRuntime;
  /** Why `auto` fell back to WASM, if it did. */
  readonly fallbackReason: string | null;
  /** Whether the networks take a second thread while another worker is idle (NativeDescriptorNets). */
  readonly borrowsIdleCores: boolean;
  /** MobileFaceNet's embeddings of two 112x112 RGB crops, each L2-normalised. */
  embedPair(a: Uint8Array, b: Uint8Array): Promise<[Float32Array, Float32Array]>;
  /** face-api's 128-d descriptors of square crops of a face (int32 RGB, any side), one batch where the runtime batches. */
  faceApiDescriptors(squares: readonly tf.Tensor3D[]): Promise<Float32Array[]>;
}

class WasmDescriptorNets implements DescriptorNets {
  readonly runtime = 'wasm';
  readonly borrowsIdleCores = false;
  constructor(
    private readonly expo: MobileFaceNetTflite,
    private readonly faceapi: FaceApi,
    readonly fallbackReason: string | null,
  ) {}

  embedPair(a: Uint8Array, b: Uint8Array): Promise<[Float32Array, Float32Array]> {
    return this.expo.embedPair(a, b);
  }

  async faceApiDescriptors(squares: readonly tf.Tensor3D[]): Promise<Float32Array[]> {
    const out: Float32Array[] = [];
    for (const square of squares)
      out.push(new Float32Array(await this.faceapi.nets.faceRecognitionNet.computeFaceDescriptor(square)));
    return out;
  }
}

interface RecognitionGraphs {
  faceNet: NativeGraph;
  resNet: NativeGraph;
}

/**
 * The same networks on onnxruntime, from the files converted at install (write-networks.ts) from
 * those the packages ship (the TFLite flatbuffer, face-api's weights). Same outputs as on WASM to
 * float rounding (tested), several times faster (docs/face-engine.md).
 */
class NativeDescriptorNets implements DescriptorNets {
  readonly runtime = 'native';
  readonly fallbackReason = null;
  private readonly faceNetInput = new Float32Array(MOBILEFACENET_BATCH_VALUES);
  private resNetInput = new Float32Array(4 * RESNET_INPUT * RESNET_INPUT * 3);
  constructor(
    private readonly oneThread: RecognitionGraphs,
    /** The same graphs on two threads, run while another worker of the pool is idle. */
    private readonly borrowing: { graphs: RecognitionGraphs; idle: IdleWorkers } | null,
  ) {}

  get borrowsIdleCores(): boolean {
    return this.borrowing !== null;
  }

  /**
   * Two threads while a core is idle: the two networks are about half of a request's time on a
   * station serving one operator, and their convolutions split well (docs/face-engine.md, "An idle core lent").
   */
  private graphs(): RecognitionGraphs {
    return this.borrowing && this.borrowing.idle.get() > 0 ? this.borrowing.graphs : this.oneThread;
  }

  async embedPair(a: Uint8Array, b: Uint8Array): Promise<[Float32Array, Float32Array]> {
    // The run is synchronous, so one input buffer serves every pair (no garbage per request).
    return splitEmbeddings(this.graphs().faceNet.run(mobileFaceNetInput(a, b, this.faceNetInput), [2, 112, 112, 3])[0]!.data);
  }

  async faceApiDescriptors(squares: readonly tf.Tensor3D[]): Promise<Float32Array[]> {
    const size = RESNET_INPUT * RESNET_INPUT * 3;
    // Kept across requests, as MobileFaceNet's input is (the run is synchronous); grown for a larger batch.
    if (this.resNetInput.length < squares.length * size) this.resNetInput = new Float32Array(squares.length * size);
    const batch = this.resNetInput.subarray(0, squares.length * size);
    squares.forEach((square, i) => {
      // face-api's toBatchTensor: the square crop resized to 150x150 (bilinear, no corner alignment).
      const resized = tf.tidy(() =>
        square.shape[0] === RESNET_INPUT
          ? tf.cast(square, 'float32')
          : tf.image.resizeBilinear(square, [RESNET_INPUT, RESNET_INPUT], false, false),
      );
      try {
        batch.set(tensorValues(resized), i * size);
      } finally {
        resized.dispose();
      }
    });
    const out = this.graphs().resNet.run(batch, [squares.length, RESNET_INPUT, RESNET_INPUT, 3])[0]!.data;
    const dim = out.length / squares.length;
    return squares.map((_, i) => out.slice(i * dim, (i + 1) * dim));
  }

  static load(modelsDir: string, idle: IdleWorkers | null): NativeDescriptorNets {
    const faceNet = readNetworkFile(modelsDir, 'mobilefacenet');
    const resNet = readNetworkFile(modelsDir, 'faceapi-resnet');
    const graphs = (threads: 1 | 2): RecognitionGraphs => ({
      faceNet: NativeGraph.create(faceNet, threads),
      resNet: NativeGraph.create(resNet, threads),
    });
    return new NativeDescriptorNets(graphs(1), idle ? { graphs: graphs(2), idle } : null);
  }
}

/**
 * The recognition networks on the runtime asked for. `auto` takes onnxruntime where its binary
 * loads and falls back to WASM otherwise (logged by the worker): the descriptors are the same.
 */
export async function loadDescriptorNets(
  setting: NetworkRuntimeSetting,
  modelsDir: string,
  expo: MobileFaceNetTflite,
  faceapi: FaceApi,
  /** The pool's idle workers, whose cores the networks may borrow; null: never. */
  idle: IdleWorkers | null = null,
): Promise<DescriptorNets> {
  if (setting === 'wasm') return new WasmDescriptorNets(expo, faceapi, null);
  const runtime = onnxRuntime();
  if ('error' in runtime) {
    if (setting === 'native') throw new Error(`onnxruntime-node no cargó: ${runtime.error}`);
    return new WasmDescriptorNets(expo, faceapi, runtime.error);
  }
  try {
    return NativeDescriptorNets.load(modelsDir, idle);
  } catch (error) {
    if (setting === 'native') throw error;
    return new WasmDescriptorNets(expo, faceapi, (error as Error).message);
  }
}
