// The search index's row coder as SIMD WebAssembly: the rotation, the two quantisers and the packing
// of one row, which in JavaScript cost about half of a start-up rebuild's per-person work (stores
// into the index's shared memory are slow from JavaScript, free from WebAssembly).
//
//   (func (export "codeRow") (param $unit i32) (param $signs i32) (param $y i32) (param $scratch i32)
//         (param $out4 i32) (param $fs i32) (param $pairs i32) (param $shift i32) (param $res i32)
//         (param $t2k f64) (param $stepk f64)
//     ;; y = H D unit (f64; the Rotation of rotation.ts, stage by stage, so the same bits), scaled
//     ;; by 1/sqrt(P); ss = |y|^2; sigma = sqrt(ss / P)
//     ;; per dimension: the 2-bit level c (x >= -t2k sigma, >= 0, >= t2k sigma counted) to scratch[i],
//     ;; the 4-bit code n = clamp(floor(x * (1 / (stepk sigma)) + 0.5), -7, 7) to scratch[P + i],
//     ;; with the sums (2c - 3) x, (2c - 3)^2, n x, n^2
//     ;; the 4-bit codes packed into the P/2 bytes at $out4 (the layout of wasm-kernel.ts's scanI4)
//     ;; for each of $pairs pairs g: the nibble (c[2g] | c[2g+1] << 2) << $shift into byte $fs + 16 g
//     ;; f64 at $res: ss, sum (2c-3) x, sum (2c-3)^2, sum n x, sum n^2
//   )
// Sums run in two lanes, so they may differ from a sequential JavaScript sum in the last bits.
//
//   (func (export "prepareRow") (param $row i32) (param $dim i32) (param $normalise i32) (result i32)
//     ;; when $normalise: the $dim floats at $row divided by their norm, in place, as `normalize` of
//     ;; similarity.ts does it (sum of squares in order, in f64; each quotient rounded to f32), so the
//     ;; same floats and the same scores as EmbeddingIndex; returns rowHash of quantized-index.ts
//     ;; (FNV-1a over the floats' bits)
//   )
import {
  F64,
  I32,
  V128,
  f64x2Add,
  f64x2Const,
  f64x2ExtractLane,
  f64x2Floor,
  f64x2Ge,
  f64x2Pmax,
  f64x2Pmin,
  f64x2Mul,
  f64x2PromoteLowF32x4,
  f64x2Splat,
  f64x2Sub,
  funcBody,
  i8x16Shl,
  i8x16Shuffle,
  name,
  op,
  section,
  uleb,
  v128And,
  v128Const,
  v128Load,
  v128Or,
  v128Store,
  v128Store16Lane,
  v128Zero,
  vec,
  sharedMemoryImport,
  wasmModule,
} from './wasm-assembler.js';
import { wasm, type WasmMemory, type WasmModule } from './wasm-kernel.js';

export interface RowCoder {
  prepareRow(row: number, dim: number, normalise: number): number;
  codeRow(
    unit: number,
    signs: number,
    y: number,
    scratch: number,
    out4: number,
    fs: number,
    pairs: number,
    shift: number,
    res: number,
    t2k: number,
    stepk: number,
  ): void;
}

const range = (n: number, from = 0) => Array.from({ length: n }, (_, i) => from + i);

/** for (local = 0; local < end; local += step) body, with `end` and `step` constants. */
function loop(code: number[], local: number, end: number[], step: number, body: () => void): void {
  code.push(...op.i32Const(0), ...op.localSet(local));
  code.push(op.block, op.void, op.loop, op.void);
  code.push(...op.localGet(local), ...end, op.i32GeU, op.brIf, 1);
  body();
  code.push(...op.localGet(local), ...op.i32Const(step), op.i32Add, ...op.localSet(local));
  code.push(op.br, 0, op.end, op.end);
}

