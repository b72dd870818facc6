import type { TfliteModel, TfliteOperator } from './model.js';

/** A PReLU written out as element-wise ops: y = PReLU(x) with slope 2 x alpha (a constant). */
export interface PreluMatch {
  x: number;
  alpha: number;
  out: number;
}

/** How many operators (and model outputs) read each tensor. */
export function tensorUses(ops: readonly TfliteOperator[], model: TfliteModel): (tensor: number) => number {
  const uses = new Map<number, number>();
  for (const op of ops) for (const i of op.inputs) uses.set(i, (uses.get(i) ?? 0) + 1);
  for (const o of model.outputs) uses.set(o, (uses.get(o) ?? 0) + 1);
  return (t) => uses.get(t) ?? 0;
}

/**
 * Converters write PReLU as five element-wise ops, relu(x) + alpha * (x - |x|); each pass over the
 * activations costs about as much as the convolution before it. The match starting at `ops[i]`,
 * when the five ops are exactly that pattern and their intermediate results feed nothing else.
 */
export function matchPrelu(
  ops: readonly TfliteOperator[],
  i: number,
  isConstant: (tensor: number) => boolean,
  uses: (tensor: number) => number,
): PreluMatch | null {
  const [relu, abs, sub, mul, add] = ops.slice(i, i + 5) as (TfliteOperator | undefined)[];
  const x = relu?.inputs[0];
  if (relu?.op !== 'RELU' || abs?.op !== 'ABS' || sub?.op !== 'SUB' || mul?.op !== 'MUL' || add?.op !== 'ADD') return null;
  if (x === undefined) return null;
  const r = relu.outputs[0]!;
  const b = abs.outputs[0]!;
  const c = sub.outputs[0]!;
  const d = mul.outputs[0]!;
  const alpha = mul.inputs.find((t) => t !== c);
  const shaped =
    abs.inputs[0] === x &&
    sub.inputs[0] === x &&
    sub.inputs[1] === b &&
    mul.inputs.includes(c) &&
    alpha !== undefined &&
    isConstant(alpha) &&
    add.inputs.includes(r) &&
    add.inputs.includes(d) &&
    [r, b, c, d].every((t) => uses(t) === 1) &&
    // No fused activation on the arithmetic ops (their options' field 0).
    [sub, mul, add].every((o) => (o.options?.int8(0) ?? 0) === 0);
  return shaped ? { x, alpha, out: add.outputs[0]! } : null;
}
