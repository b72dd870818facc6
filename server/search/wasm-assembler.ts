// A minimal WebAssembly binary encoder for the search index's hand-assembled kernels: value types,
// LEB128, sections and the opcodes the kernels use (no toolchain at build time).

export const I32 = 0x7f;
export const F32 = 0x7d;
export const V128 = 0x7b;

export function uleb(n: number): number[] {
  const out: number[] = [];
  do {
    let b = n & 0x7f;
    n >>>= 7;
    if (n !== 0) b |= 0x80;
    out.push(b);
  } while (n !== 0);
  return out;
}

export function sleb(n: number): number[] {
  const out: number[] = [];
  for (;;) {
    const b = n & 0x7f;
    n >>= 7;
    if ((n === 0 && (b & 0x40) === 0) || (n === -1 && (b & 0x40) !== 0)) {
      out.push(b);
      return out;
    }
    out.push(b | 0x80);
  }
}

export function section(id: number, body: number[]): number[] {
  return [id, ...uleb(body.length), ...body];
}

export function vec(items: number[][]): number[] {
  return [...uleb(items.length), ...items.flat()];
}

/** A module's bytes: the magic number and version, then its sections in order. */
export function wasmModule(...sections: number[][]): Uint8Array {
  return new Uint8Array([0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00, ...sections.flat()]);
}

/** The import section of the kernels: (import "env" "memory" (memory 1 65536 shared)), flag 3 = shared with a maximum. */
export function sharedMemoryImport(): number[] {
  return section(2, vec([[...name('env'), ...name('memory'), 0x02, 0x03, ...uleb(1), ...uleb(65536)]]));
}

export function name(s: string): number[] {
  const bytes = [...Buffer.from(s, 'utf8')];
  return [...uleb(bytes.length), ...bytes];
}

// Opcodes.
export const op = {
  block: 0x02,
  loop: 0x03,
  if: 0x04,
  end: 0x0b,
  br: 0x0c,
  brIf: 0x0d,
  void: 0x40,
  localGet: (i: number) => [0x20, ...uleb(i)],
  localSet: (i: number) => [0x21, ...uleb(i)],
  localTee: (i: number) => [0x22, ...uleb(i)],
  i32Const: (n: number) => [0x41, ...sleb(n)],
  f64Const: (x: number) => [0x44, ...f64Bytes(x)],
  drop: 0x1a,
  select: 0x1b,
  i32Load: (offset: number) => [0x28, 2, ...uleb(offset)],
  f32Load: (offset: number) => [0x2a, 2, ...uleb(offset)],
  i32Load8U: (offset: number) => [0x2d, 0, ...uleb(offset)],
  i32Store: (offset: number) => [0x36, 2, ...uleb(offset)],
  f32Store: (offset: number) => [0x38, 2, ...uleb(offset)],
  f64Store: (offset: number) => [0x39, 3, ...uleb(offset)],
  i32Store8: (offset: number) => [0x3a, 0, ...uleb(offset)],
  i32LtU: 0x49,
  i32GeU: 0x4f,
  f32Ge: 0x60,
  f64Gt: 0x64,
  i32Add: 0x6a,
  i32Sub: 0x6b,
  i32Mul: 0x6c,
  i32And: 0x71,
  i32Or: 0x72,
  i32Xor: 0x73,
  i32Shl: 0x74,
  i32ShrU: 0x76,
  f32Add: 0x92,
  f32Mul: 0x94,
  f64Neg: 0x9a,
  f64Sqrt: 0x9f,
  f64Add: 0xa0,
  f64Mul: 0xa2,
  f64Div: 0xa3,
  f32ConvertI32S: 0xb2,
  f32DemoteF64: 0xb6,
  f64PromoteF32: 0xbb,
  simd: (sub: number, ...imm: number[]) => [0xfd, ...uleb(sub), ...imm],
};
export const v128Load = (offset: number) => op.simd(0x00, 4, ...uleb(offset));
export const i8x16Shuffle = (bytes: number[]) => op.simd(0x0d, ...bytes);
export const i16x8Shl = () => op.simd(0x8b);
export const i16x8ShrU = () => op.simd(0x8d);
export const i16x8Sub = () => op.simd(0x91);
export const v128Xor = () => op.simd(0x51);
export const i32x4Splat = () => op.simd(0x11);
export const i32x4Sub = () => op.simd(0xb1);
export const i32x4ExtendLowI16x8U = () => op.simd(0xa9);
export const i32x4ExtendHighI16x8U = () => op.simd(0xaa);
export const v128Const = (bytes: number[]) => op.simd(0x0c, ...bytes);
export const i16x8ShrS = () => op.simd(0x8c);
export const f32x4Splat = () => op.simd(0x13);
export const f32x4Ge = () => op.simd(0x46);
export const v128AnyTrue = () => op.simd(0x53);
export const f32x4ConvertI32x4S = () => op.simd(0xfa);
export const v128Zero = () => v128Const(new Array<number>(16).fill(0));
export const f32x4ExtractLane = (lane: number) => op.simd(0x1f, lane);
export const i32x4ExtractLane = (lane: number) => op.simd(0x1b, lane);
export const i16x8ExtendLowI8x16S = () => op.simd(0x87);
export const i16x8ExtendHighI8x16S = () => op.simd(0x88);
export const i32x4Add = () => op.simd(0xae);
export const i32x4DotI16x8S = () => op.simd(0xba);
export const i8x16Swizzle = () => op.simd(0x0e);
/**
 * i8x16.relaxed_swizzle (relaxed SIMD): a lane whose index is above 15 is implementation-defined,
 * so V8 emits pshufb alone on x64, where i8x16.swizzle adds a saturating add for its zeroing rule.
 */
