// The SIMD WebAssembly kernels of the search index, assembled here byte by byte: no toolchain at build
// time, nothing fetched at run time. The module imports its memory (shared between the threads that
// scan) and is specialised for one padded dimension (a multiple of 32), so the loop over a row is
// fully unrolled.
//
// The same code as WebAssembly text (kept in step with the encoder below, for review):
//
//   (module
//     (import "env" "memory" (memory 1 65536 shared))
//     ;; int8 rows (stride P bytes) against an int16 probe (2P bytes); approximate score
//     ;; = dot * scale[row]; writes (row, score) to `out` for each row scoring >= thr; returns the count.
//     ;; A tombstoned row (or a row past the end) has scale NaN, so it never passes. Four rows a turn.
//     (func (export "scanI8") (param $q i32) (param $rows i32) (param $scales i32) (param $start i32)
//           (param $end i32) (param $thr f32) (param $out i32) (result i32)
//       (local $row i32) (local $p i32) (local $n i32) (local $v v128) (local $a0 v128) ... (local $a3 v128)
//       (local $s v128) (local $qlo v128) (local $qhi v128) (local $thrv v128)
//       row = start; p = rows + start * P; thrv = f32x4.splat thr
//       block loop
//         br_if 1 (row >= end)
//         a0 = a1 = a2 = a3 = 0
//         ;; for c in 0 .. P/16, unrolled: qlo = v128.load offset=32c (q); qhi = v128.load offset=32c+16 (q)
//         ;;   for r in 0 .. 3: v = v128.load offset=rP+16c (p)
//         ;;     ar += i32x4.dot_i16x8_s (i16x8.extend_low_i8x16_s v) qlo + i32x4.dot_i16x8_s (i16x8.extend_high_i8x16_s v) qhi
//         ;; the four horizontal sums at once, with i8x16.shuffle and i32x4.add, into one i32x4
//         s = f32x4.mul (f32x4.convert_i32x4_s sums) (v128.load (scales + 4 row))
//         if (v128.any_true (f32x4.ge s thrv))
//           for r in 0 .. 3: if (lane r of s >= thr) { i32.store (out + 8n) (row + r); f32.store (out + 8n + 4) (lane r); n++ }
//         row += 4; p += 4P
//       end end
//       n)
//     ;; float32 rows (stride P4 floats) against a float32 probe: writes every dot to `out`.
//     (func (export "dotF32") (param $q i32) (param $rows i32) (param $start i32) (param $end i32) (param $out i32)
//       ... the same loop with f32x4.mul / f32x4.add, two accumulators ...)
//     ;; scanI8 over 4-bit codes (rows of P/2 bytes): per 32 dimensions, 16 bytes read as eight i16
//     ;; lanes of four nibbles, nibble k of lane i being dimension 8k + i; nibble k as i16 is
//     ;; i16x8.shr_s (i16x8.shl w (12 - 4k)) 12, then i32x4.dot_i16x8_s with probe dims 8k .. 8k+7.
//     (func (export "scanI4") ... the signature of scanI8 ...)
//     ;; the 2-bit fast scan over blocks of 32 rows, i8x16.swizzle of a per-probe table (fastScanBody)
//     (func (export "scanFS") ... the signature of scanI8, the table in place of the probe, then
//           (param $errs i32) (param $eScale f32): each score raised by eScale x errs[row] ...)
//     ;; the 4-bit score of each row of a list (listI4Body)
//     (func (export "scoreI4List") (param $q i32) (param $codes i32) (param $scales i32) (param $list i32)
//           (param $count i32) (param $out i32)))

import { setFlagsFromString } from 'node:v8';
import {
  F32,
  I32,
  V128,
  f32x4Add,
  f32x4ConvertI32x4S,
  f32x4ExtractLane,
  f32x4Ge,
  f32x4Mul,
  f32x4Splat,
  funcBody,
  i16x8Add,
  i16x8ExtendHighI8x16S,
  i16x8ExtendLowI8x16S,
  i16x8Shl,
  i16x8ShrS,
  i16x8ShrU,
  i16x8Sub,
  i32x4Add,
  i32x4DotI16x8S,
  i32x4ExtendHighI16x8U,
  i32x4ExtendLowI16x8U,
  i32x4ExtractLane,
  i32x4Splat,
  i32x4Sub,
  i8x16Add,
  i8x16RelaxedSwizzle,
  i8x16Shuffle,
  i8x16Swizzle,
  name,
  op,
  section,
  uleb,
  v128AnyTrue,
  v128And,
  v128Const,
  v128Load,
  v128Xor,
  v128Zero,
  vec,
  sharedMemoryImport,
  wasmModule,
} from './wasm-assembler.js';

