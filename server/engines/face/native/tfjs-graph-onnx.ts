import { OnnxGraphBuilder, onnxFilter } from '../../onnx/graph-builder.js';
import type { AttributeValue, OnnxGraph } from '../../onnx/onnx-writer.js';

/** One node of a tfjs graph model's topology (model.json's `modelTopology.node`). */
export interface TfGraphNode {
  name: string;
  op: string;
  input?: string[];
  attr?: Record<string, TfAttr>;
}

interface TfAttr {
  s?: string;
  i?: string | number;
  b?: boolean;
  list?: { i?: (string | number)[]; s?: string[] };
}

/** A constant of the loaded graph by node name: float weights, or int32 shapes and paddings. */
export type ConstantOf = (name: string) => { shape: number[]; data: Float32Array | Int32Array } | undefined;

/** Where an activation's values sit: NCHW inside the graph, or the graph's own (NHWC) order. */
interface Value {
  name: string;
  nchw: boolean;
}

const NHWC_TO_NCHW_AXIS = [0, 2, 3, 1];

/**
 * A float32 tfjs graph model built of the ops Human's face networks use (fused and depthwise
 * convolutions, PReLU, ReLU, sigmoid, adds and per-channel scales, max pooling, zero padding,
 * concatenation, reshape, global mean, fused matrix products, softmax) as an ONNX graph with the same input (NHWC) and outputs, in `outputs`'
 * order. Activations run NCHW inside; anything leaves in TensorFlow's order. Weights are read from
 * the loaded model, so the numbers are tfjs's own. Any other op or attribute is refused by name,
 * never approximated.
 */