function codeRowBody(dpad: number): number[] {
  const [unit, signs, y, scratch, out4, fs, pairs, shift, res, t2k, stepk] = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10];
  const [p, h, i, j, g, at] = [11, 12, 13, 14, 15, 16];
  const [ss, sigma, t2, inv] = [17, 18, 19, 20];
  const [a, b, x, c, n, cy2, cc2, cy4, cc4, t2v, nt2v, invv, w, acc] = [21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34];
  const bytes8 = 8 * dpad;
  const code: number[] = [];
  const addr = (base: number, offset: number) => [...op.localGet(base), ...op.localGet(offset), op.i32Add];

  // y = D unit, as f64: four floats a turn.
  loop(code, p, op.i32Const(4 * dpad), 16, () => {
    code.push(...addr(unit, p), ...v128Load(0), ...op.localSet(w));
    for (let half = 0; half < 2; half++) {
      code.push(...op.localGet(y), ...op.localGet(p), ...op.i32Const(1), op.i32Shl, op.i32Add);
      code.push(...op.localGet(w));
      if (half) code.push(...op.localGet(w), ...i8x16Shuffle([...range(8, 8), ...range(8, 8)]));
      code.push(...f64x2PromoteLowF32x4());
      code.push(...op.localGet(signs), ...op.localGet(p), ...op.i32Const(1), op.i32Shl, op.i32Add, ...v128Load(16 * half));
      code.push(...f64x2Mul(), ...v128Store(16 * half));
    }
  });
  // The first butterfly stage pairs the two lanes of each vector: [a + b, a - b].
  loop(code, p, op.i32Const(bytes8), 16, () => {
    code.push(...addr(y, p), ...addr(y, p), ...v128Load(0), ...op.localTee(a), ...op.localGet(a));
    code.push(...i8x16Shuffle([...range(8, 8), ...range(8)]), ...op.localSet(b));
    code.push(...op.localGet(a), ...op.localGet(b), ...f64x2Add(), ...op.localGet(a), ...op.localGet(b), ...f64x2Sub());
    code.push(...i8x16Shuffle([...range(8), ...range(8, 16)]), ...v128Store(0));
  });
  // The others, h = 2, 4, ... (in bytes: 16, 32, ...): (u, v) -> (u + v, u - v) two lanes at a time.
  code.push(...op.i32Const(16), ...op.localSet(h));
  code.push(op.block, op.void, op.loop, op.void);
  code.push(...op.localGet(h), ...op.i32Const(bytes8), op.i32GeU, op.brIf, 1);
  code.push(...op.i32Const(0), ...op.localSet(i));
  code.push(op.block, op.void, op.loop, op.void);
  code.push(...op.localGet(i), ...op.i32Const(bytes8), op.i32GeU, op.brIf, 1);
  loop(code, j, op.localGet(h), 16, () => {
    code.push(...addr(y, i), ...op.localGet(j), op.i32Add, ...op.localTee(p), ...v128Load(0), ...op.localSet(a));
    code.push(...addr(p, h), ...v128Load(0), ...op.localSet(b));
    code.push(...op.localGet(p), ...op.localGet(a), ...op.localGet(b), ...f64x2Add(), ...v128Store(0));
    code.push(...addr(p, h), ...op.localGet(a), ...op.localGet(b), ...f64x2Sub(), ...v128Store(0));
  });
  code.push(...op.localGet(i), ...op.localGet(h), ...op.i32Const(1), op.i32Shl, op.i32Add, ...op.localSet(i));
  code.push(op.br, 0, op.end, op.end);
  code.push(...op.localGet(h), ...op.i32Const(1), op.i32Shl, ...op.localSet(h));
  code.push(op.br, 0, op.end, op.end);
  // y *= 1/sqrt(P); ss = |y|^2.
  code.push(...v128Zero(), ...op.localSet(acc));
  loop(code, p, op.i32Const(bytes8), 16, () => {
    code.push(...addr(y, p), ...addr(y, p), ...v128Load(0), ...f64x2Const(1 / Math.sqrt(dpad)), ...f64x2Mul());
    code.push(...op.localTee(x), ...v128Store(0));
    code.push(...op.localGet(x), ...op.localGet(x), ...f64x2Mul(), ...op.localGet(acc), ...f64x2Add(), ...op.localSet(acc));
  });
  code.push(...op.localGet(acc), ...f64x2ExtractLane(0), ...op.localGet(acc), ...f64x2ExtractLane(1), op.f64Add);
  code.push(...op.localTee(ss), ...op.f64Const(dpad), op.f64Div, op.f64Sqrt, ...op.localSet(sigma));
  code.push(...op.localGet(t2k), ...op.localGet(sigma), op.f64Mul, ...op.localTee(t2), ...f64x2Splat(), ...op.localSet(t2v));
  code.push(...op.localGet(t2), op.f64Neg, ...f64x2Splat(), ...op.localSet(nt2v));
  // inv = step > 0 ? 1 / step : 0
  code.push(...op.f64Const(1), ...op.localGet(stepk), ...op.localGet(sigma), op.f64Mul, op.f64Div);
  code.push(...op.f64Const(0), ...op.localGet(stepk), ...op.localGet(sigma), op.f64Mul, ...op.f64Const(0), op.f64Gt);
  code.push(op.select, ...op.localTee(inv), ...f64x2Splat(), ...op.localSet(invv));
  for (const s of [cy2, cc2, cy4, cc4]) code.push(...v128Zero(), ...op.localSet(s));
  // The constants in locals: a v128.const in the loop would be rebuilt every turn.
  const [one, three, half, lo7, hi7, zero, magic] = [35, 36, 37, 38, 39, 40, 41];
  for (const [local, value] of [
    [one, 1],
    [three, 3],
    [half, 0.5],
    [lo7, -7],
    [hi7, 7],
    [zero, 0],
    [magic, 1.5 * 2 ** 52],
  ] as const) {
    code.push(...f64x2Const(value), ...op.localSet(local));
  }
  // Both quantisers, two dimensions a turn; `i` is the dimension, `p` its byte in y.
  code.push(...op.i32Const(0), ...op.localSet(i));
  loop(code, p, op.i32Const(bytes8), 16, () => {
    code.push(...addr(y, p), ...v128Load(0), ...op.localSet(x));
    // c = (x >= -t2) + (x >= 0) + (x >= t2): each comparison's all-ones lanes masked to 1.0.
    code.push(...op.localGet(x), ...op.localGet(nt2v), ...f64x2Ge(), ...op.localGet(one), ...v128And());
    code.push(...op.localGet(x), ...op.localGet(zero), ...f64x2Ge(), ...op.localGet(one), ...v128And(), ...f64x2Add());
    code.push(...op.localGet(x), ...op.localGet(t2v), ...f64x2Ge(), ...op.localGet(one), ...v128And(), ...f64x2Add());
    code.push(...op.localTee(c));
    // l = 2c - 3
    code.push(...op.localGet(c), ...f64x2Add(), ...op.localGet(three), ...f64x2Sub(), ...op.localTee(a));
    code.push(...op.localGet(x), ...f64x2Mul(), ...op.localGet(cy2), ...f64x2Add(), ...op.localSet(cy2));
    code.push(...op.localGet(a), ...op.localGet(a), ...f64x2Mul(), ...op.localGet(cc2), ...f64x2Add(), ...op.localSet(cc2));
    // n = clamp(floor(x * inv + 0.5), -7, 7)
    code.push(...op.localGet(x), ...op.localGet(invv), ...f64x2Mul(), ...op.localGet(half), ...f64x2Add(), ...f64x2Floor());
    code.push(...op.localGet(lo7), ...f64x2Pmax(), ...op.localGet(hi7), ...f64x2Pmin(), ...op.localTee(n));
    code.push(...op.localGet(x), ...f64x2Mul(), ...op.localGet(cy4), ...f64x2Add(), ...op.localSet(cy4));
    code.push(...op.localGet(n), ...op.localGet(n), ...f64x2Mul(), ...op.localGet(cc4), ...f64x2Add(), ...op.localSet(cc4));
    // The codes as bytes, c0 c1 to scratch[i], n0 n1 to scratch[P + i]: one 16-bit lane each. A
    // small integer-valued double plus 1.5 * 2^52 has the integer, two's complement, in its low
    // mantissa bits (cheaper than i32x4.trunc_sat_f64x2_s_zero).
    code.push(...addr(scratch, i), ...addr(scratch, i));
    code.push(...op.localGet(c), ...op.localGet(magic), ...f64x2Add(), ...op.localGet(n), ...op.localGet(magic), ...f64x2Add());
    code.push(...i8x16Shuffle([0, 8, 16, 24, ...new Array<number>(12).fill(0)]), ...op.localTee(b));
    code.push(...v128Store16Lane(0, 0), ...op.localGet(b), ...v128Store16Lane(dpad, 1));
    code.push(...op.localGet(i), ...op.i32Const(2), op.i32Add, ...op.localSet(i));
  });
  // The 4-bit row: per 32 dimensions A = codes 0-15, B = 16-31; byte 2k = A[k] | A[8 + k] << 4 and
  // byte 2k + 1 = B[k] | B[8 + k] << 4 (k < 8).
  loop(code, g, op.i32Const(dpad), 32, () => {
    code.push(...addr(scratch, g), ...v128Load(dpad), ...op.localSet(a));
    code.push(...addr(scratch, g), ...v128Load(dpad + 16), ...op.localSet(b));
    code.push(...op.localGet(a), ...op.localGet(b), ...i8x16Shuffle([...range(8), ...range(8, 16)]));
    code.push(...v128Const(new Array<number>(16).fill(15)), ...v128And());
    code.push(...op.localGet(a), ...op.localGet(b), ...i8x16Shuffle([...range(8, 8), ...range(8, 24)]));
    code.push(...op.i32Const(4), ...i8x16Shl(), ...v128Or(), ...op.localSet(w));
    code.push(...op.localGet(out4), ...op.localGet(g), ...op.i32Const(1), op.i32ShrU, op.i32Add);
    code.push(...op.localGet(w), ...op.localGet(w), ...i8x16Shuffle(range(8).flatMap((k) => [k, k + 8])), ...v128Store(0));
  });
  // The fast-scan nibbles: byte fs + 16 g keeps its other nibble.
  loop(code, g, op.localGet(pairs), 1, () => {
    code.push(...op.localGet(fs), ...op.localGet(g), ...op.i32Const(4), op.i32Shl, op.i32Add, ...op.localTee(at));
    code.push(...op.localGet(at), ...op.i32Load8U(0), ...op.i32Const(0xf0), ...op.localGet(shift), op.i32ShrU, op.i32And);
    code.push(...op.localGet(scratch), ...op.localGet(g), ...op.i32Const(1), op.i32Shl, op.i32Add, ...op.localTee(j));
    code.push(...op.i32Load8U(0), ...op.localGet(j), ...op.i32Load8U(1), ...op.i32Const(2), op.i32Shl, op.i32Or);
    code.push(...op.localGet(shift), op.i32Shl, op.i32Or, ...op.i32Store8(0));
  });
  const sum = (s: number) => [...op.localGet(s), ...f64x2ExtractLane(0), ...op.localGet(s), ...f64x2ExtractLane(1), op.f64Add];
  code.push(...op.localGet(res), ...op.localGet(ss), ...op.f64Store(0));
  [cy2, cc2, cy4, cc4].forEach((s, k) => code.push(...op.localGet(res), ...sum(s), ...op.f64Store(8 * (k + 1))));
  return funcBody(
    [
      [6, I32],
      [4, F64],
      [21, V128],
    ],
    code,
  );
}