/**
 * scanI8(q, rows, scales, start, end, thr, out) -> count; see the text above. Four rows per turn:
 * each probe chunk is loaded once for the four, and the four sums are reduced, scaled and
 * compared together (one branch per four rows). `end - start` must be a multiple of 4.
 */
function scanBody(stride: number, nibbles: boolean): number[] {
  const rowBytes = nibbles ? stride / 2 : stride;
  const [q, rows, scales, start, end, thr, out] = [0, 1, 2, 3, 4, 5, 6];
  const [row, p, n] = [7, 8, 9];
  const [v, a0, a1, a2, a3, sv, qlo, qhi, thrv, qlo2, qhi2, w] = [10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21];
  const acc = [a0, a1, a2, a3];
  const code: number[] = [];
  code.push(...op.localGet(start), ...op.localSet(row));
  code.push(...op.localGet(rows), ...op.localGet(start), ...op.i32Const(rowBytes), op.i32Mul, op.i32Add, ...op.localSet(p));
  code.push(...op.i32Const(0), ...op.localSet(n));
  code.push(...op.localGet(thr), ...f32x4Splat(), ...op.localSet(thrv));
  code.push(op.block, op.void, op.loop, op.void);
  code.push(...op.localGet(row), ...op.localGet(end), op.i32GeU, op.brIf, 1);
  for (const x of acc) code.push(...v128Zero(), ...op.localSet(x));
  const dotInto = (x: number, qa: number, qb: number) => {
    // x += dot(low half of v as i16, qa) + dot(high half, qb), v (i8x16) on the stack
    code.push(
      ...op.localTee(v),
      ...i16x8ExtendLowI8x16S(),
      ...op.localGet(qa),
      ...i32x4DotI16x8S(),
      ...op.localGet(x),
      ...i32x4Add(),
    );
    code.push(
      ...op.localGet(v),
      ...i16x8ExtendHighI8x16S(),
      ...op.localGet(qb),
      ...i32x4DotI16x8S(),
      ...i32x4Add(),
      ...op.localSet(x),
    );
  };
  if (!nibbles) {
    for (let c = 0; c < stride / 16; c++) {
      code.push(...op.localGet(q), ...v128Load(32 * c), ...op.localSet(qlo));
      code.push(...op.localGet(q), ...v128Load(32 * c + 16), ...op.localSet(qhi));
      acc.forEach((x, r) => {
        code.push(...op.localGet(p), ...v128Load(r * rowBytes + 16 * c));
        dotInto(x, qlo, qhi);
      });
    }
  } else {
    // 16 bytes hold 32 dimensions as eight 16-bit lanes of four nibbles: nibble k of lane i is
    // dimension 8k + i. A lane shifted left by 12 - 4k then right (arithmetic) by 12 is that
    // nibble, sign-extended, as i16: native 16-bit shifts (x64 has no 8-bit ones).
    const qs = [qlo, qhi, qlo2, qhi2];
    for (let c = 0; c < stride / 32; c++) {
      qs.forEach((x, k) => code.push(...op.localGet(q), ...v128Load(64 * c + 16 * k), ...op.localSet(x)));
      acc.forEach((x, r) => {
        code.push(...op.localGet(p), ...v128Load(r * rowBytes + 16 * c), ...op.localSet(w));
        for (let k = 0; k < 4; k++) {
          code.push(...op.localGet(w));
          if (k < 3) code.push(...op.i32Const(12 - 4 * k), ...i16x8Shl());
          code.push(...op.i32Const(12), ...i16x8ShrS(), ...op.localGet(qs[k]!), ...i32x4DotI16x8S());
          code.push(...op.localGet(x), ...i32x4Add(), ...op.localSet(x));
        }
      });
    }
  }
  // [a0, a1, a2, a3] -> [sum a0, sum a1, sum a2, sum a3]
  const lanes = (...l: number[]) => l.flatMap((x) => [4 * x, 4 * x + 1, 4 * x + 2, 4 * x + 3]);
  code.push(...op.localGet(a0), ...op.localGet(a1), ...i8x16Shuffle(lanes(0, 1, 4, 5)));
  code.push(...op.localGet(a0), ...op.localGet(a1), ...i8x16Shuffle(lanes(2, 3, 6, 7)), ...i32x4Add(), ...op.localSet(a0));
  code.push(...op.localGet(a2), ...op.localGet(a3), ...i8x16Shuffle(lanes(0, 1, 4, 5)));
  code.push(...op.localGet(a2), ...op.localGet(a3), ...i8x16Shuffle(lanes(2, 3, 6, 7)), ...i32x4Add(), ...op.localSet(a2));
  code.push(...op.localGet(a0), ...op.localGet(a2), ...i8x16Shuffle(lanes(0, 2, 4, 6)));
  code.push(...op.localGet(a0), ...op.localGet(a2), ...i8x16Shuffle(lanes(1, 3, 5, 7)), ...i32x4Add());
  code.push(...f32x4ConvertI32x4S());
  code.push(...op.localGet(scales), ...op.localGet(row), ...op.i32Const(2), op.i32Shl, op.i32Add, ...v128Load(0));
  code.push(...f32x4Mul(), ...op.localTee(sv), ...op.localGet(thrv), ...f32x4Ge(), ...v128AnyTrue(), op.if, op.void);
  for (let r = 0; r < 4; r++) {
    code.push(...op.localGet(sv), ...f32x4ExtractLane(r), ...op.localGet(thr), op.f32Ge, op.if, op.void);
    code.push(...op.localGet(out), ...op.localGet(n), ...op.i32Const(3), op.i32Shl, op.i32Add);
    code.push(...op.localGet(row), ...op.i32Const(r), op.i32Add, ...op.i32Store(0));
    code.push(...op.localGet(out), ...op.localGet(n), ...op.i32Const(3), op.i32Shl, op.i32Add);
    code.push(...op.localGet(sv), ...f32x4ExtractLane(r), ...op.f32Store(4));
    code.push(...op.localGet(n), ...op.i32Const(1), op.i32Add, ...op.localSet(n));
    code.push(op.end);
  }
  code.push(op.end);
  code.push(...op.localGet(row), ...op.i32Const(4), op.i32Add, ...op.localSet(row));
  code.push(...op.localGet(p), ...op.i32Const(4 * rowBytes), op.i32Add, ...op.localSet(p));
  code.push(op.br, 0, op.end, op.end);
  code.push(...op.localGet(n));
  return funcBody(
    [
      [3, I32],
      [12, V128],
    ],
    code,
  );
}