export function tfjsGraphToOnnx(topology: TfGraphNode[], constant: ConstantOf, outputs: string[]): OnnxGraph {
  const byName = new Map(topology.map((n) => [n.name, n]));
  const g = new OnnxGraphBuilder();
  const values = new Map<string, Value>();
  const init = g.constant.bind(g);
  const emit = g.op.bind(g);
  const refuse = (node: TfGraphNode, why: string): never => {
    throw new Error(`tfjs→ONNX: ${node.op} ${node.name}: ${why}`);
  };
  const constOf = (node: TfGraphNode, ref: string) => {
    const c = constant(ref.replace(/:0$/, ''));
    if (!c) refuse(node, `${ref} is not a constant of the loaded model`);
    return c!;
  };
  const isConstant = (ref: string) => byName.get(ref.replace(/:0$/, ''))?.op === 'Const';
  const inTfOrder = (v: Value) => (v.nchw ? emit('Transpose', [v.name], { perm: [0, 2, 3, 1] }) : v.name);

  const valueOf = (ref: string): Value => {
    if (ref.startsWith('^')) throw new Error(`tfjs→ONNX: control input ${ref}`);
    const [name, index] = ref.split(':');
    if (index && index !== '0') throw new Error(`tfjs→ONNX: output ${ref} of a multi-output op`);
    const known = values.get(name!);
    if (known) return known;
    const node = byName.get(name!);
    if (!node) throw new Error(`tfjs→ONNX: unknown node ${name}`);
    const value = convert(node);
    values.set(name!, value);
    return value;
  };

  const convert = (node: TfGraphNode): Value => {
    const args = node.input ?? [];
    const attr = node.attr ?? {};
    const text = (k: string) => (attr[k]?.s ? Buffer.from(attr[k].s, 'base64').toString('utf8') : undefined);
    if (text('data_format') && text('data_format') !== 'NHWC') refuse(node, `data_format ${text('data_format')}`);
    switch (node.op) {
      case 'Placeholder':
        if (node.name !== inputNode.name) refuse(node, 'a second input');
        return { name: emit('Transpose', ['input'], { perm: [0, 3, 1, 2] }), nchw: true };
      case 'Identity':
        return valueOf(args[0]!);
      case '_FusedConv2D':
      case 'Conv2D':
      case 'DepthwiseConv2dNative':
        return { name: convolution(node, args, text), nchw: true };
      case 'Prelu': {
        const x = valueOf(args[0]!);
        const alpha = constOf(node, args[1]!);
        if (!x.nchw || alpha.data.length !== alpha.shape[alpha.shape.length - 1]) refuse(node, 'alpha other than per channel');
        return { name: emit('PRelu', [x.name, slope(alpha.data as Float32Array)]), nchw: true };
      }
      case 'Relu':
      case 'Sigmoid': {
        const x = valueOf(args[0]!);
        return { name: emit(node.op, [x.name]), nchw: x.nchw };
      }
      case 'AddV2':
      case 'Add':
      case 'Mul': {
        const op = node.op === 'Mul' ? 'Mul' : 'Add';
        const [a, b] = args.map((ref) => (isConstant(ref) ? null : valueOf(ref)));
        if (a && b) {
          if (a.nchw !== b.nchw) refuse(node, 'operands in different layouts');
          return { name: emit(op, [a.name, b.name]), nchw: a.nchw };
        }
        // An activation and a constant (a batch normalisation's scale or offset, per channel).
        const x = (a ?? b)!;
        const c = constOf(node, args[a ? 1 : 0]!);
        const perChannel = c.data.length === c.shape[c.shape.length - 1] || c.data.length === 1;
        if (!x || !perChannel) refuse(node, 'a constant other than per channel');
        const dims = c.data.length === 1 ? [] : x.nchw ? [c.data.length, 1, 1] : [c.data.length];
        const operand = init('k', dims, Float32Array.from(c.data));
        return { name: emit(op, a ? [x.name, operand] : [operand, x.name]), nchw: x.nchw };
      }
      case 'Mean': {
        // A global average pool: the mean over height and width of an NCHW map.
        const x = valueOf(args[0]!);
        const axes = Array.from(constOf(node, args[1]!).data, (a) => (a < 0 ? a + 4 : a)).sort();
        if (!x.nchw || axes.join() !== '1,2' || attr.keep_dims?.b) refuse(node, 'a mean other than over height and width');
        return { name: emit('ReduceMean', [x.name], { axes: [2, 3], keepdims: 0 }), nchw: false };
      }
      case 'Softmax': {
        const x = valueOf(args[0]!);
        if (x.nchw) refuse(node, 'softmax over a map');
        return { name: emit('Softmax', [x.name], { axis: -1 }), nchw: false };
      }
      case '_FusedMatMul': {
        const x = valueOf(args[0]!);
        const fused = fusedOps(attr);
        if (x.nchw || attr.transpose_a?.b || attr.transpose_b?.b) refuse(node, 'transposed or 4-d operands');
        if (fused[0] !== 'BiasAdd' || fused.length > 2 || (fused[1] && fused[1] !== 'Relu'))
          refuse(node, `fused ops ${fused.join(',')}`);
        const w = constOf(node, args[1]!);
        const bias = constOf(node, args[2]!).data as Float32Array;
        const product = emit('MatMul', [x.name, init('w', w.shape, w.data as Float32Array)]);
        const sum = emit('Add', [product, init('b', [bias.length], bias)]);
        return { name: fused[1] ? emit('Relu', [sum]) : sum, nchw: false };
      }
      case 'MaxPool': {
        const x = valueOf(args[0]!);
        const k = ints(attr.ksize);
        const s = ints(attr.strides);
        if (!x.nchw || k[0] !== 1 || k[3] !== 1 || s[0] !== 1 || s[3] !== 1) refuse(node, 'pooling other than spatial');
        return {
          name: emit('MaxPool', [x.name], {
            kernel_shape: [k[1]!, k[2]!],
            strides: [s[1]!, s[2]!],
            ...padding(node, text('padding')),
          }),
          nchw: true,
        };
      }
      case 'Pad': {
        const x = valueOf(args[0]!);
        const p = constOf(node, args[1]!).data;
        if (!x.nchw || p.length !== 8) refuse(node, 'padding other than of a 4-d map');
        // [[n0,n1],[h0,h1],[w0,w1],[c0,c1]] in TensorFlow's order; ONNX wants N,C,H,W begins then ends.
        const pads = [p[0]!, p[6]!, p[2]!, p[4]!, p[1]!, p[7]!, p[3]!, p[5]!];
        return { name: emit('Pad', [x.name, init('pads', [8], pads)]), nchw: true };
      }
      case 'ConcatV2': {
        const parts = args.slice(0, -1).map(valueOf);
        let axis = Number(constOf(node, args[args.length - 1]!).data[0]);
        const allNchw = parts.every((p) => p.nchw);
        if (allNchw) axis = NHWC_TO_NCHW_AXIS[axis < 0 ? axis + 4 : axis]!;
        const names = parts.map((p) => (allNchw ? p.name : inTfOrder(p)));
        return { name: emit('Concat', names, { axis }), nchw: allNchw };
      }
      case 'Reshape': {
        const x = valueOf(args[0]!);
        const shape = Array.from(constOf(node, args[1]!).data);
        return { name: emit('Reshape', [inTfOrder(x), init('shape', [shape.length], shape)]), nchw: false };
      }
      default:
        return refuse(node, 'op not supported');
    }
  };

  const convolution = (node: TfGraphNode, args: string[], text: (k: string) => string | undefined): string => {
    const attr = node.attr ?? {};
    const x = valueOf(args[0]!);
    const filter = constOf(node, args[1]!);
    const [kh, kw, ci] = filter.shape as [number, number, number, number];
    const s = ints(attr.strides);
    const d = attr.dilations ? ints(attr.dilations) : [1, 1, 1, 1];
    if (s[0] !== 1 || s[3] !== 1 || d[0] !== 1 || d[3] !== 1) refuse(node, 'stride or dilation over batch or channels');
    const depthwise = node.op === 'DepthwiseConv2dNative';
    const w = onnxFilter(filter.data, filter.shape, depthwise);
    const inputs = [x.name, init('w', w.dims, w.values)];
    let activation: string | null = null;
    if (node.op === '_FusedConv2D') {
      const fused = fusedOps(attr);
      if (fused[0] !== 'BiasAdd' || fused.length > 2) refuse(node, `fused ops ${fused.join(',')}`);
      const bias = constOf(node, args[2]!).data as Float32Array;
      inputs.push(init('b', [bias.length], bias));
      activation = fused[1] ?? null;
      if (activation && activation !== 'Relu' && activation !== 'Prelu') refuse(node, `fused activation ${activation}`);
    }
    const conv = emit('Conv', inputs, {
      kernel_shape: [kh, kw],
      strides: [s[1]!, s[2]!],
      dilations: [d[1]!, d[2]!],
      group: depthwise ? ci : 1,
      ...padding(node, text('padding')),
    });
    if (activation === 'Relu') return emit('Relu', [conv]);
    if (activation === 'Prelu') return emit('PRelu', [conv, slope(constOf(node, args[3]!).data as Float32Array)]);
    return conv;
  };

  // A per-channel slope broadcasts over NCHW as [C, 1, 1].
  const slope = (alpha: Float32Array) => init('slope', [alpha.length, 1, 1], alpha);

  const padding = (node: TfGraphNode, kind: string | undefined): Record<string, AttributeValue> => {
    // TensorFlow's SAME puts the odd padding pixel after: ONNX's SAME_UPPER.
    if (kind === 'SAME') return { auto_pad: 'SAME_UPPER' };
    if (kind === 'VALID') return { pads: [0, 0, 0, 0] };
    return refuse(node, `padding ${kind}`);
  };

  const inputs = topology.filter((n) => n.op === 'Placeholder');
  if (inputs.length !== 1) throw new Error('tfjs→ONNX: one input only');
  const inputNode = inputs[0]!;
  const inputShape = (inputNode.attr?.shape as { shape?: { dim?: { size: string }[] } } | undefined)?.shape?.dim?.map((d) =>
    Number(d.size),
  );
  if (inputShape?.length !== 4) throw new Error('tfjs→ONNX: the input is not an NHWC image batch');

  const results = outputs.map((ref, i) => {
    const name = `output${i}`;
    g.nodes.push({ op: 'Identity', inputs: [inTfOrder(valueOf(ref))], outputs: [name] });
    return name;
  });
  return {
    nodes: g.nodes,
    initializers: g.initializers,
    inputs: [{ name: 'input', dims: inputShape.map((d, i) => (i === 0 || d < 0 ? 'batch' : d)) }],
    // Output shapes are left to onnxruntime's inference: only their names are declared.
    outputs: results.map((name) => ({ name })),
  };
}

function ints(a: TfAttr | undefined): number[] {
  return (a?.list?.i ?? []).map(Number);
}

/** A fused op's list of what it fused (`BiasAdd`, then an activation), decoded. */
function fusedOps(attr: Record<string, TfAttr>): string[] {
  return (attr.fused_ops?.list?.s ?? []).map((v) => Buffer.from(v, 'base64').toString('utf8'));
}
