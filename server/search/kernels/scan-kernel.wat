;; Our own kernels because no library scans these codes: their layout (2-bit blocks of 32 rows, 4-bit
;; nibble lanes, per-row scales and error bounds) is the index's own, and every score must match the C's.
;; The search index's scan kernels in SIMD WebAssembly (docs/search-index.md, "Kernels"). Compiled
;; by `npm run build:server` (scripts/build-native.js, with wabt's wat2wasm) into
;; dist/server/search/kernels/scan-kernel.wasm and, with every i8x16.swizzle written as
;; i8x16.relaxed_swizzle, scan-kernel-relaxed.wasm; loaded by wasm-kernel.ts. The native fast scan
;; and list scoring (native/search-kernels.c) compute the same integer sums and float steps: every
;; score is bit-identical (native-kernels.test.ts).
;;
;; The module imports the index's memory (shared between the threads that scan) and its row widths,
;; set per instance: $stride the padded dimension (a multiple of 32: int8 rows of $stride bytes,
;; 4-bit rows of $stride / 2), $strideF32 the float32 rows' floats (a multiple of 4), and $pairs the
;; fast scan's pairs of dimensions per row (min(1024, $stride / 2); a multiple of 4).
;; Every scan writes (row i32, score f32) to `out` for each row whose score is >= `thr` and returns
;; the count. A tombstoned row (or a row past the end) has scale NaN, so it never passes.
(module
  (import "env" "memory" (memory 1 65536 shared))
  (import "env" "stride" (global $stride i32))
  (import "env" "strideF32" (global $strideF32 i32))
  (import "env" "pairs" (global $pairs i32))

  ;; The rows of `scores` (four lanes, rows row .. row + 3) at or above `thr`, appended to `out`
  ;; after its first `n` entries; returns the new count. Called only when a lane passes.
  (func $keep4 (param $scores v128) (param $row i32) (param $thr f32) (param $out i32) (param $n i32) (result i32)
    (if (f32.ge (f32x4.extract_lane 0 (local.get $scores)) (local.get $thr))
      (then
        (i32.store (i32.add (local.get $out) (i32.shl (local.get $n) (i32.const 3))) (local.get $row))
        (f32.store offset=4 (i32.add (local.get $out) (i32.shl (local.get $n) (i32.const 3)))
          (f32x4.extract_lane 0 (local.get $scores)))
        (local.set $n (i32.add (local.get $n) (i32.const 1)))))
    (if (f32.ge (f32x4.extract_lane 1 (local.get $scores)) (local.get $thr))
      (then
        (i32.store (i32.add (local.get $out) (i32.shl (local.get $n) (i32.const 3))) (i32.add (local.get $row) (i32.const 1)))
        (f32.store offset=4 (i32.add (local.get $out) (i32.shl (local.get $n) (i32.const 3)))
          (f32x4.extract_lane 1 (local.get $scores)))
        (local.set $n (i32.add (local.get $n) (i32.const 1)))))
    (if (f32.ge (f32x4.extract_lane 2 (local.get $scores)) (local.get $thr))
      (then
        (i32.store (i32.add (local.get $out) (i32.shl (local.get $n) (i32.const 3))) (i32.add (local.get $row) (i32.const 2)))
        (f32.store offset=4 (i32.add (local.get $out) (i32.shl (local.get $n) (i32.const 3)))
          (f32x4.extract_lane 2 (local.get $scores)))
        (local.set $n (i32.add (local.get $n) (i32.const 1)))))
    (if (f32.ge (f32x4.extract_lane 3 (local.get $scores)) (local.get $thr))
      (then
        (i32.store (i32.add (local.get $out) (i32.shl (local.get $n) (i32.const 3))) (i32.add (local.get $row) (i32.const 3)))
        (f32.store offset=4 (i32.add (local.get $out) (i32.shl (local.get $n) (i32.const 3)))
          (f32x4.extract_lane 3 (local.get $scores)))
        (local.set $n (i32.add (local.get $n) (i32.const 1)))))
    (local.get $n))

  ;; scanI8(q, rows, scales, start, end, thr, out) -> count: int8 rows against an int16 probe (2 x
  ;; $stride bytes at q); score = f32(dot) * scale[row]. Four rows a turn (`end - start` a multiple
  ;; of 4): each probe chunk is loaded once for the four, and their sums are reduced, scaled and
  ;; compared together (one branch per four rows).
  (func (export "scanI8") (param $q i32) (param $rows i32) (param $scales i32) (param $start i32)
        (param $end i32) (param $thr f32) (param $out i32) (result i32)
    (local $row i32) (local $p i32) (local $n i32) (local $rowBytes i32) (local $qc i32) (local $qEnd i32)
    (local $p0 i32) (local $p1 i32) (local $p2 i32) (local $p3 i32)
    (local $v v128) (local $a0 v128) (local $a1 v128) (local $a2 v128) (local $a3 v128)
    (local $s v128) (local $qlo v128) (local $qhi v128) (local $thrv v128)
    (local.set $rowBytes (global.get $stride))
    (local.set $row (local.get $start))
    (local.set $p (i32.add (local.get $rows) (i32.mul (local.get $start) (local.get $rowBytes))))
    (local.set $thrv (f32x4.splat (local.get $thr)))
    (block $done
      (loop $four
        (br_if $done (i32.ge_u (local.get $row) (local.get $end)))
        (local.set $a0 (v128.const i32x4 0 0 0 0))
        (local.set $a1 (v128.const i32x4 0 0 0 0))
        (local.set $a2 (v128.const i32x4 0 0 0 0))
        (local.set $a3 (v128.const i32x4 0 0 0 0))
        (local.set $p0 (local.get $p))
        (local.set $p1 (i32.add (local.get $p0) (local.get $rowBytes)))
        (local.set $p2 (i32.add (local.get $p1) (local.get $rowBytes)))
        (local.set $p3 (i32.add (local.get $p2) (local.get $rowBytes)))
        (local.set $qc (local.get $q))
        (local.set $qEnd (i32.add (local.get $q) (i32.shl (local.get $rowBytes) (i32.const 1))))
        ;; 16 dimensions a turn: the probe's 16 int16 in qlo, qhi; each row's 16 int8 widened.
        (loop $chunk
          (local.set $qlo (v128.load (local.get $qc)))
          (local.set $qhi (v128.load offset=16 (local.get $qc)))
          (local.set $v (v128.load (local.get $p0)))
          (local.set $a0 (i32x4.add
            (i32x4.add (i32x4.dot_i16x8_s (i16x8.extend_low_i8x16_s (local.get $v)) (local.get $qlo)) (local.get $a0))
            (i32x4.dot_i16x8_s (i16x8.extend_high_i8x16_s (local.get $v)) (local.get $qhi))))
          (local.set $v (v128.load (local.get $p1)))
          (local.set $a1 (i32x4.add
            (i32x4.add (i32x4.dot_i16x8_s (i16x8.extend_low_i8x16_s (local.get $v)) (local.get $qlo)) (local.get $a1))
            (i32x4.dot_i16x8_s (i16x8.extend_high_i8x16_s (local.get $v)) (local.get $qhi))))
          (local.set $v (v128.load (local.get $p2)))
          (local.set $a2 (i32x4.add
            (i32x4.add (i32x4.dot_i16x8_s (i16x8.extend_low_i8x16_s (local.get $v)) (local.get $qlo)) (local.get $a2))
            (i32x4.dot_i16x8_s (i16x8.extend_high_i8x16_s (local.get $v)) (local.get $qhi))))
          (local.set $v (v128.load (local.get $p3)))
          (local.set $a3 (i32x4.add
            (i32x4.add (i32x4.dot_i16x8_s (i16x8.extend_low_i8x16_s (local.get $v)) (local.get $qlo)) (local.get $a3))
            (i32x4.dot_i16x8_s (i16x8.extend_high_i8x16_s (local.get $v)) (local.get $qhi))))
          (local.set $p0 (i32.add (local.get $p0) (i32.const 16)))
          (local.set $p1 (i32.add (local.get $p1) (i32.const 16)))
          (local.set $p2 (i32.add (local.get $p2) (i32.const 16)))
          (local.set $p3 (i32.add (local.get $p3) (i32.const 16)))
          (local.set $qc (i32.add (local.get $qc) (i32.const 32)))
          (br_if $chunk (i32.lt_u (local.get $qc) (local.get $qEnd))))
        (local.set $s (f32x4.mul
          (f32x4.convert_i32x4_s (i32x4.add
            (i8x16.shuffle 0 1 2 3 8 9 10 11 16 17 18 19 24 25 26 27
              (local.tee $a0 (i32x4.add
                (i8x16.shuffle 0 1 2 3 4 5 6 7 16 17 18 19 20 21 22 23 (local.get $a0) (local.get $a1))
                (i8x16.shuffle 8 9 10 11 12 13 14 15 24 25 26 27 28 29 30 31 (local.get $a0) (local.get $a1))))
              (local.tee $a2 (i32x4.add
                (i8x16.shuffle 0 1 2 3 4 5 6 7 16 17 18 19 20 21 22 23 (local.get $a2) (local.get $a3))
                (i8x16.shuffle 8 9 10 11 12 13 14 15 24 25 26 27 28 29 30 31 (local.get $a2) (local.get $a3)))))
            (i8x16.shuffle 4 5 6 7 12 13 14 15 20 21 22 23 28 29 30 31 (local.get $a0) (local.get $a2))))
          (v128.load (i32.add (local.get $scales) (i32.shl (local.get $row) (i32.const 2))))))
        (if (v128.any_true (f32x4.ge (local.get $s) (local.get $thrv)))
          (then (local.set $n (call $keep4 (local.get $s) (local.get $row) (local.get $thr) (local.get $out) (local.get $n)))))
        (local.set $row (i32.add (local.get $row) (i32.const 4)))
        (local.set $p (i32.add (local.get $p) (i32.shl (local.get $rowBytes) (i32.const 2))))
        (br $four)))
    (local.get $n))

  ;; The sum of one row's 16 bytes of 4-bit codes (32 dimensions) against the probe's 32 int16 in
  ;; q0 .. q3, added to `acc`. The 16 bytes are eight i16 lanes of four nibbles, nibble k of lane i
  ;; being dimension 8k + i: a lane shifted left by 12 - 4k, then right (arithmetic) by 12, is that
  ;; nibble sign-extended (native 16-bit shifts: x64 has no 8-bit ones).
  ;; (Written out in scanI4 and scoreI4List: a call per 32 dimensions would cost more than its work.)

  ;; scanI4(q, rows, scales, start, end, thr, out) -> count: scanI8 over 4-bit codes, rows of
  ;; $stride / 2 bytes.
  (func (export "scanI4") (param $q i32) (param $rows i32) (param $scales i32) (param $start i32)
        (param $end i32) (param $thr f32) (param $out i32) (result i32)
    (local $row i32) (local $p i32) (local $n i32) (local $rowBytes i32) (local $qc i32) (local $qEnd i32)
    (local $p0 i32) (local $p1 i32) (local $p2 i32) (local $p3 i32)
    (local $w v128) (local $a0 v128) (local $a1 v128) (local $a2 v128) (local $a3 v128)
    (local $s v128) (local $q0 v128) (local $q1 v128) (local $q2 v128) (local $q3 v128) (local $thrv v128)
    (local.set $rowBytes (i32.shr_u (global.get $stride) (i32.const 1)))
    (local.set $row (local.get $start))
    (local.set $p (i32.add (local.get $rows) (i32.mul (local.get $start) (local.get $rowBytes))))
    (local.set $thrv (f32x4.splat (local.get $thr)))
    (block $done
      (loop $four
        (br_if $done (i32.ge_u (local.get $row) (local.get $end)))
        (local.set $a0 (v128.const i32x4 0 0 0 0))
        (local.set $a1 (v128.const i32x4 0 0 0 0))
        (local.set $a2 (v128.const i32x4 0 0 0 0))
        (local.set $a3 (v128.const i32x4 0 0 0 0))
        (local.set $p0 (local.get $p))
        (local.set $p1 (i32.add (local.get $p0) (local.get $rowBytes)))
        (local.set $p2 (i32.add (local.get $p1) (local.get $rowBytes)))
        (local.set $p3 (i32.add (local.get $p2) (local.get $rowBytes)))
        (local.set $qc (local.get $q))
        (local.set $qEnd (i32.add (local.get $q) (i32.shl (local.get $rowBytes) (i32.const 2))))
        ;; 32 dimensions a turn: 64 bytes of probe, 16 bytes of each row.
        (loop $chunk
          (local.set $q0 (v128.load (local.get $qc)))
          (local.set $q1 (v128.load offset=16 (local.get $qc)))
          (local.set $q2 (v128.load offset=32 (local.get $qc)))
          (local.set $q3 (v128.load offset=48 (local.get $qc)))
          (local.set $w (v128.load (local.get $p0)))
          (local.set $a0 (i32x4.add (i32x4.dot_i16x8_s (i16x8.shr_s (i16x8.shl (local.get $w) (i32.const 12)) (i32.const 12)) (local.get $q0)) (local.get $a0)))
          (local.set $a0 (i32x4.add (i32x4.dot_i16x8_s (i16x8.shr_s (i16x8.shl (local.get $w) (i32.const 8)) (i32.const 12)) (local.get $q1)) (local.get $a0)))
          (local.set $a0 (i32x4.add (i32x4.dot_i16x8_s (i16x8.shr_s (i16x8.shl (local.get $w) (i32.const 4)) (i32.const 12)) (local.get $q2)) (local.get $a0)))
          (local.set $a0 (i32x4.add (i32x4.dot_i16x8_s (i16x8.shr_s (local.get $w) (i32.const 12)) (local.get $q3)) (local.get $a0)))
          (local.set $w (v128.load (local.get $p1)))
          (local.set $a1 (i32x4.add (i32x4.dot_i16x8_s (i16x8.shr_s (i16x8.shl (local.get $w) (i32.const 12)) (i32.const 12)) (local.get $q0)) (local.get $a1)))
          (local.set $a1 (i32x4.add (i32x4.dot_i16x8_s (i16x8.shr_s (i16x8.shl (local.get $w) (i32.const 8)) (i32.const 12)) (local.get $q1)) (local.get $a1)))
          (local.set $a1 (i32x4.add (i32x4.dot_i16x8_s (i16x8.shr_s (i16x8.shl (local.get $w) (i32.const 4)) (i32.const 12)) (local.get $q2)) (local.get $a1)))
          (local.set $a1 (i32x4.add (i32x4.dot_i16x8_s (i16x8.shr_s (local.get $w) (i32.const 12)) (local.get $q3)) (local.get $a1)))
          (local.set $w (v128.load (local.get $p2)))
          (local.set $a2 (i32x4.add (i32x4.dot_i16x8_s (i16x8.shr_s (i16x8.shl (local.get $w) (i32.const 12)) (i32.const 12)) (local.get $q0)) (local.get $a2)))
          (local.set $a2 (i32x4.add (i32x4.dot_i16x8_s (i16x8.shr_s (i16x8.shl (local.get $w) (i32.const 8)) (i32.const 12)) (local.get $q1)) (local.get $a2)))
          (local.set $a2 (i32x4.add (i32x4.dot_i16x8_s (i16x8.shr_s (i16x8.shl (local.get $w) (i32.const 4)) (i32.const 12)) (local.get $q2)) (local.get $a2)))
          (local.set $a2 (i32x4.add (i32x4.dot_i16x8_s (i16x8.shr_s (local.get $w) (i32.const 12)) (local.get $q3)) (local.get $a2)))
          (local.set $w (v128.load (local.get $p3)))
          (local.set $a3 (i32x4.add (i32x4.dot_i16x8_s (i16x8.shr_s (i16x8.shl (local.get $w) (i32.const 12)) (i32.const 12)) (local.get $q0)) (local.get $a3)))
          (local.set $a3 (i32x4.add (i32x4.dot_i16x8_s (i16x8.shr_s (i16x8.shl (local.get $w) (i32.const 8)) (i32.const 12)) (local.get $q1)) (local.get $a3)))
          (local.set $a3 (i32x4.add (i32x4.dot_i16x8_s (i16x8.shr_s (i16x8.shl (local.get $w) (i32.const 4)) (i32.const 12)) (local.get $q2)) (local.get $a3)))
          (local.set $a3 (i32x4.add (i32x4.dot_i16x8_s (i16x8.shr_s (local.get $w) (i32.const 12)) (local.get $q3)) (local.get $a3)))
          (local.set $p0 (i32.add (local.get $p0) (i32.const 16)))
          (local.set $p1 (i32.add (local.get $p1) (i32.const 16)))
          (local.set $p2 (i32.add (local.get $p2) (i32.const 16)))
          (local.set $p3 (i32.add (local.get $p3) (i32.const 16)))
          (local.set $qc (i32.add (local.get $qc) (i32.const 64)))
          (br_if $chunk (i32.lt_u (local.get $qc) (local.get $qEnd))))
        (local.set $s (f32x4.mul
          (f32x4.convert_i32x4_s (i32x4.add
            (i8x16.shuffle 0 1 2 3 8 9 10 11 16 17 18 19 24 25 26 27
              (local.tee $a0 (i32x4.add
                (i8x16.shuffle 0 1 2 3 4 5 6 7 16 17 18 19 20 21 22 23 (local.get $a0) (local.get $a1))
                (i8x16.shuffle 8 9 10 11 12 13 14 15 24 25 26 27 28 29 30 31 (local.get $a0) (local.get $a1))))
              (local.tee $a2 (i32x4.add
                (i8x16.shuffle 0 1 2 3 4 5 6 7 16 17 18 19 20 21 22 23 (local.get $a2) (local.get $a3))
                (i8x16.shuffle 8 9 10 11 12 13 14 15 24 25 26 27 28 29 30 31 (local.get $a2) (local.get $a3)))))
            (i8x16.shuffle 4 5 6 7 12 13 14 15 20 21 22 23 28 29 30 31 (local.get $a0) (local.get $a2))))
          (v128.load (i32.add (local.get $scales) (i32.shl (local.get $row) (i32.const 2))))))
        (if (v128.any_true (f32x4.ge (local.get $s) (local.get $thrv)))
          (then (local.set $n (call $keep4 (local.get $s) (local.get $row) (local.get $thr) (local.get $out) (local.get $n)))))
        (local.set $row (i32.add (local.get $row) (i32.const 4)))
        (local.set $p (i32.add (local.get $p) (i32.shl (local.get $rowBytes) (i32.const 2))))
        (br $four)))
    (local.get $n))

  ;; dotF32(q, rows, start, end, out): out[i - start] = dot(q, row i), float32 rows of $strideF32
  ;; floats, four floats a step into two accumulators in turn (even steps a, odd steps b), then
  ;; ((a + b) lane 0 + lane 1) + lane 2 + lane 3.
  (func (export "dotF32") (param $q i32) (param $rows i32) (param $start i32) (param $end i32) (param $out i32)
    (local $row i32) (local $p i32) (local $o i32) (local $bytes i32) (local $c i32) (local $cEnd i32) (local $c2End i32)
    (local $a v128) (local $b v128)
    (local.set $bytes (i32.shl (global.get $strideF32) (i32.const 2)))
    (local.set $row (local.get $start))
    (local.set $p (i32.add (local.get $rows) (i32.mul (local.get $start) (local.get $bytes))))
    (local.set $o (local.get $out))
    (local.set $cEnd (local.get $bytes))
    ;; the last even step that has an odd step after it
    (local.set $c2End (i32.and (local.get $bytes) (i32.const -32)))
    (block $done
      (loop $rowLoop
        (br_if $done (i32.ge_u (local.get $row) (local.get $end)))
        (local.set $a (v128.const i32x4 0 0 0 0))
        (local.set $b (v128.const i32x4 0 0 0 0))
        (local.set $c (i32.const 0))
        (block $pairsDone
          (loop $steps
            (br_if $pairsDone (i32.ge_u (local.get $c) (local.get $c2End)))
            (local.set $a (f32x4.add (local.get $a)
              (f32x4.mul (v128.load (i32.add (local.get $p) (local.get $c))) (v128.load (i32.add (local.get $q) (local.get $c))))))
            (local.set $b (f32x4.add (local.get $b)
              (f32x4.mul (v128.load offset=16 (i32.add (local.get $p) (local.get $c))) (v128.load offset=16 (i32.add (local.get $q) (local.get $c))))))
            (local.set $c (i32.add (local.get $c) (i32.const 32)))
            (br $steps)))
        (if (i32.lt_u (local.get $c) (local.get $cEnd))
          (then
            (local.set $a (f32x4.add (local.get $a)
              (f32x4.mul (v128.load (i32.add (local.get $p) (local.get $c))) (v128.load (i32.add (local.get $q) (local.get $c))))))))
        (local.set $a (f32x4.add (local.get $a) (local.get $b)))
        (f32.store (local.get $o)
          (f32.add
            (f32.add
              (f32.add (f32x4.extract_lane 0 (local.get $a)) (f32x4.extract_lane 1 (local.get $a)))
              (f32x4.extract_lane 2 (local.get $a)))
            (f32x4.extract_lane 3 (local.get $a))))
        (local.set $row (i32.add (local.get $row) (i32.const 1)))
        (local.set $p (i32.add (local.get $p) (local.get $bytes)))
        (local.set $o (i32.add (local.get $o) (i32.const 4)))
        (br $rowLoop))))
  ;; scanFS(lut, codes, scales, start, end, thr, out, errs, eScale) -> count: the 2-bit first pass
  ;; ("fast scan"). Codes are stored per block of 32 rows, transposed: for each pair of dimensions g
  ;; (a 4-bit code, two 2-bit levels), 16 bytes whose byte j holds row j's code (low nibble) and row
  ;; 16 + j's (high nibble). The probe is a table of 16 int8 partial dot products per pair (`lut`,
  ;; 16 bytes per g, entries within +-31), looked up for 16 rows at once by a swizzle.
  ;;
  ;; Per group of four pairs: the four lookups are added in int8 (exact: at most 124 in magnitude),
  ;; offset by 128 (v128.xor of the sign bit) to an unsigned byte, and accumulated two rows to a
  ;; 16-bit lane without widening: A += v (wrapping) and B += v >> 8, so that B is the odd rows' sum
  ;; and A - (B << 8) the even rows' (both below 2^16 for up to 256 groups). Each index is masked by
  ;; a constant 0x0f, so the relaxed build's i8x16.relaxed_swizzle gives the same result as
  ;; i8x16.swizzle on every engine (V8 compiles i8x16.swizzle to a saturating add, with a constant
  ;; loaded for it, before each pshufb; the relaxed one to pshufb alone). Score =
  ;; f32(sum - 128 x groups) x scale[row] + eScale x errs[row] (the row's own error bound, f32 per
  ;; row), each step rounded to f32. `start` and `end` are multiples of 32.
  (func (export "scanFS") (param $lut i32) (param $codes i32) (param $scales i32) (param $start i32)
        (param $end i32) (param $thr f32) (param $out i32) (param $errs i32) (param $eScale f32) (result i32)
    (local $row i32) (local $p i32) (local $n i32) (local $gp i32) (local $lp i32) (local $gEnd i32)
    (local $pLast i32) (local $ahead i32) (local $blockBytes i32) (local $sAt i32) (local $eAt i32)
    (local $c v128) (local $lo v128) (local $hi v128) (local $aLo v128) (local $bLo v128) (local $aHi v128)
    (local $bHi v128) (local $sv v128) (local $thrv v128) (local $ev v128) (local $od v128) (local $ev2 v128)
    (local $biasv v128)
    (local.set $blockBytes (i32.shl (global.get $pairs) (i32.const 4)))
    ;; 128 x groups of four pairs
    (local.set $biasv (i32x4.splat (i32.shl (global.get $pairs) (i32.const 5))))
    (local.set $row (local.get $start))
    (local.set $p (i32.add (local.get $codes) (i32.mul (i32.shr_u (local.get $start) (i32.const 5)) (local.get $blockBytes))))
    (local.set $thrv (f32x4.splat (local.get $thr)))
    (local.set $ev2 (f32x4.splat (local.get $eScale)))
    ;; The last block's address: the read ahead below stays within the rows scanned.
    (local.set $pLast (i32.sub
      (i32.add (local.get $codes) (i32.mul (i32.shr_u (local.get $end) (i32.const 5)) (local.get $blockBytes)))
      (local.get $blockBytes)))
    (block $done
      (loop $block
        (br_if $done (i32.ge_u (local.get $row) (local.get $end)))
        ;; One byte of the block 8 blocks on, read and dropped: the hardware prefetcher stops at page
        ;; boundaries (a block is a 4 KiB page at 512-d), so each page would start with a miss
        ;; (measured at 1M x 512: reading none ahead took the first pass from 7-8.5 ms to 9-11 ms).
        (local.set $ahead (i32.add (local.get $p) (i32.shl (local.get $blockBytes) (i32.const 3))))
        (drop (i32.load8_u
          (select (local.get $pLast) (local.get $ahead) (i32.lt_u (local.get $pLast) (local.get $ahead)))))
        (local.set $aLo (v128.const i32x4 0 0 0 0))
        (local.set $bLo (v128.const i32x4 0 0 0 0))
        (local.set $aHi (v128.const i32x4 0 0 0 0))
        (local.set $bHi (v128.const i32x4 0 0 0 0))
        ;; The groups in a loop ($gp walks the codes, $lp the table): small enough for the optimising
        ;; compiler to keep everything in registers, where a fully unrolled body spilled. The pair's
        ;; table is loaded once for both nibbles ($od is free until the loop ends).
        (local.set $gp (local.get $p))
        (local.set $lp (local.get $lut))
        (local.set $gEnd (i32.add (local.get $p) (local.get $blockBytes)))
        (loop $groups
          (local.set $c (v128.load offset=0 (local.get $gp)))
          (local.set $lo
            (i8x16.swizzle (local.tee $od (v128.load offset=0 (local.get $lp)))
              (v128.and (local.get $c) (v128.const i8x16 15 15 15 15 15 15 15 15 15 15 15 15 15 15 15 15))))
          (local.set $hi
            (i8x16.swizzle (local.get $od)
              (v128.and (i16x8.shr_u (local.get $c) (i32.const 4)) (v128.const i8x16 15 15 15 15 15 15 15 15 15 15 15 15 15 15 15 15))))
          (local.set $c (v128.load offset=16 (local.get $gp)))
          (local.set $lo (i8x16.add
            (i8x16.swizzle (local.tee $od (v128.load offset=16 (local.get $lp)))
              (v128.and (local.get $c) (v128.const i8x16 15 15 15 15 15 15 15 15 15 15 15 15 15 15 15 15)))
            (local.get $lo)))
          (local.set $hi (i8x16.add
            (i8x16.swizzle (local.get $od)
              (v128.and (i16x8.shr_u (local.get $c) (i32.const 4)) (v128.const i8x16 15 15 15 15 15 15 15 15 15 15 15 15 15 15 15 15)))
            (local.get $hi)))
          (local.set $c (v128.load offset=32 (local.get $gp)))
          (local.set $lo (i8x16.add
            (i8x16.swizzle (local.tee $od (v128.load offset=32 (local.get $lp)))
              (v128.and (local.get $c) (v128.const i8x16 15 15 15 15 15 15 15 15 15 15 15 15 15 15 15 15)))
            (local.get $lo)))
          (local.set $hi (i8x16.add
            (i8x16.swizzle (local.get $od)
              (v128.and (i16x8.shr_u (local.get $c) (i32.const 4)) (v128.const i8x16 15 15 15 15 15 15 15 15 15 15 15 15 15 15 15 15)))
            (local.get $hi)))
          (local.set $c (v128.load offset=48 (local.get $gp)))
          (local.set $lo (i8x16.add
            (i8x16.swizzle (local.tee $od (v128.load offset=48 (local.get $lp)))
              (v128.and (local.get $c) (v128.const i8x16 15 15 15 15 15 15 15 15 15 15 15 15 15 15 15 15)))
            (local.get $lo)))
          (local.set $hi (i8x16.add
            (i8x16.swizzle (local.get $od)
              (v128.and (i16x8.shr_u (local.get $c) (i32.const 4)) (v128.const i8x16 15 15 15 15 15 15 15 15 15 15 15 15 15 15 15 15)))
            (local.get $hi)))
          (local.set $lo (v128.xor (local.get $lo) (v128.const i8x16 128 128 128 128 128 128 128 128 128 128 128 128 128 128 128 128)))
          (local.set $aLo (i16x8.add (local.get $lo) (local.get $aLo)))
          (local.set $bLo (i16x8.add (i16x8.shr_u (local.get $lo) (i32.const 8)) (local.get $bLo)))
          (local.set $hi (v128.xor (local.get $hi) (v128.const i8x16 128 128 128 128 128 128 128 128 128 128 128 128 128 128 128 128)))
          (local.set $aHi (i16x8.add (local.get $hi) (local.get $aHi)))
          (local.set $bHi (i16x8.add (i16x8.shr_u (local.get $hi) (i32.const 8)) (local.get $bHi)))
          (local.set $lp (i32.add (local.get $lp) (i32.const 64)))
          (br_if $groups (i32.lt_u (local.tee $gp (i32.add (local.get $gp) (i32.const 64))) (local.get $gEnd))))
        ;; Interleaved back into row order, eight rows per i16x8, four per f32x4.
        (local.set $sAt (i32.add (local.get $scales) (i32.shl (local.get $row) (i32.const 2))))
        (local.set $eAt (i32.add (local.get $errs) (i32.shl (local.get $row) (i32.const 2))))
        ;; rows 0-15: odd rows = B, even rows = A - (B << 8)
        (local.set $ev (i16x8.sub (local.get $aLo) (i16x8.shl (local.get $bLo) (i32.const 8))))
        (local.set $od (local.get $bLo))
        (local.set $c (i8x16.shuffle 0 1 16 17 2 3 18 19 4 5 20 21 6 7 22 23 (local.get $ev) (local.get $od)))
        (local.set $sv (f32x4.add
          (f32x4.mul
            (f32x4.convert_i32x4_s (i32x4.sub (i32x4.extend_low_i16x8_u (local.get $c)) (local.get $biasv)))
            (v128.load offset=0 (local.get $sAt)))
          (f32x4.mul (v128.load offset=0 (local.get $eAt)) (local.get $ev2))))
        (if (v128.any_true (f32x4.ge (local.get $sv) (local.get $thrv)))
          (then (local.set $n (call $keep4 (local.get $sv) (i32.add (local.get $row) (i32.const 0)) (local.get $thr) (local.get $out) (local.get $n)))))
        (local.set $sv (f32x4.add
          (f32x4.mul
            (f32x4.convert_i32x4_s (i32x4.sub (i32x4.extend_high_i16x8_u (local.get $c)) (local.get $biasv)))
            (v128.load offset=16 (local.get $sAt)))
          (f32x4.mul (v128.load offset=16 (local.get $eAt)) (local.get $ev2))))
        (if (v128.any_true (f32x4.ge (local.get $sv) (local.get $thrv)))
          (then (local.set $n (call $keep4 (local.get $sv) (i32.add (local.get $row) (i32.const 4)) (local.get $thr) (local.get $out) (local.get $n)))))
        (local.set $c (i8x16.shuffle 8 9 24 25 10 11 26 27 12 13 28 29 14 15 30 31 (local.get $ev) (local.get $od)))
        (local.set $sv (f32x4.add
          (f32x4.mul
            (f32x4.convert_i32x4_s (i32x4.sub (i32x4.extend_low_i16x8_u (local.get $c)) (local.get $biasv)))
            (v128.load offset=32 (local.get $sAt)))
          (f32x4.mul (v128.load offset=32 (local.get $eAt)) (local.get $ev2))))
        (if (v128.any_true (f32x4.ge (local.get $sv) (local.get $thrv)))
          (then (local.set $n (call $keep4 (local.get $sv) (i32.add (local.get $row) (i32.const 8)) (local.get $thr) (local.get $out) (local.get $n)))))
        (local.set $sv (f32x4.add
          (f32x4.mul
            (f32x4.convert_i32x4_s (i32x4.sub (i32x4.extend_high_i16x8_u (local.get $c)) (local.get $biasv)))
            (v128.load offset=48 (local.get $sAt)))
          (f32x4.mul (v128.load offset=48 (local.get $eAt)) (local.get $ev2))))
        (if (v128.any_true (f32x4.ge (local.get $sv) (local.get $thrv)))
          (then (local.set $n (call $keep4 (local.get $sv) (i32.add (local.get $row) (i32.const 12)) (local.get $thr) (local.get $out) (local.get $n)))))
        ;; rows 16-31: odd rows = B, even rows = A - (B << 8)
        (local.set $ev (i16x8.sub (local.get $aHi) (i16x8.shl (local.get $bHi) (i32.const 8))))
        (local.set $od (local.get $bHi))
        (local.set $c (i8x16.shuffle 0 1 16 17 2 3 18 19 4 5 20 21 6 7 22 23 (local.get $ev) (local.get $od)))
        (local.set $sv (f32x4.add
          (f32x4.mul
            (f32x4.convert_i32x4_s (i32x4.sub (i32x4.extend_low_i16x8_u (local.get $c)) (local.get $biasv)))
            (v128.load offset=64 (local.get $sAt)))
          (f32x4.mul (v128.load offset=64 (local.get $eAt)) (local.get $ev2))))
        (if (v128.any_true (f32x4.ge (local.get $sv) (local.get $thrv)))
          (then (local.set $n (call $keep4 (local.get $sv) (i32.add (local.get $row) (i32.const 16)) (local.get $thr) (local.get $out) (local.get $n)))))
        (local.set $sv (f32x4.add
          (f32x4.mul
            (f32x4.convert_i32x4_s (i32x4.sub (i32x4.extend_high_i16x8_u (local.get $c)) (local.get $biasv)))
            (v128.load offset=80 (local.get $sAt)))
          (f32x4.mul (v128.load offset=80 (local.get $eAt)) (local.get $ev2))))
        (if (v128.any_true (f32x4.ge (local.get $sv) (local.get $thrv)))
          (then (local.set $n (call $keep4 (local.get $sv) (i32.add (local.get $row) (i32.const 20)) (local.get $thr) (local.get $out) (local.get $n)))))
        (local.set $c (i8x16.shuffle 8 9 24 25 10 11 26 27 12 13 28 29 14 15 30 31 (local.get $ev) (local.get $od)))
        (local.set $sv (f32x4.add
          (f32x4.mul
            (f32x4.convert_i32x4_s (i32x4.sub (i32x4.extend_low_i16x8_u (local.get $c)) (local.get $biasv)))
            (v128.load offset=96 (local.get $sAt)))
          (f32x4.mul (v128.load offset=96 (local.get $eAt)) (local.get $ev2))))
        (if (v128.any_true (f32x4.ge (local.get $sv) (local.get $thrv)))
          (then (local.set $n (call $keep4 (local.get $sv) (i32.add (local.get $row) (i32.const 24)) (local.get $thr) (local.get $out) (local.get $n)))))
        (local.set $sv (f32x4.add
          (f32x4.mul
            (f32x4.convert_i32x4_s (i32x4.sub (i32x4.extend_high_i16x8_u (local.get $c)) (local.get $biasv)))
            (v128.load offset=112 (local.get $sAt)))
          (f32x4.mul (v128.load offset=112 (local.get $eAt)) (local.get $ev2))))
        (if (v128.any_true (f32x4.ge (local.get $sv) (local.get $thrv)))
          (then (local.set $n (call $keep4 (local.get $sv) (i32.add (local.get $row) (i32.const 28)) (local.get $thr) (local.get $out) (local.get $n)))))
        (local.set $row (i32.add (local.get $row) (i32.const 32)))
        (local.set $p (i32.add (local.get $p) (local.get $blockBytes)))
        (br $block)))
    (local.get $n))

  ;; scoreI4List(q, codes, scales, list, count, out): out[i] = the 4-bit score of row list[i] (i32
  ;; rows, f32 scores), the scanI4 arithmetic one row at a time, for the second pass's candidates.
  ;; One byte of each cache line of the row 8 places on in the list is read and dropped: the rows
  ;; are scattered, so no hardware prefetcher fetches them, and this keeps several misses in flight
  ;; (4, 8 and 16 places tried by hand: 8 was best).
  (func (export "scoreI4List") (param $q i32) (param $codes i32) (param $scales i32) (param $list i32)
        (param $count i32) (param $out i32)
    (local $i i32) (local $row i32) (local $p i32) (local $ahead i32) (local $rowBytes i32) (local $at i32)
    (local $qc i32) (local $qEnd i32)
    (local $a v128) (local $w v128) (local $q0 v128) (local $q1 v128) (local $q2 v128) (local $q3 v128)
    (local.set $rowBytes (i32.shr_u (global.get $stride) (i32.const 1)))
    (local.set $qEnd (i32.add (local.get $q) (i32.shl (local.get $rowBytes) (i32.const 2))))
    (block $done
      (loop $rows
        (br_if $done (i32.ge_u (local.get $i) (local.get $count)))
        (local.set $row (i32.load (i32.add (local.get $list) (i32.shl (local.get $i) (i32.const 2)))))
        (local.set $p (i32.add (local.get $codes) (i32.mul (local.get $row) (local.get $rowBytes))))
        (local.set $ahead (i32.add (local.get $i) (i32.const 8)))
        (local.set $ahead (i32.add
          (i32.mul
            (i32.load (i32.add (local.get $list) (i32.shl
              (select (local.get $ahead) (i32.sub (local.get $count) (i32.const 1)) (i32.lt_u (local.get $ahead) (local.get $count)))
              (i32.const 2))))
            (local.get $rowBytes))
          (local.get $codes)))
        (local.set $at (i32.const 0))
        (loop $lines
          (drop (i32.load8_u (i32.add (local.get $ahead) (local.get $at))))
          (br_if $lines (i32.lt_u (local.tee $at (i32.add (local.get $at) (i32.const 64))) (local.get $rowBytes))))
        (local.set $a (v128.const i32x4 0 0 0 0))
        (local.set $qc (local.get $q))
        ;; 32 dimensions a turn (the nibbles as in scanI4).
        (loop $chunk
          (local.set $q0 (v128.load (local.get $qc)))
          (local.set $q1 (v128.load offset=16 (local.get $qc)))
          (local.set $q2 (v128.load offset=32 (local.get $qc)))
          (local.set $q3 (v128.load offset=48 (local.get $qc)))
          (local.set $w (v128.load (local.get $p)))
          (local.set $a (i32x4.add (i32x4.dot_i16x8_s (i16x8.shr_s (i16x8.shl (local.get $w) (i32.const 12)) (i32.const 12)) (local.get $q0)) (local.get $a)))
          (local.set $a (i32x4.add (i32x4.dot_i16x8_s (i16x8.shr_s (i16x8.shl (local.get $w) (i32.const 8)) (i32.const 12)) (local.get $q1)) (local.get $a)))
          (local.set $a (i32x4.add (i32x4.dot_i16x8_s (i16x8.shr_s (i16x8.shl (local.get $w) (i32.const 4)) (i32.const 12)) (local.get $q2)) (local.get $a)))
          (local.set $a (i32x4.add (i32x4.dot_i16x8_s (i16x8.shr_s (local.get $w) (i32.const 12)) (local.get $q3)) (local.get $a)))
          (local.set $p (i32.add (local.get $p) (i32.const 16)))
          (br_if $chunk (i32.lt_u (local.tee $qc (i32.add (local.get $qc) (i32.const 64))) (local.get $qEnd))))
        ;; out[i] = f32(sum of the lanes of a) x scales[row]
        (f32.store (i32.add (local.get $out) (i32.shl (local.get $i) (i32.const 2)))
          (f32.mul
            (f32.convert_i32_s
              (i32.add
                (i32.add
                  (i32.add (i32x4.extract_lane 0 (local.get $a)) (i32x4.extract_lane 1 (local.get $a)))
                  (i32x4.extract_lane 2 (local.get $a)))
                (i32x4.extract_lane 3 (local.get $a))))
            (f32.load (i32.add (local.get $scales) (i32.shl (local.get $row) (i32.const 2))))))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $rows))))
)