/** Blocks the fast scan reads ahead (measured at 1M x 512: 0 -> 8 took the first pass from 9-11 ms to 7-8.5 ms). */
const AHEAD = 8;

/**
 * scanFS(lut, codes, scales, start, end, thr, out, errs, eScale) -> count: the 2-bit first pass
 * ("fast scan").
 * Codes are stored per block of 32 rows, transposed: for each pair of dimensions g (a 4-bit code,
 * two 2-bit levels), 16 bytes whose byte j holds row j's code (low nibble) and row 16 + j's (high
 * nibble). The probe is a table of 16 int8 partial dot products per pair (`lut`, 16 bytes per g,
 * entries within +-31), looked up for 16 rows at once by `i8x16.swizzle`.
 *
 * Per group of four pairs: the four lookups are added in int8 (exact: at most 124 in magnitude),
 * offset by 128 (`v128.xor` of the sign bit) to an unsigned byte, and accumulated two rows to a
 * 16-bit lane without widening: A += v (wrapping) and B += v >> 8, so that B is the odd rows' sum
 * and A - (B << 8) the even rows' (both below 2^16 for up to 256 groups). Each index is masked by
 * a constant 0x0f, so `relaxed` may use i8x16.relaxed_swizzle, whose result is then the same as
 * i8x16.swizzle's on every engine: V8 does not see the mask, and compiles i8x16.swizzle to a
 * saturating add (with a constant loaded for it) before each pshufb. Score =
 * (sum - 128 * groups) * scale[row] + eScale * errs[row] (the row's own error bound, f32 per row);
 * rows at or above `thr` go to `out` as in scanI8. `start` and `end` are multiples of 32; `pairs`
 * a multiple of 4, at most 1024.
 */
