;; Our own coder because the codes' layout and the scores' bits (the same as the JavaScript rotation
;; and normalize()) are the index's own.
;; The search index's row coder in SIMD WebAssembly: the rotation, the two quantisers and the packing
;; of one row, which in JavaScript cost about half of a start-up rebuild's per-person work (stores
;; into the index's shared memory are slow from JavaScript, free from WebAssembly). Compiled by
;; `npm run build:server` (scripts/build-native.js, with wabt's wat2wasm) into
;; dist/server/search/kernels/row-coder.wasm; loaded by wasm-row-coder.ts, used by row-writer.ts.
;; The module imports the index's memory and its padded dimension $dpad (a power of two, >= 32).
(module
  (import "env" "memory" (memory 1 65536 shared))
  (import "env" "dpad" (global $dpad i32))

  ;; codeRow(unit, signs, y, scratch, out4, fs, pairs, shift, res, t2k, stepk):
  ;; - y = H D unit (f64; the Rotation of rotation.ts, stage by stage, so the same bits), scaled by
  ;;   1/sqrt(P); ss = |y|^2; sigma = sqrt(ss / P) (P = $dpad);
  ;; - per dimension: the 2-bit level c (x >= -t2k sigma, >= 0, >= t2k sigma counted) to scratch[i],
  ;;   the 4-bit code n = clamp(floor(x * (1 / (stepk sigma)) + 0.5), -7, 7) to scratch[P + i], with
  ;;   the sums (2c - 3) x, (2c - 3)^2, n x, n^2 (in two lanes, so they may differ from a sequential
  ;;   sum in the last bits);
  ;; - the 4-bit codes packed into the P/2 bytes at out4 (the layout of scan-kernel.wat's scanI4);
  ;; - for each of `pairs` pairs g: the nibble (c[2g] | c[2g+1] << 2) << shift into byte fs + 16 g,
  ;;   which keeps its other nibble;
  ;; - f64 at res: ss, sum (2c-3) x, sum (2c-3)^2, sum n x, sum n^2.
  (func (export "codeRow") (param $unit i32) (param $signs i32) (param $y i32) (param $scratch i32)
        (param $out4 i32) (param $fs i32) (param $pairs i32) (param $shift i32) (param $res i32)
        (param $t2k f64) (param $stepk f64)
    (local $p i32) (local $h i32) (local $i i32) (local $j i32) (local $g i32) (local $at i32)
    (local $d i32) (local $bytes4 i32) (local $bytes8 i32)
    (local $ss f64) (local $sigma f64) (local $t2 f64) (local $inv f64)
    (local $a v128) (local $b v128) (local $x v128) (local $c v128) (local $n v128) (local $cy2 v128)
    (local $cc2 v128) (local $cy4 v128) (local $cc4 v128) (local $t2v v128) (local $nt2v v128)
    (local $invv v128) (local $w v128) (local $acc v128) (local $scale v128)
    (local $one v128) (local $three v128) (local $half v128) (local $lo7 v128) (local $hi7 v128)
    (local $zero v128) (local $magic v128)
    (local.set $d (global.get $dpad))
    (local.set $bytes4 (i32.shl (local.get $d) (i32.const 2)))
    (local.set $bytes8 (i32.shl (local.get $d) (i32.const 3)))
    ;; y = D unit, as f64: four floats a turn.
    (local.set $p (i32.const 0))
    (block $done (loop $next
      (br_if $done (i32.ge_u (local.get $p) (local.get $bytes4)))
      (local.set $w (v128.load (i32.add (local.get $unit) (local.get $p))))
      (v128.store (i32.add (local.get $y) (i32.shl (local.get $p) (i32.const 1)))
        (f64x2.mul (f64x2.promote_low_f32x4 (local.get $w))
          (v128.load (i32.add (local.get $signs) (i32.shl (local.get $p) (i32.const 1))))))
      (v128.store offset=16 (i32.add (local.get $y) (i32.shl (local.get $p) (i32.const 1)))
        (f64x2.mul
          (f64x2.promote_low_f32x4
            (i8x16.shuffle 8 9 10 11 12 13 14 15 8 9 10 11 12 13 14 15 (local.get $w) (local.get $w)))
          (v128.load offset=16 (i32.add (local.get $signs) (i32.shl (local.get $p) (i32.const 1))))))
      (local.set $p (i32.add (local.get $p) (i32.const 16)))
      (br $next)))
    ;; The first butterfly stage pairs the two lanes of each vector: [a + b, a - b].
    (local.set $p (i32.const 0))
    (block $done (loop $next
      (br_if $done (i32.ge_u (local.get $p) (local.get $bytes8)))
      (local.set $a (v128.load (i32.add (local.get $y) (local.get $p))))
      (local.set $b (i8x16.shuffle 8 9 10 11 12 13 14 15 0 1 2 3 4 5 6 7 (local.get $a) (local.get $a)))
      (v128.store (i32.add (local.get $y) (local.get $p))
        (i8x16.shuffle 0 1 2 3 4 5 6 7 16 17 18 19 20 21 22 23
          (f64x2.add (local.get $a) (local.get $b)) (f64x2.sub (local.get $a) (local.get $b))))
      (local.set $p (i32.add (local.get $p) (i32.const 16)))
      (br $next)))
    ;; The others, h = 2, 4, ... (in bytes: 16, 32, ...): (u, v) -> (u + v, u - v) two lanes at a time.
    (local.set $h (i32.const 16))
    (block $hDone (loop $hNext
      (br_if $hDone (i32.ge_u (local.get $h) (local.get $bytes8)))
      (local.set $i (i32.const 0))
      (block $iDone (loop $iNext
        (br_if $iDone (i32.ge_u (local.get $i) (local.get $bytes8)))
        (local.set $j (i32.const 0))
        (block $jDone (loop $jNext
          (br_if $jDone (i32.ge_u (local.get $j) (local.get $h)))
          (local.set $p (i32.add (i32.add (local.get $y) (local.get $i)) (local.get $j)))
          (local.set $a (v128.load (local.get $p)))
          (local.set $b (v128.load (i32.add (local.get $p) (local.get $h))))
          (v128.store (local.get $p) (f64x2.add (local.get $a) (local.get $b)))
          (v128.store (i32.add (local.get $p) (local.get $h)) (f64x2.sub (local.get $a) (local.get $b)))
          (local.set $j (i32.add (local.get $j) (i32.const 16)))
          (br $jNext)))
        (local.set $i (i32.add (local.get $i) (i32.shl (local.get $h) (i32.const 1))))
        (br $iNext)))
      (local.set $h (i32.shl (local.get $h) (i32.const 1)))
      (br $hNext)))
    ;; y *= 1/sqrt(P); ss = |y|^2.
    (local.set $scale (f64x2.splat (f64.div (f64.const 1) (f64.sqrt (f64.convert_i32_u (local.get $d))))))
    (local.set $acc (v128.const i32x4 0 0 0 0))
    (local.set $p (i32.const 0))
    (block $done (loop $next
      (br_if $done (i32.ge_u (local.get $p) (local.get $bytes8)))
      (v128.store (i32.add (local.get $y) (local.get $p))
        (local.tee $x (f64x2.mul (v128.load (i32.add (local.get $y) (local.get $p))) (local.get $scale))))
      (local.set $acc (f64x2.add (f64x2.mul (local.get $x) (local.get $x)) (local.get $acc)))
      (local.set $p (i32.add (local.get $p) (i32.const 16)))
      (br $next)))
    (local.set $ss (f64.add (f64x2.extract_lane 0 (local.get $acc)) (f64x2.extract_lane 1 (local.get $acc))))
    (local.set $sigma (f64.sqrt (f64.div (local.get $ss) (f64.convert_i32_u (local.get $d)))))
    (local.set $t2 (f64.mul (local.get $t2k) (local.get $sigma)))
    (local.set $t2v (f64x2.splat (local.get $t2)))
    (local.set $nt2v (f64x2.splat (f64.neg (local.get $t2))))
    ;; inv = step > 0 ? 1 / step : 0
    (local.set $inv (select
      (f64.div (f64.const 1) (f64.mul (local.get $stepk) (local.get $sigma)))
      (f64.const 0)
      (f64.gt (f64.mul (local.get $stepk) (local.get $sigma)) (f64.const 0))))
    (local.set $invv (f64x2.splat (local.get $inv)))
    (local.set $cy2 (v128.const i32x4 0 0 0 0))
    (local.set $cc2 (v128.const i32x4 0 0 0 0))
    (local.set $cy4 (v128.const i32x4 0 0 0 0))
    (local.set $cc4 (v128.const i32x4 0 0 0 0))
    ;; The constants in locals: a v128.const in the loop would be rebuilt every turn.
    (local.set $one (v128.const f64x2 1 1))
    (local.set $three (v128.const f64x2 3 3))
    (local.set $half (v128.const f64x2 0.5 0.5))
    (local.set $lo7 (v128.const f64x2 -7 -7))
    (local.set $hi7 (v128.const f64x2 7 7))
    (local.set $zero (v128.const f64x2 0 0))
    (local.set $magic (v128.const f64x2 0x1.8p52 0x1.8p52))
    ;; Both quantisers, two dimensions a turn; $i is the dimension, $p its byte in y.
    (local.set $i (i32.const 0))
    (local.set $p (i32.const 0))
    (block $done (loop $next
      (br_if $done (i32.ge_u (local.get $p) (local.get $bytes8)))
      (local.set $x (v128.load (i32.add (local.get $y) (local.get $p))))
      ;; c = (x >= -t2) + (x >= 0) + (x >= t2): each comparison's all-ones lanes masked to 1.0.
      (local.set $c (f64x2.add
        (f64x2.add
          (v128.and (f64x2.ge (local.get $x) (local.get $nt2v)) (local.get $one))
          (v128.and (f64x2.ge (local.get $x) (local.get $zero)) (local.get $one)))
        (v128.and (f64x2.ge (local.get $x) (local.get $t2v)) (local.get $one))))
      ;; l = 2c - 3
      (local.set $a (f64x2.sub (f64x2.add (local.get $c) (local.get $c)) (local.get $three)))
      (local.set $cy2 (f64x2.add (f64x2.mul (local.get $a) (local.get $x)) (local.get $cy2)))
      (local.set $cc2 (f64x2.add (f64x2.mul (local.get $a) (local.get $a)) (local.get $cc2)))
      ;; n = clamp(floor(x * inv + 0.5), -7, 7)
      (local.set $n (f64x2.pmin
        (f64x2.pmax
          (f64x2.floor (f64x2.add (f64x2.mul (local.get $x) (local.get $invv)) (local.get $half)))
          (local.get $lo7))
        (local.get $hi7)))
      (local.set $cy4 (f64x2.add (f64x2.mul (local.get $n) (local.get $x)) (local.get $cy4)))
      (local.set $cc4 (f64x2.add (f64x2.mul (local.get $n) (local.get $n)) (local.get $cc4)))
      ;; The codes as bytes, c0 c1 to scratch[i], n0 n1 to scratch[P + i]: one 16-bit lane each. A
      ;; small integer-valued double plus 1.5 x 2^52 has the integer, two's complement, in its low
      ;; mantissa bits (cheaper than i32x4.trunc_sat_f64x2_s_zero).
      (local.set $b (i8x16.shuffle 0 8 16 24 0 0 0 0 0 0 0 0 0 0 0 0
        (f64x2.add (local.get $c) (local.get $magic)) (f64x2.add (local.get $n) (local.get $magic))))
      (v128.store16_lane 0 (i32.add (local.get $scratch) (local.get $i)) (local.get $b))
      (v128.store16_lane 1 (i32.add (i32.add (local.get $scratch) (local.get $i)) (local.get $d)) (local.get $b))
      (local.set $i (i32.add (local.get $i) (i32.const 2)))
      (local.set $p (i32.add (local.get $p) (i32.const 16)))
      (br $next)))
    ;; The 4-bit row: per 32 dimensions A = codes 0-15, B = 16-31; byte 2k = A[k] | A[8 + k] << 4
    ;; and byte 2k + 1 = B[k] | B[8 + k] << 4 (k < 8).
    (local.set $g (i32.const 0))
    (block $done (loop $next
      (br_if $done (i32.ge_u (local.get $g) (local.get $d)))
      (local.set $a (v128.load (i32.add (i32.add (local.get $scratch) (local.get $g)) (local.get $d))))
      (local.set $b (v128.load offset=16 (i32.add (i32.add (local.get $scratch) (local.get $g)) (local.get $d))))
      (local.set $w (v128.or
        (v128.and
          (i8x16.shuffle 0 1 2 3 4 5 6 7 16 17 18 19 20 21 22 23 (local.get $a) (local.get $b))
          (v128.const i8x16 15 15 15 15 15 15 15 15 15 15 15 15 15 15 15 15))
        (i8x16.shl
          (i8x16.shuffle 8 9 10 11 12 13 14 15 24 25 26 27 28 29 30 31 (local.get $a) (local.get $b))
          (i32.const 4))))
      (v128.store (i32.add (local.get $out4) (i32.shr_u (local.get $g) (i32.const 1)))
        (i8x16.shuffle 0 8 1 9 2 10 3 11 4 12 5 13 6 14 7 15 (local.get $w) (local.get $w)))
      (local.set $g (i32.add (local.get $g) (i32.const 32)))
      (br $next)))
    ;; The fast-scan nibbles: byte fs + 16 g keeps its other nibble.
    (local.set $g (i32.const 0))
    (block $done (loop $next
      (br_if $done (i32.ge_u (local.get $g) (local.get $pairs)))
      (local.set $at (i32.add (local.get $fs) (i32.shl (local.get $g) (i32.const 4))))
      (local.set $j (i32.add (local.get $scratch) (i32.shl (local.get $g) (i32.const 1))))
      (i32.store8 (local.get $at)
        (i32.or
          (i32.and (i32.load8_u (local.get $at)) (i32.shr_u (i32.const 0xf0) (local.get $shift)))
          (i32.shl
            (i32.or (i32.load8_u (local.get $j)) (i32.shl (i32.load8_u offset=1 (local.get $j)) (i32.const 2)))
            (local.get $shift))))
      (local.set $g (i32.add (local.get $g) (i32.const 1)))
      (br $next)))
    (f64.store (local.get $res) (local.get $ss))
    (f64.store offset=8 (local.get $res) (f64.add (f64x2.extract_lane 0 (local.get $cy2)) (f64x2.extract_lane 1 (local.get $cy2))))
    (f64.store offset=16 (local.get $res) (f64.add (f64x2.extract_lane 0 (local.get $cc2)) (f64x2.extract_lane 1 (local.get $cc2))))
    (f64.store offset=24 (local.get $res) (f64.add (f64x2.extract_lane 0 (local.get $cy4)) (f64x2.extract_lane 1 (local.get $cy4))))
    (f64.store offset=32 (local.get $res) (f64.add (f64x2.extract_lane 0 (local.get $cc4)) (f64x2.extract_lane 1 (local.get $cc4)))))

  ;; prepareRow(row, dim, normalise) -> hash: when `normalise`, the `dim` floats at `row` divided by
  ;; their norm, in place, as `normalize` of similarity.ts does it (sum of squares in order, in f64;
  ;; each quotient rounded to f32), so the same floats and the same scores as EmbeddingIndex;
  ;; returns rowHash of row-scores.ts (FNV-1a over the floats' bits).
  (func (export "prepareRow") (param $row i32) (param $dim i32) (param $normalise i32) (result i32)
    (local $p i32) (local $end i32) (local $h i32) (local $sum f64) (local $norm f64) (local $x f64)
    (local.set $end (i32.add (local.get $row) (i32.shl (local.get $dim) (i32.const 2))))
    (if (local.get $normalise)
      (then
        (local.set $p (local.get $row))
        (block $done (loop $next
          (br_if $done (i32.ge_u (local.get $p) (local.get $end)))
          (local.set $x (f64.promote_f32 (f32.load (local.get $p))))
          (local.set $sum (f64.add (f64.mul (local.get $x) (local.get $x)) (local.get $sum)))
          (local.set $p (i32.add (local.get $p) (i32.const 4)))
          (br $next)))
        ;; norm = sqrt(sum) || 1
        (local.set $norm (f64.sqrt (local.get $sum)))
        (local.set $norm (select (local.get $norm) (f64.const 1) (f64.gt (local.get $norm) (f64.const 0))))
        (local.set $p (local.get $row))
        (block $done (loop $next
          (br_if $done (i32.ge_u (local.get $p) (local.get $end)))
          (f32.store (local.get $p) (f32.demote_f64 (f64.div (f64.promote_f32 (f32.load (local.get $p))) (local.get $norm))))
          (local.set $p (i32.add (local.get $p) (i32.const 4)))
          (br $next)))))
    (local.set $h (i32.const 0x811c9dc5))
    (local.set $p (local.get $row))
    (block $done (loop $next
      (br_if $done (i32.ge_u (local.get $p) (local.get $end)))
      (local.set $h (i32.mul (i32.xor (local.get $h) (i32.load (local.get $p))) (i32.const 0x01000193)))
      (local.set $p (i32.add (local.get $p) (i32.const 4)))
      (br $next)))
    (local.get $h)))
