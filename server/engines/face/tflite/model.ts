import { FbTable } from './flatbuffer.js';

/** TFLite tensor types this reader knows (schema.fbs `TensorType`). */
export const TENSOR_TYPES = [
  'float32',
  'float16',
  'int32',
  'uint8',
  'int64',
  'string',
  'bool',
  'int16',
  'complex64',
  'int8',
  'float64',
] as const;
export type TensorType = (typeof TENSOR_TYPES)[number];

/** Builtin operator codes (schema.fbs `BuiltinOperator`) of the ops the executor maps, by code. */
export const BUILTIN_NAMES: Record<number, string> = {
  0: 'ADD',
  1: 'AVERAGE_POOL_2D',
  2: 'CONCATENATION',
  3: 'CONV_2D',
  4: 'DEPTHWISE_CONV_2D',
  6: 'DEQUANTIZE',
  9: 'FULLY_CONNECTED',
  11: 'L2_NORMALIZATION',
  14: 'LOGISTIC',
  17: 'MAX_POOL_2D',
  18: 'MUL',
  19: 'RELU',
  21: 'RELU6',
  22: 'RESHAPE',
  23: 'RESIZE_BILINEAR',
  25: 'SOFTMAX',
  28: 'TANH',
  32: 'CUSTOM',
  34: 'PAD',
  36: 'GATHER',
  39: 'TRANSPOSE',
  40: 'MEAN',
  41: 'SUB',
  42: 'DIV',
  43: 'SQUEEZE',
  45: 'STRIDED_SLICE',
  47: 'EXP',
  49: 'SPLIT',
  53: 'CAST',
  54: 'PRELU',
  55: 'MAXIMUM',
  57: 'MINIMUM',
  58: 'LESS',
  59: 'NEG',
  61: 'GREATER',
  62: 'GREATER_EQUAL',
  64: 'SELECT',
  65: 'SLICE',
  70: 'EXPAND_DIMS',
  74: 'SUM',
  75: 'SQRT',
  76: 'RSQRT',
  77: 'SHAPE',
  78: 'POW',
  82: 'REDUCE_MAX',
  83: 'PACK',
  88: 'UNPACK',
  92: 'SQUARE',
  98: 'LEAKY_RELU',
  99: 'SQUARED_DIFFERENCE',
  101: 'ABS',
  102: 'SPLIT_V',
  114: 'QUANTIZE',
  117: 'HARD_SWISH',
  123: 'SELECT_V2',
  126: 'BATCH_MATMUL',
};

export interface TfliteTensor {
  index: number;
  name: string;
  shape: number[];
  type: TensorType;
  /** Constant data (weights), or null for activations. */
  data: Uint8Array | null;
  quantization: { scale: number[]; zeroPoint: number[]; axis: number } | null;
}

export interface TfliteOperator {
  /** Builtin name, or `CUSTOM:<code>`, or `BUILTIN_<n>` for a code this reader does not name. */
  op: string;
  inputs: number[];
  outputs: number[];
  /** The builtin options table, read by the executor according to the op. */
  options: FbTable | null;
}

export interface TfliteModel {
  description: string | null;
  tensors: TfliteTensor[];
  inputs: number[];
  outputs: number[];
  operators: TfliteOperator[];
}

/** Reads the first subgraph of a .tflite file (schema.fbs `Model`): what an inference needs. */
export function readTflite(bytes: Uint8Array): TfliteModel {
  const model = FbTable.root(bytes);
  const opNames = model.tables(1).map((code) => {
    // Codes above 127 live in `builtin_code` (field 3); older files only have the deprecated byte.
    const builtin = Math.max(code.int8(0), code.int32(3));
    if (builtin === 32) return `CUSTOM:${code.string(1) ?? ''}`;
    return BUILTIN_NAMES[builtin] ?? `BUILTIN_${builtin}`;
  });
  const buffers = model.tables(4).map((b) => b.bytes(0));
  const subgraph = model.tables(2)[0];
  if (!subgraph) throw new Error('TFLite model without subgraph');
  const tensors = subgraph.tables(0).map((t, index): TfliteTensor => {
    const q = t.table(4);
    const scale = q?.float32s(2) ?? [];
    const data = buffers[t.uint32(2)] ?? null;
    return {
      index,
      name: t.string(3) ?? `t${index}`,
      shape: t.int32s(0),
      type: TENSOR_TYPES[t.int8(1)] ?? 'float32',
      data: data && data.length > 0 ? data : null,
      quantization: scale.length ? { scale, zeroPoint: q?.int64s(3) ?? [], axis: q?.int32(6) ?? 0 } : null,
    };
  });
  const operators = subgraph.tables(3).map(
    (o): TfliteOperator => ({
      op: opNames[o.uint32(0)] ?? 'UNKNOWN',
      inputs: o.int32s(1),
      outputs: o.int32s(2),
      options: o.table(4),
    }),
  );
  return { description: model.string(3), tensors, inputs: subgraph.int32s(1), outputs: subgraph.int32s(2), operators };
}
