import * as tf from '@tensorflow/tfjs-core';
import type { FbTable } from './flatbuffer.js';
import type { TfliteModel, TfliteOperator, TfliteTensor } from './model.js';
import { matchPrelu, tensorUses } from './prelu-pattern.js';

/**
 * Runs a TFLite model's first subgraph with tfjs ops on whatever backend tfjs has (the engine's
 * WASM one). Only the float ops of MobileFaceNet are mapped: anything else is refused when the
 * model loads, not silently misread at inference.
 */
export class TfliteExecutor {
  private readonly constants = new Map<number, tf.Tensor>();
  private readonly prepared = new Map<string, tf.Tensor>();
  private readonly operators: TfliteOperator[];

  constructor(
    private readonly model: TfliteModel,
    options: { fuse?: boolean } = {},
  ) {
    for (const t of model.tensors) if (t.data) this.constants.set(t.index, constantOf(t));
    // Float16 weights are widened once here; their DEQUANTIZE ops then disappear from the graph.
    this.operators = model.operators.filter((op) => {
      if (op.op !== 'DEQUANTIZE') return true;
      const source = this.constants.get(op.inputs[0]!);
      if (!source) return true;
      this.constants.set(op.outputs[0]!, tf.cast(source, 'float32'));
      return false;
    });
    if (options.fuse !== false) this.operators = fusePrelu(this.operators, model, this.constants);
    const unknown = [...new Set(this.operators.map((o) => o.op).filter((o) => !(o in OPS)))];
    if (unknown.length) throw new Error(`TFLite ops not supported: ${unknown.join(', ')}`);
  }

  /** The ops that run, after fusion. */
  get operatorNames(): string[] {
    return this.operators.map((o) => o.op);
  }

  get inputShapes(): number[][] {
    return this.model.inputs.map((i) => this.model.tensors[i]!.shape);
  }

  outputIndex(name: string): number {
    const i = this.model.outputs.findIndex((t) => this.model.tensors[t]!.name === name);
    if (i < 0) throw new Error(`TFLite output ${name} not found`);
    return i;
  }

  /** One inference: float32 inputs in the model's (NHWC) shapes, outputs in model order. */
  async run(inputs: Float32Array[]): Promise<Float32Array[]> {
    const outputs = tf.tidy(() => {
      const values = new Map<number, tf.Tensor>(this.constants);
      this.model.inputs.forEach((index, i) => values.set(index, tf.tensor(inputs[i]!, this.model.tensors[index]!.shape)));
      for (const op of this.operators) {
        const result = OPS[op.op]!(op, (k) => this.input(values, op, k), this);
        const list = Array.isArray(result) ? result : [result];
        op.outputs.forEach((index, i) => values.set(index, list[i]!));
      }
      return this.model.outputs.map((index) => tf.cast(values.get(index)!, 'float32'));
    });
    try {
      return await Promise.all(outputs.map(async (t) => new Float32Array(await t.data())));
    } finally {
      for (const t of outputs) t.dispose();
    }
  }

  private input(values: Map<number, tf.Tensor>, op: TfliteOperator, k: number): tf.Tensor {
    const value = values.get(op.inputs[k]!);
    if (!value) throw new Error(`TFLite ${op.op}: input ${k} has no value`);
    return value;
  }

  /** A constant's integer values (shapes, axes, slice bounds). */
  ints(op: TfliteOperator, k: number): number[] {
    const c = this.constants.get(op.inputs[k]!);
    if (!c) throw new Error(`TFLite ${op.op}: input ${k} must be constant`);
    return Array.from(c.dataSync());
  }

  outputShape(op: TfliteOperator, k = 0): number[] {
    return this.model.tensors[op.outputs[k]!]!.shape;
  }

  outputType(op: TfliteOperator, k = 0): TfliteTensor['type'] {
    return this.model.tensors[op.outputs[k]!]!.type;
  }