function fastScanBody(pairs: number, relaxed: boolean): number[] {
  const [lut, codes, scales, start, end, thr, out, errs, eScale] = [0, 1, 2, 3, 4, 5, 6, 7, 8];
  const [row, p, n, gp, lp, gEnd, pLast, ahead] = [9, 10, 11, 12, 13, 14, 15, 16];
  const [c, lo, hi, aLo, bLo, aHi, bHi, sv, thrv, ev, od, ev2] = [17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28];
  const groups = pairs / 4;
  if (pairs % 4 !== 0 || groups > 256) throw new Error('fast scan: pairs must be a multiple of 4, at most 1024');
  const blockBytes = pairs * 16;
  const mask = v128Const(new Array<number>(16).fill(0x0f));
  const signBit = v128Const(new Array<number>(16).fill(0x80));
  const code: number[] = [];
  code.push(...op.localGet(start), ...op.localSet(row));
  code.push(...op.localGet(codes), ...op.localGet(start), ...op.i32Const(5), op.i32ShrU);
  code.push(...op.i32Const(blockBytes), op.i32Mul, op.i32Add, ...op.localSet(p));
  code.push(...op.i32Const(0), ...op.localSet(n));
  code.push(...op.localGet(thr), ...f32x4Splat(), ...op.localSet(thrv));
  code.push(...op.localGet(eScale), ...f32x4Splat(), ...op.localSet(ev2));
  // The last block's address: the read ahead below stays within the rows scanned.
  code.push(...op.localGet(codes), ...op.localGet(end), ...op.i32Const(5), op.i32ShrU);
  code.push(...op.i32Const(blockBytes), op.i32Mul, op.i32Add, ...op.i32Const(blockBytes), op.i32Sub, ...op.localSet(pLast));
  code.push(op.block, op.void, op.loop, op.void);
  code.push(...op.localGet(row), ...op.localGet(end), op.i32GeU, op.brIf, 1);
  if (AHEAD > 0) {
    // One byte of the block AHEAD blocks on, read and dropped: the hardware prefetcher stops at
    // page boundaries (a block is a 4 KiB page at 512-d), so each page would start with a miss.
    code.push(...op.localGet(p), ...op.i32Const(AHEAD * blockBytes), op.i32Add, ...op.localTee(ahead));
    code.push(...op.localGet(pLast), ...op.localGet(ahead), ...op.localGet(pLast), op.i32LtU, op.select);
    code.push(...op.i32Load8U(0), op.drop);
  }
  for (const a of [aLo, bLo, aHi, bHi]) code.push(...v128Zero(), ...op.localSet(a));
  const accumulate = (v: number, a: number, b: number) => {
    code.push(
      ...op.localGet(v),
      ...signBit,
      ...v128Xor(),
      ...op.localTee(v),
      ...op.localGet(a),
      ...i16x8Add(),
      ...op.localSet(a),
    );
    code.push(...op.localGet(v), ...op.i32Const(8), ...i16x8ShrU(), ...op.localGet(b), ...i16x8Add(), ...op.localSet(b));
  };
  // The groups in a loop (`gp` walks the codes, `lp` the table): small enough for the optimising
  // compiler to keep everything in registers, where a fully unrolled body spilled.
  code.push(...op.localGet(p), ...op.localSet(gp), ...op.localGet(lut), ...op.localSet(lp));
  code.push(...op.localGet(p), ...op.i32Const(blockBytes), op.i32Add, ...op.localSet(gEnd));
  const swizzle = relaxed ? i8x16RelaxedSwizzle : i8x16Swizzle;
  code.push(op.loop, op.void);
  for (let g = 0; g < 4; g++) {
    // The pair's table is loaded once for both nibbles (`od` is free until the loop ends).
    code.push(...op.localGet(gp), ...v128Load(16 * g), ...op.localSet(c));
    code.push(...op.localGet(lp), ...v128Load(16 * g), ...op.localTee(od), ...op.localGet(c), ...mask, ...v128And());
    code.push(...swizzle());
    if (g > 0) code.push(...op.localGet(lo), ...i8x16Add());
    code.push(...op.localSet(lo));
    code.push(...op.localGet(od), ...op.localGet(c), ...op.i32Const(4), ...i16x8ShrU(), ...mask);
    code.push(...v128And(), ...swizzle());
    if (g > 0) code.push(...op.localGet(hi), ...i8x16Add());
    code.push(...op.localSet(hi));
  }
  accumulate(lo, aLo, bLo);
  accumulate(hi, aHi, bHi);
  code.push(...op.localGet(lp), ...op.i32Const(64), op.i32Add, ...op.localSet(lp));
  code.push(...op.localGet(gp), ...op.i32Const(64), op.i32Add, ...op.localTee(gp));
  code.push(...op.localGet(gEnd), op.i32LtU, op.brIf, 0, op.end);
  // Rows 0-15 from (aLo, bLo), 16-31 from (aHi, bHi): odd rows = B, even rows = A - (B << 8),
  // interleaved back into row order, eight rows per i16x8, four per f32x4.
  const bias = 128 * groups;
  const interleave = (half: number) =>
    i8x16Shuffle([0, 1, 16, 17, 2, 3, 18, 19, 4, 5, 20, 21, 6, 7, 22, 23].map((b) => b + 8 * half));
  [
    [aLo, bLo],
    [aHi, bHi],
  ].forEach(([a, b], h16) => {
    code.push(...op.localGet(a!), ...op.localGet(b!), ...op.i32Const(8), ...i16x8Shl(), ...i16x8Sub(), ...op.localSet(ev));
    code.push(...op.localGet(b!), ...op.localSet(od));
    for (let half = 0; half < 2; half++) {
      code.push(...op.localGet(ev), ...op.localGet(od), ...interleave(half), ...op.localSet(c));
      for (let q = 0; q < 2; q++) {
        const first = 16 * h16 + 8 * half + 4 * q;
        code.push(...op.localGet(c), ...(q === 0 ? i32x4ExtendLowI16x8U() : i32x4ExtendHighI16x8U()));
        code.push(...op.i32Const(bias), ...i32x4Splat(), ...i32x4Sub(), ...f32x4ConvertI32x4S());
        code.push(...op.localGet(scales), ...op.localGet(row), ...op.i32Const(2), op.i32Shl, op.i32Add, ...v128Load(4 * first));
        code.push(...f32x4Mul());
        // + eScale * err[row]: each row's own error bound (0 leaves the plain estimate)
        code.push(...op.localGet(errs), ...op.localGet(row), ...op.i32Const(2), op.i32Shl, op.i32Add, ...v128Load(4 * first));
        code.push(...op.localGet(ev2), ...f32x4Mul(), ...f32x4Add());
        code.push(...op.localTee(sv), ...op.localGet(thrv), ...f32x4Ge(), ...v128AnyTrue(), op.if, op.void);
        for (let r = 0; r < 4; r++) emitKeep(code, sv, r, first + r, { row, n, thr, out });
        code.push(op.end);
      }
    }
  });
  code.push(...op.localGet(row), ...op.i32Const(32), op.i32Add, ...op.localSet(row));
  code.push(...op.localGet(p), ...op.i32Const(blockBytes), op.i32Add, ...op.localSet(p));
  code.push(op.br, 0, op.end, op.end);
  code.push(...op.localGet(n));
  return funcBody(
    [
      [8, I32],
      [12, V128],
    ],
    code,
  );
}

