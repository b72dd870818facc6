import type { OnnxGraph, OnnxInitializer, OnnxNode } from '../../onnx/onnx-writer.js';
import type { TfliteModel, TfliteOperator, TfliteTensor } from '../tflite/model.js';
import { matchPrelu, tensorUses } from '../tflite/prelu-pattern.js';

/**
 * A float32 TFLite convolutional network (MobileFaceNet's ops: convolutions, depthwise
 * convolutions, PReLU written out as element-wise ops, residual adds, a final flatten) as an ONNX
 * graph with the same input (NHWC, any batch) and output. Activations run NCHW inside: the input is
 * transposed once, weights are laid out for ONNX here. Any other op is refused, never approximated.
 */
export function tfliteToOnnx(model: TfliteModel): OnnxGraph {
  const T = model.tensors;
  const nodes: OnnxNode[] = [];
  const initializers: OnnxInitializer[] = [];
  const named = new Set<string>();
  const name = (t: number) => `t${t}`;
  const isConstant = (t: number) => T[t]?.data != null;
  const addInit = (init: OnnxInitializer) => {
    if (!named.has(init.name)) initializers.push(init);
    named.add(init.name);
    return init.name;
  };
  // A constant operand of an element-wise op broadcasts over channels-last: [C] becomes [C, 1, 1].
  const operand = (t: number, scale = 1) => {
    if (!isConstant(t)) return name(t);
    const v = floats(T[t]!).map((x) => x * scale);
    return addInit({ name: `${name(t)}_x${scale}`, dims: v.length > 1 ? [v.length, 1, 1] : [], values: v });
  };

  const [input] = model.inputs;
  const [output] = model.outputs;
  if (model.inputs.length !== 1 || model.outputs.length !== 1) throw new Error('TFLite→ONNX: one input and one output only');
  const inShape = T[input!]!.shape;
  nodes.push({ op: 'Transpose', inputs: ['input'], outputs: [name(input!)], attributes: { perm: [0, 3, 1, 2] } });

  const ops = model.operators;
  const uses = tensorUses(ops, model);
  for (let i = 0; i < ops.length; i++) {
    const prelu = matchPrelu(ops, i, isConstant, uses);
    if (prelu) {
      nodes.push({ op: 'PRelu', inputs: [name(prelu.x), operand(prelu.alpha, 2)], outputs: [name(prelu.out)] });
      i += 4;
      continue;
    }
    const op = ops[i]!;
    const out = name(op.outputs[0]!);
    switch (op.op) {
      case 'CONV_2D':
      case 'DEPTHWISE_CONV_2D':
        nodes.push(...convolution(op, T, addInit, name));
        break;
      case 'ADD':
      case 'SUB':
      case 'MUL':
        if ((op.options?.int8(0) ?? 0) !== 0) throw new Error(`TFLite→ONNX: ${op.op} with a fused activation`);
        nodes.push({
          op: { ADD: 'Add', SUB: 'Sub', MUL: 'Mul' }[op.op],
          inputs: [operand(op.inputs[0]!), operand(op.inputs[1]!)],
          outputs: [out],
        });
        break;
      case 'RELU':
        nodes.push({ op: 'Relu', inputs: [name(op.inputs[0]!)], outputs: [out] });
        break;
      case 'RESHAPE': {
        // Only the final flatten of a 1x1 map, where NCHW and NHWC orders agree.
        const from = T[op.inputs[0]!]!.shape;
        const to = T[op.outputs[0]!]!.shape;
        if (from.length !== 4 || from[1] !== 1 || from[2] !== 1 || to.length !== 2)
          throw new Error('TFLite→ONNX: RESHAPE other than a 1x1 flatten');
        const shape = addInit({ name: `${out}_shape`, dims: [2], values: [-1, to[1]!] });
        nodes.push({ op: 'Reshape', inputs: [name(op.inputs[0]!), shape], outputs: [out] });
        break;
      }
      default:
        throw new Error(`TFLite→ONNX: op ${op.op} not supported`);
    }
  }
  nodes.push({ op: 'Identity', inputs: [name(output!)], outputs: ['output'] });
  return {
    nodes,
    initializers,
    inputs: [{ name: 'input', dims: ['batch', ...inShape.slice(1)] }],
    outputs: [{ name: 'output', dims: ['batch', ...T[output!]!.shape.slice(1)] }],
  };
}

