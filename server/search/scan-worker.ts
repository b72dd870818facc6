// The search index's scan worker (worker-protocol.ts hands it its tasks): the same kernels as the
// caller's thread, on the same shared memory, for its half of a first pass or of a 4-bit list.
import { createRequire } from 'node:module';
import { parentPort, workerData } from 'node:worker_threads';
import { type NativeKernelsAddon, withNativeKernel } from './native-kernels.js';
import { scanShard } from './scan-shard.js';
import { instantiateKernel } from './wasm-kernel.js';
import {
  C_BLOCK,
  C_COUNT,
  C_DONE,
  C_END,
  C_ERRS,
  C_ESCALE,
  C_FLOOR,
  C_GEN,
  C_KEEP,
  C_MODE,
  C_OUT,
  C_Q,
  C_RES,
  C_ROWS,
  C_SCALES,
  C_START,
  C_STOP,
  C_TASK_MS,
  LIST_MODE,
  type ScanWorkerData,
  WORKER_SPIN_MS,
} from './worker-protocol.js';

const { memory, kernel: kernelModule, control, native } = workerData as ScanWorkerData;
const wasmKernel = instantiateKernel(kernelModule, memory);
// The same answers either way: where this thread cannot load the addon, its WebAssembly kernel scans.
const addon = (() => {
  try {
    return native && (createRequire(import.meta.url)(native.file) as NativeKernelsAddon);
  } catch {
    return null;
  }
})();
const kernel =
  addon && native ? withNativeKernel(wasmKernel, addon, memory, native.isa, native.pairs, native.stride) : wasmKernel;
const c = new Int32Array(control);
const f = new Float32Array(control);
// The generation is read before saying ready: a task handed right after would otherwise be missed.
let seen = Atomics.load(c, C_GEN);
parentPort!.postMessage('ready');
for (;;) {
  const spinUntil = performance.now() + WORKER_SPIN_MS;
  while (Atomics.load(c, C_GEN) === seen && performance.now() < spinUntil);
  Atomics.wait(c, C_GEN, seen);
  const g = Atomics.load(c, C_GEN);
  // Woken without a task (a search is about to hand one): spin for it.
  if (g === seen) continue;
  seen = g;
  if (Atomics.load(c, C_STOP)) break;
  const t0 = performance.now();
  if (c[C_MODE] === LIST_MODE) kernel.scoreI4List(c[C_Q]!, c[C_ROWS]!, c[C_SCALES]!, c[C_START]!, c[C_END]!, c[C_OUT]!);
  else
    c[C_COUNT] = scanShard(
      kernel,
      memory.buffer,
      c[C_Q]!,
      c[C_ROWS]!,
      c[C_SCALES]!,
      c[C_START]!,
      c[C_END]!,
      c[C_KEEP]!,
      c[C_OUT]!,
      c[C_RES]!,
      c[C_BLOCK]!,
      c[C_MODE]!,
      f[C_FLOOR]!,
      c[C_ERRS]!,
      f[C_ESCALE]!,
    );
  f[C_TASK_MS] = performance.now() - t0;
  Atomics.store(c, C_DONE, g);
  Atomics.notify(c, C_DONE);
}