function prepareRowBody(): number[] {
  const [row, dim, normalise] = [0, 1, 2];
  const [p, end, h] = [3, 4, 5];
  const [sum, norm] = [6, 7];
  const code: number[] = [];
  const f64At = [...op.localGet(p), ...op.f32Load(0), op.f64PromoteF32];
  code.push(...op.localGet(row), ...op.localGet(dim), ...op.i32Const(2), op.i32Shl, op.i32Add, ...op.localSet(end));
  code.push(...op.localGet(normalise), op.if, op.void);
  const overRow = (body: () => void) => {
    code.push(...op.localGet(row), ...op.localSet(p));
    code.push(op.block, op.void, op.loop, op.void);
    code.push(...op.localGet(p), ...op.localGet(end), op.i32GeU, op.brIf, 1);
    body();
    code.push(...op.localGet(p), ...op.i32Const(4), op.i32Add, ...op.localSet(p));
    code.push(op.br, 0, op.end, op.end);
  };
  overRow(() => code.push(...f64At, ...f64At, op.f64Mul, ...op.localGet(sum), op.f64Add, ...op.localSet(sum)));
  // norm = sqrt(sum) || 1
  code.push(...op.localGet(sum), op.f64Sqrt, ...op.localTee(norm), ...op.f64Const(1));
  code.push(...op.localGet(norm), ...op.f64Const(0), op.f64Gt, op.select, ...op.localSet(norm));
  overRow(() => code.push(...op.localGet(p), ...f64At, ...op.localGet(norm), op.f64Div, op.f32DemoteF64, ...op.f32Store(0)));
  code.push(op.end);
  code.push(...op.i32Const(0x811c9dc5 | 0), ...op.localSet(h));
  overRow(() =>
    code.push(
      ...op.localGet(h),
      ...op.localGet(p),
      ...op.i32Load(0),
      op.i32Xor,
      ...op.i32Const(0x01000193),
      op.i32Mul,
      ...op.localSet(h),
    ),
  );
  code.push(...op.localGet(h));
  return funcBody(
    [
      [3, I32],
      [2, F64],
    ],
    code,
  );
}

