import { encodeOnnxModel } from '../../onnx/onnx-writer.js';
import { NativeGraph } from '../../onnx/onnx-session.js';
import { tf } from '../worker/model-loader.js';
import { tensorValues } from './tensor-values.js';
import { tfjsGraphToOnnx, type TfGraphNode } from './tfjs-graph-onnx.js';

/**
 * Human's networks: the ones that find a face and place its mesh and irises (most of a frame's
 * detection time), and its emotion, antispoof and liveness networks.
 */
export const NATIVE_HUMAN_GRAPHS = ['blazeface', 'facemesh', 'iris', 'emotion', 'antispoof', 'liveness'] as const;

type Inputs = tf.Tensor | tf.Tensor[] | Record<string, tf.Tensor>;

/** What this module reads and replaces of a loaded tfjs-converter GraphModel. */
interface LoadedGraphModel {
  artifacts?: { modelTopology?: { node?: TfGraphNode[] } };
  weights: Record<string, tf.Tensor[]>;
  outputNodes: string[];
  signature?: { outputs?: Record<string, { name?: string }> };
  execute(inputs: Inputs, outputs?: string | string[]): tf.Tensor | tf.Tensor[];
  executeAsync(inputs: Inputs, outputs?: string | string[]): Promise<tf.Tensor | tf.Tensor[]>;
  predict(inputs: Inputs): tf.Tensor | tf.Tensor[];
}

/**
 * Human's networks on onnxruntime in place of tfjs's WASM kernels, each graph built from the loaded
 * model's own topology and weights. Every graph is built (and may fail) before anything changes;
 * the function returned then replaces each GraphModel's `execute` (which Human calls inline) with
 * a synchronous native run. Human's pre- and post-processing (anchors, crops, rotation, non-max
 * suppression) is untouched.
 */
export function humanGraphsOnNative(models: Record<string, unknown>): () => void {
  const installs = NATIVE_HUMAN_GRAPHS.map((key) => {
    const model = models[key] as LoadedGraphModel | null | undefined;
    if (!model) throw new Error(`Human: el modelo ${key} no está cargado`);
    return nativeExecution(model, key);
  });
  return () => installs.forEach((install) => install());
}

function nativeExecution(model: LoadedGraphModel, key: string): () => void {
  const topology = model.artifacts?.modelTopology?.node;
  if (!topology) throw new Error(`Human: ${key} no conserva su topología`);
  // tfjs names an output by its signature key where the model has one, by node otherwise.
  const nodeOf = (ref: string) => (model.signature?.outputs?.[ref]?.name ?? ref).replace(/:0$/, '');
  const order = model.outputNodes.map(nodeOf);
  const graph = tfjsGraphToOnnx(
    topology,
    (name) => {
      const t = model.weights[name]?.[0];
      return t ? { shape: t.shape, data: t.dataSync() as Float32Array | Int32Array } : undefined;
    },
    order,
  );
  const session = NativeGraph.create(encodeOnnxModel(graph));

  const execute = (inputs: Inputs, outputs?: string | string[]): tf.Tensor | tf.Tensor[] => {
    const x = inputs instanceof tf.Tensor ? inputs : Object.values(inputs)[0];
    if (!x || (!(inputs instanceof tf.Tensor) && Object.values(inputs).length !== 1))
      throw new Error(`Human: ${key} recibe una sola entrada`);
    const results = session.run(tensorValues(x), x.shape);
    const wanted = outputs === undefined ? order : (Array.isArray(outputs) ? outputs : [outputs]).map(nodeOf);
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