  /** A weight in tfjs layout, converted once and kept (not disposed by the inference's tidy). */
  weight(op: TfliteOperator, k: number, convert: (t: tf.Tensor) => tf.Tensor): tf.Tensor {
    const key = `${op.inputs[k]!}:${op.op}`;
    let w = this.prepared.get(key);
    if (!w) {
      const source = this.constants.get(op.inputs[k]!);
      if (!source) throw new Error(`TFLite ${op.op}: weight ${k} must be constant`);
      w = tf.keep(convert(source));
      this.prepared.set(key, w);
    }
    return w;
  }

  dispose(): void {
    for (const t of [...this.constants.values(), ...this.prepared.values()]) t.dispose();
  }
}

type Op = (op: TfliteOperator, x: (k: number) => tf.Tensor, ex: TfliteExecutor) => tf.Tensor | tf.Tensor[];

const padding = (o: FbTable | null): 'same' | 'valid' => (o?.int8(0) === 1 ? 'valid' : 'same');

/** schema.fbs ActivationFunctionType, fused into many ops. */
function activate(t: tf.Tensor, fn: number): tf.Tensor {
  switch (fn) {
    case 0:
      return t;
    case 1:
      return tf.relu(t);
    case 2:
      return tf.clipByValue(t, -1, 1);
    case 3:
      return tf.relu6(t);
    case 4:
      return tf.tanh(t);
    default:
      throw new Error(`TFLite fused activation ${fn} not supported`);
  }
}

/**
 * A convolution's tfjs arguments from its TFLite options (fields at the given slots), with the bias
 * and the activation fused into it: one pass over the output (XNNPACK on WASM). A `+PRELU` op
 * (see fusePrelu) carries its slopes as input 3.
 */
function convArgs(
  op: TfliteOperator,
  x: (k: number) => tf.Tensor,
  activationSlot: number,
  [strideH, strideW]: [number, number],
  [dilationH, dilationW]: [number, number],
) {
  const o = op.options;
  const fn = o?.int8(activationSlot) ?? 0;
  const args = {
    x: x(0) as tf.Tensor4D,
    strides: [o?.int32(strideH, 1) ?? 1, o?.int32(strideW, 1) ?? 1] as [number, number],
    pad: padding(o),
    dataFormat: 'NHWC' as const,
    dilations: [o?.int32(dilationH, 1) ?? 1, o?.int32(dilationW, 1) ?? 1] as [number, number],
    bias: hasInput(op, 2) ? x(2) : undefined,
    ...(op.op.endsWith('+PRELU')
      ? { activation: 'prelu' as const, preluActivationWeights: x(3) }
      : { activation: FUSABLE[fn] ?? ('linear' as const) }),
  };
  return { args, fn };
}

/** An activation tfjs could not fuse runs after the convolution. */
const finish = (y: tf.Tensor, fn: number): tf.Tensor => (FUSABLE[fn] ? y : activate(y, fn));

/** TFLite activations tfjs can fuse into a convolution (the others run after it). */
const FUSABLE: Record<number, 'linear' | 'relu' | 'relu6' | undefined> = { 0: 'linear', 1: 'relu', 3: 'relu6' };

const hasInput = (op: TfliteOperator, k: number) => (op.inputs[k] ?? -1) >= 0;

