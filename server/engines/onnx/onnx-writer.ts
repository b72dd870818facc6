/**
 * Writes ONNX models (onnx.proto's ModelProto, protobuf wire format) for graphs built in code from
 * weights the models' packages ship: the few messages and fields those graphs need, no schema
 * library. Field numbers are onnx.proto's.
 */

const encoder = new TextEncoder();

/** One protobuf message under construction. */
class Message {
  private readonly parts: Uint8Array[] = [];
  private length = 0;

  private push(bytes: Uint8Array): this {
    this.parts.push(bytes);
    this.length += bytes.length;
    return this;
  }

  private varint(value: number | bigint): this {
    let n = BigInt(value);
    if (n < 0n) n += 1n << 64n; // int64 negatives are ten-byte two's complement
    const out: number[] = [];
    while (n > 127n) {
      out.push(Number(n & 127n) | 128);
      n >>= 7n;
    }
    out.push(Number(n));
    return this.push(Uint8Array.from(out));
  }

  private key(field: number, wireType: 0 | 2 | 5): this {
    return this.varint((field << 3) | wireType);
  }

  int(field: number, value: number | bigint): this {
    return this.key(field, 0).varint(value);
  }

  bytes(field: number, value: Uint8Array | string): this {
    const b = typeof value === 'string' ? encoder.encode(value) : value;
    return this.key(field, 2).varint(b.length).push(b);
  }

  message(field: number, value: Message): this {
    return this.bytes(field, value.encode());
  }

  float(field: number, value: number): this {
    const b = new Uint8Array(4);
    new DataView(b.buffer).setFloat32(0, value, true);
    return this.key(field, 5).push(b);
  }

  encode(): Uint8Array {
    const out = new Uint8Array(this.length);
    let at = 0;
    for (const p of this.parts) {
      out.set(p, at);
      at += p.length;
    }
    return out;
  }
}

/** TensorProto.DataType values used here. */
const FLOAT = 1;
const INT64 = 7;

export type AttributeValue = number | number[] | string;

export interface OnnxNode {
  op: string;
  inputs: string[];
  outputs: string[];
  /** Integers (and integer lists) are INT/INTS; other numbers FLOAT. */
  attributes?: Record<string, AttributeValue>;
}

export interface OnnxInitializer {
  name: string;
  dims: number[];
  /** float32 weights, or int64 values (shapes, pads) given as numbers. */
  values: Float32Array | number[];
}

export interface OnnxValue {
  name: string;
  /** A string is a symbolic dimension (the batch); no dims leaves the shape to onnxruntime's inference. */
  dims?: (number | string)[];
}

export interface OnnxGraph {
  nodes: OnnxNode[];
  initializers: OnnxInitializer[];
  inputs: OnnxValue[];
  outputs: OnnxValue[];
}

function attribute(name: string, value: AttributeValue): Message {
  const m = new Message().bytes(1, name);
  // AttributeProto.AttributeType: FLOAT 1, INT 2, STRING 3, INTS 7.
  if (typeof value === 'string') return m.bytes(4, value).int(20, 3);
  if (Array.isArray(value)) {
    for (const v of value) m.int(8, v);
    return m.int(20, 7);
  }
  return Number.isInteger(value) ? m.int(3, value).int(20, 2) : m.float(2, value).int(20, 1);
}

function initializer(t: OnnxInitializer): Message {
  const m = new Message();
  for (const d of t.dims) m.int(1, d);
  if (t.values instanceof Float32Array) {
    const raw = new Uint8Array(t.values.buffer, t.values.byteOffset, t.values.byteLength);
    // raw_data is little-endian, as typed arrays are on every platform Node runs on here.
    return m.int(2, FLOAT).bytes(8, t.name).bytes(9, raw.slice());
  }
  const raw = new Uint8Array(BigInt64Array.from(t.values.map((v) => BigInt(v))).buffer);
  return m.int(2, INT64).bytes(8, t.name).bytes(9, raw);
}

function valueInfo(v: OnnxValue): Message {
  const tensorType = new Message().int(1, FLOAT);
  if (v.dims) {
    const shape = new Message();
    for (const d of v.dims) shape.message(1, typeof d === 'string' ? new Message().bytes(2, d) : new Message().int(1, d));
    tensorType.message(2, shape);
  }
  return new Message().bytes(1, v.name).message(2, new Message().message(1, tensorType));
}

/** A float32 graph as an ONNX model file (IR version 7, default opset 13). */
export function encodeOnnxModel(graph: OnnxGraph, producer = 'enrolla'): Uint8Array {
  const g = new Message();
  for (const n of graph.nodes) {
    const node = new Message();
    for (const i of n.inputs) node.bytes(1, i);
    for (const o of n.outputs) node.bytes(2, o);
    node.bytes(4, n.op);
    for (const [k, v] of Object.entries(n.attributes ?? {})) node.message(5, attribute(k, v));
    g.message(1, node);
  }
  g.bytes(2, 'main');
  for (const t of graph.initializers) g.message(5, initializer(t));
  for (const i of graph.inputs) g.message(11, valueInfo(i));
  for (const o of graph.outputs) g.message(12, valueInfo(o));
  return new Message().int(1, 7).bytes(2, producer).message(7, g).message(8, new Message().bytes(1, '').int(2, 13)).encode();
}
