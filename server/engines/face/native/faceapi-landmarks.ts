import { OnnxGraphBuilder, onnxFilter } from '../../onnx/graph-builder.js';
import { encodeOnnxModel, type OnnxGraph } from '../../onnx/onnx-writer.js';
import { SyncNativeGraph } from '../../onnx/onnx-session.js';
import { tf, type FaceApi } from '../worker/model-loader.js';
import type { WeightOf } from './faceapi-resnet-onnx.js';

const INPUT = 112;
const MEAN_RGB = [122.782, 117.001, 104.298];

/**
 * face-api's FaceLandmark68Net as an ONNX graph, as its FaceFeatureExtractor.forwardInput and
 * runNet compute it: mean and 255 normalisation, four dense blocks (the first opens with a plain
 * convolution, the rest with a separable one, each at stride 2; every separable convolution is
 * depthwise then pointwise with SAME padding, plus a bias), a 7x7 average pool and the fully
 * connected layer. Input: NHWC float pixels 0-255 at 112x112 (toBatchTensor's work), any batch;
 * output: the 136 values runNet gives.
 */
export function faceApiLandmarksToOnnx(weight: WeightOf): OnnxGraph {
  const g = new OnnxGraphBuilder();
  const filter = (path: string, depthwise: boolean) => {
    const w = weight(path);
    const f = onnxFilter(w.data, w.shape, depthwise);
    return g.constant('w', f.dims, f.values);
  };
  const bias = (path: string) => {
    const b = weight(path).data;
    return g.constant('b', [b.length], b);
  };
  const same = { auto_pad: 'SAME_UPPER' };
  const separable = (x: string, prefix: string, stride: number) => {
    const channels = weight(`${prefix}/depthwise_filter`).shape[2]!;
    const depthwise = g.op('Conv', [x, filter(`${prefix}/depthwise_filter`, true)], {
      kernel_shape: [3, 3],
      strides: [stride, stride],
      group: channels,
      ...same,
    });
    return g.op('Conv', [depthwise, filter(`${prefix}/pointwise_filter`, false), bias(`${prefix}/bias`)], {
      kernel_shape: [1, 1],
    });
  };
  const denseBlock = (x: string, prefix: string, first: boolean) => {
    const opened = first
      ? g.op('Conv', [x, filter(`${prefix}/conv0/filters`, false), bias(`${prefix}/conv0/bias`)], {
          kernel_shape: [3, 3],
          strides: [2, 2],
          ...same,
        })
      : separable(x, `${prefix}/conv0`, 2);
    const n = g.op('Relu', [opened]);
    const s = separable(n, `${prefix}/conv1`, 1);
    const i = separable(g.op('Relu', [g.op('Add', [n, s])]), `${prefix}/conv2`, 1);
    const m = separable(g.op('Relu', [g.op('Add', [n, g.op('Add', [s, i])])]), `${prefix}/conv3`, 1);
    return g.op('Relu', [g.op('Add', [n, g.op('Add', [s, g.op('Add', [i, m])])])]);
  };

  const nchw = g.op('Transpose', ['input'], { perm: [0, 3, 1, 2] });
  let x = g.op('Div', [
    g.op('Sub', [nchw, g.constant('mean', [3, 1, 1], Float32Array.from(MEAN_RGB))]),
    g.constant('range', [], Float32Array.of(255)),
  ]);
  x = denseBlock(x, 'dense0', true);
  for (const block of ['dense1', 'dense2', 'dense3']) x = denseBlock(x, block, false);
  const pooled = g.op('AveragePool', [x], { kernel_shape: [7, 7], strides: [2, 2], pads: [0, 0, 0, 0] });
  const fc = weight('fc/weights');
  const flat = g.op('Reshape', [pooled, g.constant('shape', [2], [-1, fc.shape[0]!])]);
  g.nodes.push({
    op: 'Add',
    inputs: [g.op('MatMul', [flat, g.constant('fc', fc.shape, fc.data)]), bias('fc/bias')],
    outputs: ['output'],
  });
  return {
    nodes: g.nodes,
    initializers: g.initializers,
    inputs: [{ name: 'input', dims: ['batch', INPUT, INPUT, 3] }],
    outputs: [{ name: 'output', dims: ['batch', fc.shape[1]!] }],
  };
}

interface NetInputLike {
  toBatchTensor(size: number, center: boolean): tf.Tensor4D;
}

/**
 * Runs face-api's 68-point landmark network on onnxruntime: its runNet (called inline, inside a
 * tidy, by detectLandmarks) becomes a synchronous native run on the same 112x112 batch, so
 * face-api's own input squaring and output scaling stay as they are.
 */
export function runFaceApiLandmarksNatively(faceapi: FaceApi): void {
  const net = faceapi.nets.faceLandmark68Net as unknown as {
    faceFeatureExtractor: { getParamList(): { path: string; tensor: tf.Tensor }[] };
    getParamList(): { path: string; tensor: tf.Tensor }[];
    runNet(input: NetInputLike | tf.Tensor4D): tf.Tensor2D;
  };
  const params = new Map([...net.faceFeatureExtractor.getParamList(), ...net.getParamList()].map((p) => [p.path, p.tensor]));
  const session = SyncNativeGraph.create(
    encodeOnnxModel(
      faceApiLandmarksToOnnx((path) => {
        const t = params.get(path);
        if (!t) throw new Error(`face-api: falta el peso ${path}`);
        return { shape: t.shape, data: t.dataSync() as Float32Array };
      }),
    ),
  );
  const onWasm = net.runNet.bind(net);
  net.runNet = (input) => {
    // A tensor here is already the feature extractor's output: only face-api's own callers pass one.
    if (input instanceof tf.Tensor) return onWasm(input);
    const batch = tf.tidy(() => tf.cast(input.toBatchTensor(INPUT, true), 'float32'));
    try {
      const [out] = session.run(batch.dataSync() as Float32Array, batch.shape);
      return tf.tensor2d(out!.data, [out!.dims[0]!, out!.dims[1]!]);
    } finally {
      batch.dispose();
    }
  };
}