/** if (lane `lane` of `sv` >= thr) { out[n] = (row + rowOffset, that lane); n++ } */
function emitKeep(
  code: number[],
  sv: number,
  lane: number,
  rowOffset: number,
  l: { row: number; n: number; thr: number; out: number },
): void {
  code.push(...op.localGet(sv), ...f32x4ExtractLane(lane), ...op.localGet(l.thr), op.f32Ge, op.if, op.void);
  code.push(...op.localGet(l.out), ...op.localGet(l.n), ...op.i32Const(3), op.i32Shl, op.i32Add);
  code.push(...op.localGet(l.row), ...op.i32Const(rowOffset), op.i32Add, ...op.i32Store(0));
  code.push(...op.localGet(l.out), ...op.localGet(l.n), ...op.i32Const(3), op.i32Shl, op.i32Add);
  code.push(...op.localGet(sv), ...f32x4ExtractLane(lane), ...op.f32Store(4));
  code.push(...op.localGet(l.n), ...op.i32Const(1), op.i32Add, ...op.localSet(l.n));
  code.push(op.end);
}

/** Rows of a list that scoreI4List reads ahead (4, 8 and 16 tried by hand: 8 was best). */
const LIST_AHEAD = 8;

/**
 * scoreI4List(q, codes, scales, list, count, out): out[i] = the 4-bit score of row list[i] (i32
 * rows, f32 scores), the scanI4 arithmetic one row at a time, for the second pass's candidates.
 */