function floats(t: TfliteTensor): Float32Array {
  if (t.type !== 'float32' || !t.data) throw new Error(`TFLite→ONNX: tensor ${t.name} is not a float32 constant`);
  return new Float32Array(t.data.buffer.slice(t.data.byteOffset, t.data.byteOffset + t.data.byteLength));
}

/** schema.fbs Conv2DOptions / DepthwiseConv2DOptions: padding, strides, activation, dilations. */
function convolution(
  op: TfliteOperator,
  T: TfliteTensor[],
  addInit: (i: OnnxInitializer) => string,
  name: (t: number) => string,
): OnnxNode[] {
  const depthwise = op.op === 'DEPTHWISE_CONV_2D';
  const o = op.options;
  const activation = o?.int8(depthwise ? 4 : 3) ?? 0;
  const dilation = [o?.int32(depthwise ? 6 : 5, 1) ?? 1, o?.int32(depthwise ? 5 : 4, 1) ?? 1];
  if (activation !== 0 && activation !== 1) throw new Error(`TFLite→ONNX: fused activation ${activation}`);
  const w = T[op.inputs[1]!]!;
  const [a, kh, kw, b] = w.shape as [number, number, number, number];
  const src = floats(w);
  const weights = new Float32Array(src.length);
  let dims: number[];
  if (depthwise) {
    // [1, h, w, channels] -> [channels, 1, h, w], one group per channel (multiplier 1).
    if (a !== 1 || T[op.inputs[0]!]!.shape[3] !== b) throw new Error('TFLite→ONNX: depthwise multiplier other than 1');
    dims = [b, 1, kh, kw];
    for (let y = 0; y < kh; y++)
      for (let x = 0; x < kw; x++) for (let c = 0; c < b; c++) weights[(c * kh + y) * kw + x] = src[(y * kw + x) * b + c]!;
  } else {
    // [out, h, w, in] -> [out, in, h, w].
    dims = [a, b, kh, kw];
    for (let oc = 0; oc < a; oc++)
      for (let y = 0; y < kh; y++)
        for (let x = 0; x < kw; x++)
          for (let ic = 0; ic < b; ic++) weights[((oc * b + ic) * kh + y) * kw + x] = src[((oc * kh + y) * kw + x) * b + ic]!;
  }
  const inputs = [name(op.inputs[0]!), addInit({ name: `${name(op.inputs[1]!)}_oihw`, dims, values: weights })];
  if ((op.inputs[2] ?? -1) >= 0) {
    const bias = T[op.inputs[2]!]!;
    inputs.push(addInit({ name: name(op.inputs[2]!), dims: [bias.shape[0]!], values: floats(bias) }));
  }
  const valid = o?.int8(0) === 1;
  const conv = name(op.outputs[0]!) + (activation ? '_pre' : '');
  const nodes: OnnxNode[] = [
    {
      op: 'Conv',
      inputs,
      outputs: [conv],
      attributes: {
        kernel_shape: [kh, kw],
        strides: [o?.int32(2, 1) ?? 1, o?.int32(1, 1) ?? 1],
        dilations: dilation,
        group: depthwise ? b : 1,
        // TensorFlow's SAME puts the odd padding pixel after: ONNX's SAME_UPPER.
        ...(valid ? { pads: [0, 0, 0, 0] } : { auto_pad: 'SAME_UPPER' }),
      },
    },
  ];
  if (activation) nodes.push({ op: 'Relu', inputs: [conv], outputs: [name(op.outputs[0]!)] });
  return nodes;
}