export const i8x16RelaxedSwizzle = () => op.simd(0x100);
export const v128And = () => op.simd(0x4e);
export const i16x8Add = () => op.simd(0x8e);
export const i8x16Add = () => op.simd(0x6e);
export const f32x4Add = () => op.simd(0xe4);
export const f32x4Mul = () => op.simd(0xe6);

export function funcBody(locals: [number, number][], code: number[]): number[] {
  const body = [...vec(locals.map(([count, type]) => [...uleb(count), type])), ...code, op.end];
  return [...uleb(body.length), ...body];
}

export const F64 = 0x7c;

export function f64Bytes(x: number): number[] {
  const b = Buffer.alloc(8);
  b.writeDoubleLE(x);
  return [...b];
}

export const v128Store = (offset: number) => op.simd(0x0b, 4, ...uleb(offset));
export const v128Or = () => op.simd(0x50);
export const i8x16Shl = () => op.simd(0x6b);
export const f64x2Splat = () => op.simd(0x14);
/** A v128 constant of two equal doubles. */
export const f64x2Const = (x: number) => v128Const([...f64Bytes(x), ...f64Bytes(x)]);
export const f64x2ExtractLane = (lane: number) => op.simd(0x21, lane);
export const f64x2Ge = () => op.simd(0x4c);
export const f64x2Floor = () => op.simd(0x75);
export const f64x2Add = () => op.simd(0xf0);
export const f64x2Sub = () => op.simd(0xf1);
export const f64x2Mul = () => op.simd(0xf2);
/** f64x2.pmin / pmax: one minpd / maxpd (f64x2.min and max add NaN and -0 fix-ups). */
export const f64x2Pmin = () => op.simd(0xf6);
export const f64x2Pmax = () => op.simd(0xf7);
export const f64x2PromoteLowF32x4 = () => op.simd(0x5f);
/** v128.store16_lane: the 16-bit lane `lane` of the vector to memory. */
export const v128Store16Lane = (offset: number, lane: number) => op.simd(0x59, 0, ...uleb(offset), lane);
