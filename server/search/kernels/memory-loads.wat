;; The machine's floor for the first pass (bench/lib/memory-floor.ts): sum(p, end) adds every 16
;; bytes of [p, end) into two i8x16 accumulators, 64 bytes a turn, and returns a lane, so that
;; nothing is dead code. Compiled as scan-kernel.wat is (scripts/build-native.js).
(module
  (import "env" "memory" (memory 1 65536 shared))
  (func (export "sum") (param $p i32) (param $end i32) (result i32)
    (local $a v128) (local $b v128)
    (block $done (loop $next
      (br_if $done (i32.ge_u (local.get $p) (local.get $end)))
      (local.set $a (i8x16.add (v128.load (local.get $p)) (local.get $a)))
      (local.set $b (i8x16.add (v128.load offset=16 (local.get $p)) (local.get $b)))
      (local.set $a (i8x16.add (v128.load offset=32 (local.get $p)) (local.get $a)))
      (local.set $b (i8x16.add (v128.load offset=48 (local.get $p)) (local.get $b)))
      (local.set $p (i32.add (local.get $p) (i32.const 64)))
      (br $next)))
    (i32x4.extract_lane 0 (i8x16.add (local.get $a) (local.get $b)))))
