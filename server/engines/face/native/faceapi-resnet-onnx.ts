import { OnnxGraphBuilder } from '../../onnx/graph-builder.js';
import type { OnnxGraph } from '../../onnx/onnx-writer.js';

/** A weight of face-api's network by its path (`conv32_1/conv1/conv/filters`), dequantized. */
export type WeightOf = (path: string) => { shape: number[]; data: Float32Array };

/** The weights of a loaded face-api network (its getParamList), by path; a missing one is an error. */
export function weightOfParams(params: { path: string; tensor: { shape: number[]; dataSync(): unknown } }[]): WeightOf {
  const byPath = new Map(params.map((p) => [p.path, p.tensor]));
  return (path) => {
    const t = byPath.get(path);
    if (!t) throw new Error(`face-api: falta el peso ${path}`);
    return { shape: t.shape, data: t.dataSync() as Float32Array };
  };
}

/** face-api's input: 150x150 RGB, minus this mean, divided by 255 (FaceRecognitionNet.forwardInput). */
export const RESNET_INPUT = 150;
const MEAN_RGB = [122.782, 117.001, 104.298];

/**
 * face-api's FaceRecognitionNet (dlib's ResNet-34 descriptor, 128-d) as an ONNX graph, layer for
 * layer as its forwardInput runs it: each convolution's bias and the scale layer after it folded
 * into the convolution; residualDown's average-pooled shortcut padded with zero channels, its main
 * path with a zero row and column where the strided convolution came out one smaller. Input:
 * NHWC float pixels 0-255 already resized to 150x150 (toBatchTensor's work), any batch.
 */
export function faceApiResNetToOnnx(weight: WeightOf): OnnxGraph {
  const g = new OnnxGraphBuilder();
  const init = g.constant.bind(g);
  const node = g.op.bind(g);

  interface Map4 {
    name: string;
    channels: number;
    side: number;
  }
  const convLayer = (x: Map4, prefix: string, stride: 1 | 2, relu: boolean, valid: boolean): Map4 => {
    const f = weight(`${prefix}/conv/filters`);
    const [kh, kw, ci, co] = f.shape as [number, number, number, number];
    const bias = weight(`${prefix}/conv/bias`).data;
    const scale = weight(`${prefix}/scale/weights`).data;
    const shift = weight(`${prefix}/scale/biases`).data;
    // conv(x) + bias, then x * scale + shift: one convolution with scaled filters.
    const w = new Float32Array(co * ci * kh * kw);
    for (let y = 0; y < kh; y++)
      for (let xx = 0; xx < kw; xx++)
        for (let i = 0; i < ci; i++)
          for (let o = 0; o < co; o++)
            w[((o * ci + i) * kh + y) * kw + xx] = f.data[((y * kw + xx) * ci + i) * co + o]! * scale[o]!;
    const b = new Float32Array(co).map((_, o) => bias[o]! * scale[o]! + shift[o]!);
    // tfjs 'same' at stride 1 with odd kernels pads k / 2 (rounded down) on each side.
    const pads = valid ? [0, 0, 0, 0] : [kh >> 1, kw >> 1, kh >> 1, kw >> 1];
    const conv = node('Conv', [x.name, init('w', [co, ci, kh, kw], w), init('b', [co], b)], {
      kernel_shape: [kh, kw],
      strides: [stride, stride],
      pads,
    });
    const side = valid ? Math.floor((x.side - kh) / stride) + 1 : x.side;
    return { name: relu ? node('Relu', [conv]) : conv, channels: co, side };
  };
  const residual = (x: Map4, prefix: string): Map4 => {
    const a = convLayer(x, `${prefix}/conv1`, 1, true, false);
    const b = convLayer(a, `${prefix}/conv2`, 1, false, false);
    return { ...b, name: node('Relu', [node('Add', [b.name, x.name])]) };
  };
  const residualDown = (x: Map4, prefix: string): Map4 => {
    const a = convLayer(x, `${prefix}/conv1`, 2, true, true);
    let b = convLayer(a, `${prefix}/conv2`, 1, false, false);
    const pooledSide = Math.floor(x.side / 2);
    if (b.side !== pooledSide) {
      const d = pooledSide - b.side;
      b = { ...b, name: node('Pad', [b.name, init('pads', [8], [0, 0, 0, 0, 0, 0, d, d])]), side: pooledSide };
    }
    let pooled = node('AveragePool', [x.name], { kernel_shape: [2, 2], strides: [2, 2], pads: [0, 0, 0, 0] });
    if (x.channels !== b.channels)
      pooled = node('Pad', [pooled, init('pads', [8], [0, 0, 0, 0, 0, b.channels - x.channels, 0, 0])]);
    return { ...b, name: node('Relu', [node('Add', [pooled, b.name])]) };
  };

  const nchw = node('Transpose', ['input'], { perm: [0, 3, 1, 2] });
  const centred = node('Sub', [nchw, init('mean', [3, 1, 1], Float32Array.from(MEAN_RGB))]);
  const normalized = node('Div', [centred, init('range', [], Float32Array.of(255))]);
  let x = convLayer({ name: normalized, channels: 3, side: RESNET_INPUT }, 'conv32_down', 2, true, true);
  x = {
    ...x,
    name: node('MaxPool', [x.name], { kernel_shape: [3, 3], strides: [2, 2], pads: [0, 0, 0, 0] }),
    side: Math.floor((x.side - 3) / 2) + 1,
  };
  for (const k of ['conv32_1', 'conv32_2', 'conv32_3']) x = residual(x, k);
  x = residualDown(x, 'conv64_down');
  for (const k of ['conv64_1', 'conv64_2', 'conv64_3']) x = residual(x, k);
  x = residualDown(x, 'conv128_down');
  for (const k of ['conv128_1', 'conv128_2']) x = residual(x, k);
  x = residualDown(x, 'conv256_down');
  for (const k of ['conv256_1', 'conv256_2']) x = residual(x, k);
  x = residualDown(x, 'conv256_down_out');
  const flat = node('Reshape', [node('GlobalAveragePool', [x.name]), init('shape', [2], [-1, x.channels])]);
  const fc = weight('fc');
  g.nodes.push({ op: 'MatMul', inputs: [flat, init('fc', fc.shape, fc.data)], outputs: ['output'] });
  return {
    nodes: g.nodes,
    initializers: g.initializers,
    inputs: [{ name: 'input', dims: ['batch', RESNET_INPUT, RESNET_INPUT, 3] }],
    outputs: [{ name: 'output', dims: ['batch', fc.shape[1]!] }],
  };
}