const OPS: Record<string, Op> = {
  CONV_2D: (op, x, ex) => {
    // TFLite filters are [out, h, w, in]; tfjs wants [h, w, in, out].
    const filter = ex.weight(op, 1, (w) => tf.transpose(w, [1, 2, 3, 0])) as tf.Tensor4D;
    const { args, fn } = convArgs(op, x, 3, [2, 1], [5, 4]);
    return finish(tf.fused.conv2d({ ...args, filter }), fn);
  },
  DEPTHWISE_CONV_2D: (op, x, ex) => {
    const channels = x(0).shape[3]!;
    // TFLite depthwise filters are [1, h, w, in * multiplier]; tfjs wants [h, w, in, multiplier].
    const filter = ex.weight(op, 1, (w) =>
      tf.reshape(w, [w.shape[1]!, w.shape[2]!, channels, w.shape[3]! / channels]),
    ) as tf.Tensor4D;
    const { args, fn } = convArgs(op, x, 4, [2, 1], [6, 5]);
    return finish(tf.fused.depthwiseConv2d({ ...args, filter }), fn);
  },
  'CONV_2D+PRELU': (op, x, ex) => OPS.CONV_2D!(op, x, ex),
  'DEPTHWISE_CONV_2D+PRELU': (op, x, ex) => OPS.DEPTHWISE_CONV_2D!(op, x, ex),
  FULLY_CONNECTED: (op, x, ex) => {
    const weights = ex.weight(op, 1, (w) => tf.transpose(w)) as tf.Tensor2D;
    const flat = tf.reshape(x(0), [-1, weights.shape[0]]) as tf.Tensor2D;
    let y: tf.Tensor = tf.matMul(flat, weights);
    if (hasInput(op, 2)) y = tf.add(y, x(2));
    return tf.reshape(activate(y, op.options?.int8(0) ?? 0), ex.outputShape(op));
  },
  MAX_POOL_2D: (op, x) => pool(op, x(0), 'max'),
  AVERAGE_POOL_2D: (op, x) => pool(op, x(0), 'avg'),
  ADD: (op, x) => activate(tf.add(x(0), x(1)), op.options?.int8(0) ?? 0),
  SUB: (op, x) => activate(tf.sub(x(0), x(1)), op.options?.int8(0) ?? 0),
  MUL: (op, x) => activate(tf.mul(x(0), x(1)), op.options?.int8(0) ?? 0),
  SQUARED_DIFFERENCE: (_op, x) => tf.squaredDifference(x(0), x(1)),
  RELU: (_op, x) => tf.relu(x(0)),
  ABS: (_op, x) => tf.abs(x(0)),
  LEAKY_RELU: (op, x) => tf.leakyRelu(x(0), op.options?.float32(0, 0) ?? 0),
  RELU6: (_op, x) => tf.relu6(x(0)),
  LOGISTIC: (_op, x) => tf.sigmoid(x(0)),
  PRELU: (_op, x) => tf.prelu(x(0), x(1)),
  SOFTMAX: (op, x) => tf.softmax(tf.mul(x(0), op.options?.float32(0, 1) ?? 1)),
  L2_NORMALIZATION: (_op, x) => {
    const v = x(0);
    return tf.div(v, tf.sqrt(tf.maximum(tf.sum(tf.square(v), -1, true), 1e-12)));
  },
  // Static shapes: the output tensor's declared shape is the reshape's target.
  RESHAPE: (op, x, ex) => tf.reshape(x(0), ex.outputShape(op)),
  CONCATENATION: (op, x) => {
    const parts = op.inputs.map((_, k) => x(k));
    const axis = op.options?.int32(0) ?? 0;
    return activate(tf.concat(parts, axis < 0 ? axis + parts[0]!.rank : axis), op.options?.int8(1) ?? 0);
  },
  STRIDED_SLICE: (op, x, ex) => {
    const o = op.options;
    return tf.stridedSlice(
      x(0),
      ex.ints(op, 1),
      ex.ints(op, 2),
      ex.ints(op, 3),
      o?.int32(0) ?? 0,
      o?.int32(1) ?? 0,
      o?.int32(2) ?? 0,
      o?.int32(3) ?? 0,
      o?.int32(4) ?? 0,
    );
  },
  PAD: (op, x, ex) => {
    const p = ex.ints(op, 1);
    return tf.pad(
      x(0),
      Array.from({ length: p.length / 2 }, (_, i) => [p[2 * i]!, p[2 * i + 1]!] as [number, number]),
    );
  },
  NEG: (_op, x) => tf.neg(x(0)),
  EXP: (_op, x) => tf.exp(x(0)),
  DIV: (op, x) => activate(tf.div(x(0), x(1)), op.options?.int8(0) ?? 0),
  // ReducerOptions: keep_dims at slot 0.
  REDUCE_MAX: (op, x, ex) => tf.max(x(0), ex.ints(op, 1), op.options?.bool(0) ?? false),
  SUM: (op, x, ex) => tf.sum(x(0), ex.ints(op, 1), op.options?.bool(0) ?? false),
  GREATER_EQUAL: (_op, x) => tf.greaterEqual(x(0), x(1)),
  LESS: (_op, x) => tf.less(x(0), x(1)),
  CAST: (op, x, ex) => {
    const type = ex.outputType(op);
    return tf.cast(x(0), type === 'bool' ? 'bool' : type === 'float32' ? 'float32' : 'int32');
  },
};

