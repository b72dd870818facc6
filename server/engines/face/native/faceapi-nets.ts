import { OnnxGraphBuilder, onnxFilter } from '../../onnx/graph-builder.js';
import type { OnnxGraph } from '../../onnx/onnx-writer.js';
import { NativeGraph } from '../../onnx/onnx-session.js';
import { tf, type FaceApi } from '../worker/model-loader.js';
import { weightOfParams, type WeightOf } from './faceapi-resnet-onnx.js';
import { tensorValues } from './tensor-values.js';

const INPUT = 112;
const MEAN_RGB = [122.782, 117.001, 104.298];
const SAME = { auto_pad: 'SAME_UPPER' };

/**
 * The layers face-api's 112-pixel networks share: the input normalisation of their feature
 * extractors (minus the mean, over 255, from NHWC pixels), convolutions with a bias and SAME
 * padding, separable convolutions (depthwise then pointwise, plus a bias) and dense layers.
 */
function faceApiLayers(weight: WeightOf) {
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
  const conv = (x: string, prefix: string, stride: number) => {
    const k = weight(`${prefix}/filters`).shape;
    return g.op('Conv', [x, filter(`${prefix}/filters`, false), bias(`${prefix}/bias`)], {
      kernel_shape: [k[0]!, k[1]!],
      strides: [stride, stride],
      ...SAME,
    });
  };
  const separable = (x: string, prefix: string, stride: number) => {
    const channels = weight(`${prefix}/depthwise_filter`).shape[2]!;
    const depthwise = g.op('Conv', [x, filter(`${prefix}/depthwise_filter`, true)], {
      kernel_shape: [3, 3],
      strides: [stride, stride],
      group: channels,
      ...SAME,
    });
    return g.op('Conv', [depthwise, filter(`${prefix}/pointwise_filter`, false), bias(`${prefix}/bias`)], {
      kernel_shape: [1, 1],
    });
  };
  const dense = (x: string, prefix: string) => {
    const w = weight(`${prefix}/weights`);
    return g.op('Add', [g.op('MatMul', [x, g.constant('fc', w.shape, w.data)]), bias(`${prefix}/bias`)]);
  };
  // A 7x7 map averaged to one value per channel, as a [batch, channels] matrix.
  const pooled = (x: string, channels: number) =>
    g.op('Reshape', [
      g.op('AveragePool', [x], { kernel_shape: [7, 7], strides: [2, 2], pads: [0, 0, 0, 0] }),
      g.constant('shape', [2], [-1, channels]),
    ]);
  const nchw = g.op('Transpose', ['input'], { perm: [0, 3, 1, 2] });
  const mean = g.constant('mean', [3, 1, 1], Float32Array.from(MEAN_RGB));
  const input = g.op('Div', [g.op('Sub', [nchw, mean]), g.constant('range', [], Float32Array.of(255))]);
  return { g, conv, separable, dense, pooled, input };
}

/**
 * face-api's FaceLandmark68Net or FaceExpressionNet (one feature extractor, each its own fully
 * connected layer) as an ONNX graph, as its FaceFeatureExtractor.forwardInput and runNet compute
 * it: four dense blocks (the first opens with a plain convolution, the rest with a separable one,
 * each at stride 2), a 7x7 average pool and the fully connected layer. Input: NHWC float pixels
 * 0-255 at 112x112 (toBatchTensor's work), any batch; output: runNet's values (136 points' or 7
 * expressions' logits).
 */
export function faceApiDenseNetToOnnx(weight: WeightOf): OnnxGraph {
  const { g, conv, separable, dense, pooled, input } = faceApiLayers(weight);
  const denseBlock = (x: string, prefix: string, first: boolean) => {
    const opened = first ? conv(x, `${prefix}/conv0`, 2) : separable(x, `${prefix}/conv0`, 2);
    const n = g.op('Relu', [opened]);
    const s = separable(n, `${prefix}/conv1`, 1);
    const i = separable(g.op('Relu', [g.op('Add', [n, s])]), `${prefix}/conv2`, 1);
    const m = separable(g.op('Relu', [g.op('Add', [n, g.op('Add', [s, i])])]), `${prefix}/conv3`, 1);
    return g.op('Relu', [g.op('Add', [n, g.op('Add', [s, g.op('Add', [i, m])])])]);
  };
  let x = denseBlock(input, 'dense0', true);
  for (const block of ['dense1', 'dense2', 'dense3']) x = denseBlock(x, block, false);
  const fc = weight('fc/weights').shape;
  g.nodes.push({ op: 'Identity', inputs: [dense(pooled(x, fc[0]!), 'fc')], outputs: ['output'] });
  return {
    nodes: g.nodes,
    initializers: g.initializers,
    inputs: [{ name: 'input', dims: ['batch', INPUT, INPUT, 3] }],
    outputs: [{ name: 'output', dims: ['batch', fc[1]!] }],
  };
}

/**
 * face-api's AgeGenderNet as an ONNX graph, as its TinyXception (two middle blocks) and runNet
 * compute it: the entry convolution at stride 2; reduction blocks of two separable convolutions,
 * a 3x3 max pool at stride 2 and a strided 1x1 expansion of the block's input added (the first
 * block without its leading ReLU); two residual blocks of three separable convolutions; a last
 * separable convolution; a 7x7 average pool and the age and gender layers. Input as the landmark
 * network's; outputs: `age` [batch] and the two gender logits [batch, 2].
 */
