import type { OnnxGraph } from '../../onnx/onnx-writer.js';
import { NativeGraph } from '../../onnx/onnx-session.js';
import { tf } from '../worker/model-loader.js';
import { tensorValues } from './tensor-values.js';
import { HUMAN_NETWORKS, type HumanNetwork } from './network-files.js';
import { tfjsGraphToOnnx, type TfGraphNode } from './tfjs-graph-onnx.js';

/**
 * Human's networks: the ones that find a face and place its mesh and irises (most of a frame's
 * detection time), and its antispoof and liveness networks.
 */
export const NATIVE_HUMAN_GRAPHS = HUMAN_NETWORKS;

type Inputs = tf.Tensor | tf.Tensor[] | Record<string, tf.Tensor>;

/** What this module reads and replaces of a loaded tfjs-converter GraphModel. */
export interface LoadedGraphModel {
  artifacts?: { modelTopology?: { node?: TfGraphNode[] } };
  weights: Record<string, tf.Tensor[]>;
  outputNodes: string[];
  signature?: { outputs?: Record<string, { name?: string }> };
  execute(inputs: Inputs, outputs?: string | string[]): tf.Tensor | tf.Tensor[];
  executeAsync(inputs: Inputs, outputs?: string | string[]): Promise<tf.Tensor | tf.Tensor[]>;
  predict(inputs: Inputs): tf.Tensor | tf.Tensor[];
}

/**
 * One of Human's loaded graphs as an ONNX graph, built from the model's own topology and the
 * weights tfjs loaded (so the numbers are tfjs's), its outputs in the model's order. Run once, at
 * install (write-networks.ts).
 */
export function humanGraphToOnnx(model: LoadedGraphModel, key: string): OnnxGraph {
  const topology = model.artifacts?.modelTopology?.node;
  if (!topology) throw new Error(`Human: ${key} no conserva su topología`);
  return tfjsGraphToOnnx(
    topology,
    (name) => {
      const t = model.weights[name]?.[0];
      return t ? { shape: t.shape, data: t.dataSync() as Float32Array | Int32Array } : undefined;
    },
    outputOrder(model),
  );
}

/** tfjs names an output by its signature key where the model has one, by node otherwise. */
const nodeOf = (model: LoadedGraphModel, ref: string) => (model.signature?.outputs?.[ref]?.name ?? ref).replace(/:0$/, '');
const outputOrder = (model: LoadedGraphModel) => model.outputNodes.map((ref) => nodeOf(model, ref));

/**
 * Human's networks on onnxruntime in place of tfjs's WASM kernels, each from its converted file.
 * Every session is created (and may fail) before anything changes; the function returned then
 * replaces each GraphModel's `execute` (which Human calls inline) with a synchronous native run.
 * Human's pre- and post-processing (anchors, crops, rotation, non-max suppression) is untouched.
 */
export function humanGraphsOnNative(models: Record<string, unknown>, onnxOf: (key: HumanNetwork) => Uint8Array): () => void {
  const installs = NATIVE_HUMAN_GRAPHS.map((key) => nativeExecution(humanGraph(models, key), key, onnxOf(key)));
  return () => installs.forEach((install) => install());
}

/** The loaded graphs by name, as Human holds them. */
export function humanGraph(models: Record<string, unknown>, key: HumanNetwork): LoadedGraphModel {
  const model = models[key] as LoadedGraphModel | null | undefined;
  if (!model) throw new Error(`Human: el modelo ${key} no está cargado`);
  return model;
}

function nativeExecution(model: LoadedGraphModel, key: string, onnx: Uint8Array): () => void {
  const order = outputOrder(model);
  const session = NativeGraph.create(onnx);

  const execute = (inputs: Inputs, outputs?: string | string[]): tf.Tensor | tf.Tensor[] => {
    const x = inputs instanceof tf.Tensor ? inputs : Object.values(inputs)[0];
    if (!x || (!(inputs instanceof tf.Tensor) && Object.values(inputs).length !== 1))
      throw new Error(`Human: ${key} recibe una sola entrada`);
    const results = session.run(tensorValues(x), x.shape);
    const wanted =
      outputs === undefined ? order : (Array.isArray(outputs) ? outputs : [outputs]).map((ref) => nodeOf(model, ref));
    const tensors = wanted.map((name) => {
      const at = order.indexOf(name);
      if (at < 0) throw new Error(`Human: ${key} no tiene la salida ${name}`);
      return tf.tensor(results[at]!.data, results[at]!.dims, 'float32');
    });
    // GraphModel.execute's contract: one tensor for one output, an array otherwise.
    return tensors.length > 1 ? tensors : tensors[0]!;
  };
  return () => {
    model.execute = execute;
    model.predict = (inputs) => execute(inputs);
    model.executeAsync = async (inputs, outputs) => execute(inputs, outputs);
  };
}