function pool(op: TfliteOperator, input: tf.Tensor, kind: 'max' | 'avg'): tf.Tensor {
  const o = op.options;
  const size: [number, number] = [o?.int32(4, 1) ?? 1, o?.int32(3, 1) ?? 1];
  const strides: [number, number] = [o?.int32(2, 1) ?? 1, o?.int32(1, 1) ?? 1];
  const f = kind === 'max' ? tf.maxPool : tf.avgPool;
  return activate(f(input as tf.Tensor4D, size, strides, padding(o)), o?.int8(5) ?? 0);
}

/** A constant tensor from its buffer (little-endian; copied so the typed array is aligned). */
function constantOf(t: TfliteTensor): tf.Tensor {
  const bytes = t.data!.slice();
  const shape = t.shape;
  switch (t.type) {
    case 'float32':
      return tf.tensor(new Float32Array(bytes.buffer), shape, 'float32');
    case 'float16':
      return tf.tensor(halfToFloat(new Uint16Array(bytes.buffer)), shape, 'float32');
    case 'int32':
      return tf.tensor(new Int32Array(bytes.buffer), shape, 'int32');
    case 'int64':
      return tf.tensor(
        Int32Array.from(new BigInt64Array(bytes.buffer), (v) => Number(v)),
        shape,
        'int32',
      );
    default:
      throw new Error(`TFLite constant of type ${t.type} not supported (${t.name})`);
  }
}

/** IEEE 754 half precision to single. */
export function halfToFloat(half: Uint16Array): Float32Array {
  const out = new Float32Array(half.length);
  for (let i = 0; i < half.length; i++) {
    const h = half[i]!;
    const sign = h & 0x8000 ? -1 : 1;
    const exponent = (h >> 10) & 0x1f;
    const mantissa = h & 0x3ff;
    out[i] =
      exponent === 0
        ? sign * 2 ** -14 * (mantissa / 1024)
        : exponent === 31
          ? mantissa
            ? NaN
            : sign * Infinity
          : sign * 2 ** (exponent - 15) * (1 + mantissa / 1024);
  }
  return out;
}

/**
 * The PReLU pattern (prelu-pattern.ts) becomes one PRELU op of slope 2a; a convolution feeding only
 * it then takes it as its fused activation.
 */
function fusePrelu(ops: TfliteOperator[], model: TfliteModel, constants: Map<number, tf.Tensor>): TfliteOperator[] {
  const uses = tensorUses(ops, model);
  let next = model.tensors.length;
  const out: TfliteOperator[] = [];
  for (let i = 0; i < ops.length; i++) {
    const match = matchPrelu(ops, i, (t) => constants.has(t), uses);
    if (match) {
      const slope = next++;
      constants.set(slope, tf.keep(tf.mul(constants.get(match.alpha)!, 2)));
      const conv = out.at(-1);
      const activation = conv?.op === 'CONV_2D' ? 3 : conv?.op === 'DEPTHWISE_CONV_2D' ? 4 : -1;
      if (
        conv &&
        activation > 0 &&
        conv.outputs[0] === match.x &&
        uses(match.x) === 3 &&
        (conv.options?.int8(activation) ?? 0) === 0
      ) {
        out[out.length - 1] = { ...conv, op: `${conv.op}+PRELU`, inputs: [...conv.inputs, slope], outputs: [match.out] };
      } else {
        out.push({ op: 'PRELU', inputs: [match.x, slope], outputs: [match.out], options: null });
      }
      i += 4;
      continue;
    }
    out.push(ops[i]!);
  }
  return out;
}