export function faceApiAgeGenderToOnnx(weight: WeightOf): OnnxGraph {
  const { g, conv, separable, dense, pooled, input } = faceApiLayers(weight);
  const reduction = (x: string, prefix: string, leadingRelu: boolean) => {
    let r = separable(leadingRelu ? g.op('Relu', [x]) : x, `${prefix}/separable_conv0`, 1);
    r = separable(g.op('Relu', [r]), `${prefix}/separable_conv1`, 1);
    r = g.op('MaxPool', [r], { kernel_shape: [3, 3], strides: [2, 2], ...SAME });
    return g.op('Add', [r, conv(x, `${prefix}/expansion_conv`, 2)]);
  };
  const residual = (x: string, prefix: string) => {
    let r = x;
    for (const k of [0, 1, 2]) r = separable(g.op('Relu', [r]), `${prefix}/separable_conv${k}`, 1);
    return g.op('Add', [r, x]);
  };
  let x = g.op('Relu', [conv(input, 'entry_flow/conv_in', 2)]);
  x = reduction(x, 'entry_flow/reduction_block_0', false);
  x = reduction(x, 'entry_flow/reduction_block_1', true);
  for (const k of [0, 1]) x = residual(x, `middle_flow/main_block_${k}`);
  x = reduction(x, 'exit_flow/reduction_block', true);
  x = g.op('Relu', [separable(x, 'exit_flow/separable_conv', 1)]);
  const features = pooled(x, weight('fc/age/weights').shape[0]!);
  g.nodes.push({ op: 'Reshape', inputs: [dense(features, 'fc/age'), g.constant('shape', [1], [-1])], outputs: ['age'] });
  g.nodes.push({ op: 'Identity', inputs: [dense(features, 'fc/gender')], outputs: ['gender'] });
  return {
    nodes: g.nodes,
    initializers: g.initializers,
    inputs: [{ name: 'input', dims: ['batch', INPUT, INPUT, 3] }],
    outputs: [
      { name: 'age', dims: ['batch'] },
      { name: 'gender', dims: ['batch', 2] },
    ],
  };
}

interface NetInputLike {
  toBatchTensor(size: number, center: boolean): tf.Tensor4D;
}

interface FaceApiNet<Out> {
  faceFeatureExtractor: { getParamList(): { path: string; tensor: tf.Tensor }[] };
  getParamList(): { path: string; tensor: tf.Tensor }[];
  runNet(input: NetInputLike | tf.Tensor4D): Out;
}

/** The weights of one of face-api's 112-pixel networks, its feature extractor's with its own. */
export function faceApiNetWeights(net: unknown): WeightOf {
  const n = net as FaceApiNet<unknown>;
  return weightOfParams([...n.faceFeatureExtractor.getParamList(), ...n.getParamList()]);
}

/**
 * One of face-api's 112-pixel networks on onnxruntime, from its converted file; the function
 * returned replaces its runNet (called inline, inside a tidy, by detectLandmarks and
 * predictAgeAndGender) with a synchronous native run on the same 112x112 batch, so face-api's own
 * input squaring and output handling stay as they are.
 */
function nativeRunNet<Out>(net: FaceApiNet<Out>, onnx: Uint8Array, wrap: (outputs: tf.Tensor[]) => Out) {
  const session = NativeGraph.create(onnx);
  return () => {
    const onWasm = net.runNet.bind(net);
    net.runNet = (input) => {
      // A tensor here is already the feature extractor's output: only face-api's own callers pass one.
      if (input instanceof tf.Tensor) return onWasm(input);
      const batch = tf.tidy(() => tf.cast(input.toBatchTensor(INPUT, true), 'float32'));
      try {
        return wrap(session.run(tensorValues(batch), batch.shape).map((o) => tf.tensor(o.data, o.dims, 'float32')));
      } finally {
        batch.dispose();
      }
    };
  };
}

/**
 * face-api's 68-point landmark, age and gender, and expression networks on onnxruntime, from their
 * converted files: every session is created (and may fail) before the function returned replaces anything.
 */
export function faceApiNetsOnNative(
  faceapi: FaceApi,
  onnxOf: (name: 'faceapi-landmarks68' | 'faceapi-age-gender' | 'faceapi-expression') => Uint8Array,
): () => void {
  const landmarks = faceapi.nets.faceLandmark68Net as unknown as FaceApiNet<tf.Tensor2D>;
  const ageGender = faceapi.nets.ageGenderNet as unknown as FaceApiNet<{ age: tf.Tensor1D; gender: tf.Tensor2D }>;
  const expression = faceapi.nets.faceExpressionNet as unknown as FaceApiNet<tf.Tensor2D>;
  const installs = [
    nativeRunNet(landmarks, onnxOf('faceapi-landmarks68'), ([out]) => out as tf.Tensor2D),
    nativeRunNet(expression, onnxOf('faceapi-expression'), ([out]) => out as tf.Tensor2D),
    nativeRunNet(ageGender, onnxOf('faceapi-age-gender'), ([age, gender]) => ({
      age: age as tf.Tensor1D,
      gender: gender as tf.Tensor2D,
    })),
  ];
  return () => installs.forEach((install) => install());
}