function listI4Body(stride: number): number[] {
  const rowBytes = stride / 2;
  const [q, codes, scales, list, count, out] = [0, 1, 2, 3, 4, 5];
  const [i, row, p, ahead] = [6, 7, 8, 9];
  const [a, w, q0, q1, q2, q3] = [10, 11, 12, 13, 14, 15];
  const qs = [q0, q1, q2, q3];
  const code: number[] = [];
  code.push(...op.i32Const(0), ...op.localSet(i));
  code.push(op.block, op.void, op.loop, op.void);
  code.push(...op.localGet(i), ...op.localGet(count), op.i32GeU, op.brIf, 1);
  code.push(
    ...op.localGet(list),
    ...op.localGet(i),
    ...op.i32Const(2),
    op.i32Shl,
    op.i32Add,
    ...op.i32Load(0),
    ...op.localSet(row),
  );
  code.push(...op.localGet(codes), ...op.localGet(row), ...op.i32Const(rowBytes), op.i32Mul, op.i32Add, ...op.localSet(p));
  // One byte of each cache line of the row LIST_AHEAD places on, read and dropped: the rows are
  // scattered, so no hardware prefetcher fetches them, and this keeps several misses in flight.
  code.push(...op.localGet(i), ...op.i32Const(LIST_AHEAD), op.i32Add, ...op.localTee(ahead));
  code.push(
    ...op.localGet(count),
    ...op.i32Const(1),
    op.i32Sub,
    ...op.localGet(ahead),
    ...op.localGet(count),
    op.i32LtU,
    op.select,
  );
  code.push(...op.i32Const(2), op.i32Shl, ...op.localGet(list), op.i32Add, ...op.i32Load(0));
  code.push(...op.i32Const(rowBytes), op.i32Mul, ...op.localGet(codes), op.i32Add, ...op.localSet(ahead));
  for (let at = 0; at < rowBytes; at += 64) code.push(...op.localGet(ahead), ...op.i32Load8U(at), op.drop);
  code.push(...v128Zero(), ...op.localSet(a));
  for (let c = 0; c < stride / 32; c++) {
    qs.forEach((x, k) => code.push(...op.localGet(q), ...v128Load(64 * c + 16 * k), ...op.localSet(x)));
    code.push(...op.localGet(p), ...v128Load(16 * c), ...op.localSet(w));
    for (let k = 0; k < 4; k++) {
      code.push(...op.localGet(w));
      if (k < 3) code.push(...op.i32Const(12 - 4 * k), ...i16x8Shl());
      code.push(...op.i32Const(12), ...i16x8ShrS(), ...op.localGet(qs[k]!), ...i32x4DotI16x8S());
      code.push(...op.localGet(a), ...i32x4Add(), ...op.localSet(a));
    }
  }
  // out[i] = f32(sum of the lanes of a) * scales[row]
  code.push(...op.localGet(out), ...op.localGet(i), ...op.i32Const(2), op.i32Shl, op.i32Add);
  code.push(...op.localGet(a), ...i32x4ExtractLane(0), ...op.localGet(a), ...i32x4ExtractLane(1), op.i32Add);
  code.push(...op.localGet(a), ...i32x4ExtractLane(2), op.i32Add, ...op.localGet(a), ...i32x4ExtractLane(3), op.i32Add);
  code.push(op.f32ConvertI32S);
  code.push(...op.localGet(scales), ...op.localGet(row), ...op.i32Const(2), op.i32Shl, op.i32Add, ...op.f32Load(0), op.f32Mul);
  code.push(...op.f32Store(0));
  code.push(...op.localGet(i), ...op.i32Const(1), op.i32Add, ...op.localSet(i));
  code.push(op.br, 0, op.end, op.end);
  return funcBody(
    [
      [4, I32],
      [6, V128],
    ],
    code,
  );
}

