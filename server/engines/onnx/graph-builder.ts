import type { AttributeValue, OnnxInitializer, OnnxNode } from './onnx-writer.js';

/** Nodes and constants of an ONNX graph under construction, each given a fresh name. */
export class OnnxGraphBuilder {
  readonly nodes: OnnxNode[] = [];
  readonly initializers: OnnxInitializer[] = [];
  private count = 0;

  constant(prefix: string, dims: number[], values: Float32Array | number[]): string {
    const name = `${prefix}_${this.count++}`;
    this.initializers.push({ name, dims, values });
    return name;
  }

  op(op: string, inputs: string[], attributes?: Record<string, AttributeValue>): string {
    const out = `${op}_${this.count++}`;
    this.nodes.push({ op, inputs, outputs: [out], ...(attributes ? { attributes } : {}) });
    return out;
  }
}

/**
 * TensorFlow's convolution filter [h, w, in, out] (depthwise: [h, w, in, multiplier]) as ONNX's
 * [out, in / group, h, w], with its dims.
 */
export function onnxFilter(
  data: ArrayLike<number>,
  shape: number[],
  depthwise: boolean,
): { dims: number[]; values: Float32Array } {
  const [kh, kw, ci, co] = shape as [number, number, number, number];
  const values = new Float32Array(kh * kw * ci * co);
  for (let y = 0; y < kh; y++)
    for (let x = 0; x < kw; x++)
      for (let i = 0; i < ci; i++)
        for (let o = 0; o < co; o++)
          values[depthwise ? ((i * co + o) * kh + y) * kw + x : ((o * ci + i) * kh + y) * kw + x] =
            data[((y * kw + x) * ci + i) * co + o]!;
  return { dims: depthwise ? [ci * co, 1, kh, kw] : [co, ci, kh, kw], values };
}