/** The coder module for padded dimension `dpad` (a power of two, at least 32). */
export function rowCoderModuleBytes(dpad: number): Uint8Array {
  if (dpad < 32 || (dpad & (dpad - 1)) !== 0) throw new Error(`codificador: ${dpad} no es potencia de dos >= 32`);
  const params = [I32, I32, I32, I32, I32, I32, I32, I32, I32, F64, F64].map((t) => [t]);
  const types = section(1, [
    ...uleb(2),
    ...[0x60, ...vec(params), ...vec([])],
    ...[0x60, ...vec([[I32], [I32], [I32]]), ...vec([[I32]])],
  ]);
  const imports = sharedMemoryImport();
  const funcs = section(3, vec([uleb(0), uleb(1)]));
  const exports = section(
    7,
    vec([
      [...name('codeRow'), 0x00, ...uleb(0)],
      [...name('prepareRow'), 0x00, ...uleb(1)],
    ]),
  );
  const code = section(10, [...uleb(2), ...codeRowBody(dpad), ...prepareRowBody()]);
  return wasmModule(types, imports, funcs, exports, code);
}

const compiled = new Map<number, WasmModule>();

/** The coder for `dpad` on `memory` (the index's own), its module compiled once per dimension. */
export function rowCoder(dpad: number, memory: WasmMemory): RowCoder {
  let mod = compiled.get(dpad);
  if (!mod) {
    mod = new wasm.Module(rowCoderModuleBytes(dpad));
    compiled.set(dpad, mod);
  }
  return new wasm.Instance(mod, { env: { memory } }).exports as RowCoder;
}