/** dotF32(q, rows, start, end, out): out[i - start] = dot(q, row i), rows of `stride` floats. */
function dotF32Body(stride: number): number[] {
  const [q, rows, start, end, out] = [0, 1, 2, 3, 4];
  const [row, p, o, a, b] = [5, 6, 7, 8, 9];
  const bytes = stride * 4;
  const code: number[] = [];
  code.push(...op.localGet(start), ...op.localSet(row));
  code.push(...op.localGet(rows), ...op.localGet(start), ...op.i32Const(bytes), op.i32Mul, op.i32Add, ...op.localSet(p));
  code.push(...op.localGet(out), ...op.localSet(o));
  code.push(op.block, op.void, op.loop, op.void);
  code.push(...op.localGet(row), ...op.localGet(end), op.i32GeU, op.brIf, 1);
  code.push(...v128Zero(), ...op.localSet(a), ...v128Zero(), ...op.localSet(b));
  for (let c = 0; c < stride / 4; c++) {
    const acc = c % 2 === 0 ? a : b;
    code.push(...op.localGet(acc), ...op.localGet(p), ...v128Load(16 * c), ...op.localGet(q), ...v128Load(16 * c));
    code.push(...f32x4Mul(), ...f32x4Add(), ...op.localSet(acc));
  }
  code.push(...op.localGet(o), ...op.localGet(a), ...op.localGet(b), ...f32x4Add(), ...op.localTee(a), ...f32x4ExtractLane(0));
  for (let lane = 1; lane < 4; lane++) code.push(...op.localGet(a), ...f32x4ExtractLane(lane), op.f32Add);
  code.push(...op.f32Store(0));
  code.push(...op.localGet(row), ...op.i32Const(1), op.i32Add, ...op.localSet(row));
  code.push(...op.localGet(p), ...op.i32Const(bytes), op.i32Add, ...op.localSet(p));
  code.push(...op.localGet(o), ...op.i32Const(4), op.i32Add, ...op.localSet(o));
  code.push(op.br, 0, op.end, op.end);
  return funcBody(
    [
      [3, I32],
      [2, V128],
    ],
    code,
  );
}

/** (module (func (param v128 v128) (result v128) local.get 0 local.get 1 i8x16.relaxed_swizzle)) */
const RELAXED_PROBE = wasmModule(
  section(1, vec([[0x60, ...vec([[V128], [V128]]), ...vec([[V128]])]])),
  section(3, vec([uleb(0)])),
  section(10, vec([funcBody([], [...op.localGet(0), ...op.localGet(1), ...i8x16RelaxedSwizzle()])])),
);

let relaxedSupport: boolean | undefined;

/**
 * Whether this engine compiles relaxed SIMD. Node 20's V8 has it behind a flag, which is turned on
 * here: the flag is process-wide, but it only adds instructions that no other module uses unless
 * it asks for them (Node 22 and Electron have them on by default). False where neither works.
 */
export function relaxedSimd(): boolean {
  if (relaxedSupport === undefined) {
    relaxedSupport = wasm.validate(RELAXED_PROBE);
    if (!relaxedSupport) {
      try {
        setFlagsFromString('--experimental-wasm-relaxed-simd');
        relaxedSupport = wasm.validate(RELAXED_PROBE);
      } catch {
        // An engine whose flags can no longer be set: the plain swizzle serves.
      }
    }
  }
  return relaxedSupport;
}

/**
 * The module's bytes for int8 rows of `strideI8` bytes (a multiple of 16) and float32 rows of
 * `strideF32` floats (a multiple of 4); `relaxed`: the fast scan's lookups by relaxed swizzle.
 */
export function kernelModuleBytes(strideI8: number, strideF32: number, relaxed = relaxedSimd()): Uint8Array {
  if (strideI8 % 32 !== 0 || strideF32 % 4 !== 0) throw new Error('int8 stride: a multiple of 32; float32: of 4');
  // Asked for explicitly (tests), relaxed SIMD still needs its flag turned on first.
  if (relaxed && !relaxedSimd()) throw new Error('relaxed SIMD: not available on this engine');
  const types = section(1, [
    ...uleb(4),
    ...[0x60, ...vec([[I32], [I32], [I32], [I32], [I32], [F32], [I32]]), ...vec([[I32]])],
    ...[0x60, ...vec([[I32], [I32], [I32], [I32], [I32]]), ...vec([])],
    ...[0x60, ...vec([[I32], [I32], [I32], [I32], [I32], [I32]]), ...vec([])],
    ...[0x60, ...vec([[I32], [I32], [I32], [I32], [I32], [F32], [I32], [I32], [F32]]), ...vec([[I32]])],
  ]);
  // Past 1024 pairs the fast scan's 16-bit sums could overflow: such rows (beyond 2048 dimensions)
  // are scanned at 4 bits, and the fast scan compiled for 1024 pairs is never called.
  const pairs = Math.min(1024, strideI8 / 2);
  // (import "env" "memory" (memory 1 65536 shared)): limits flag 3 = shared with a maximum.
  const imports = sharedMemoryImport();
  const funcs = section(3, vec([uleb(0), uleb(1), uleb(0), uleb(3), uleb(2)]));
  const exports = section(
    7,
    vec([
      [...name('scanI8'), 0x00, ...uleb(0)],
      [...name('dotF32'), 0x00, ...uleb(1)],
      [...name('scanI4'), 0x00, ...uleb(2)],
      [...name('scanFS'), 0x00, ...uleb(3)],
      [...name('scoreI4List'), 0x00, ...uleb(4)],
    ]),
  );
  const code = section(10, [
    ...uleb(5),
    ...scanBody(strideI8, false),
    ...dotF32Body(strideF32),
    ...scanBody(strideI8, true),
    ...fastScanBody(pairs, relaxed),
    ...listI4Body(strideI8),
  ]);
  return wasmModule(types, imports, funcs, exports, code);
}

export interface Kernel {
  scanI8(q: number, rows: number, scales: number, start: number, end: number, thr: number, out: number): number;
  /** The same over 4-bit codes (rows of strideI8 / 2 bytes), for a coarse first pass. */
  scanI4(q: number, rows: number, scales: number, start: number, end: number, thr: number, out: number): number;
  dotF32(q: number, rows: number, start: number, end: number, out: number): void;
  /**
   * The 2-bit first pass over blocks of 32 rows (see fastScanBody); `lut` is the probe's table.
   * Each row's score is raised by `eScale` times its error at `errs` (f32 per row).
   */
  scanFS(
    lut: number,
    codes: number,
    scales: number,
    start: number,
    end: number,
    thr: number,
    out: number,
    errs: number,
    eScale: number,
  ): number;
  /** The 4-bit score of each row in a list (i32 rows at `list`, f32 scores to `out`). */
  scoreI4List(q: number, codes: number, scales: number, list: number, count: number, out: number): void;
}

/** The parts of the WebAssembly JS API used here (the project's `lib` has no DOM types). */
export interface WasmMemory {
  readonly buffer: SharedArrayBuffer;
  grow(pages: number): number;
}
export type WasmModule = { readonly __wasmModule: unique symbol };
interface WasmApi {
  Module: new (bytes: Uint8Array) => WasmModule;
  Instance: new (module: WasmModule, imports: object) => { exports: unknown };
  Memory: new (descriptor: { initial: number; maximum: number; shared: boolean }) => WasmMemory;
  validate(bytes: Uint8Array): boolean;
}
export const wasm = (globalThis as unknown as { WebAssembly: WasmApi }).WebAssembly;

const compiled = new Map<string, WasmModule>();

/** A compiled kernel module, cached per strides (compiling is synchronous and takes about a millisecond). */
export function kernelModule(strideI8: number, strideF32: number, relaxed = relaxedSimd()): WasmModule {
  const key = `${strideI8}/${strideF32}/${relaxed}`;
  let mod = compiled.get(key);
  if (!mod) {
    mod = new wasm.Module(kernelModuleBytes(strideI8, strideF32, relaxed));
    compiled.set(key, mod);
  }
  return mod;
}

export function instantiateKernel(mod: WasmModule, memory: WasmMemory): Kernel {
  const instance = new wasm.Instance(mod, { env: { memory } });
  return instance.exports as Kernel;
}

/** Pages of 64 KiB; the most a 32-bit memory can address. */
export const WASM_PAGE = 65536;
export const WASM_MAX_PAGES = 65536;
