// The machine's floor for the first pass: how long the scan threads take to read its bytes with
// SIMD loads and nothing else. A 2-core VM's memory bandwidth drifts from day to day, so the
// benchmark measures it in the same run as the search it is compared with.
import { Worker } from 'node:worker_threads';
import { compiledBeside } from '../../server/threads/index.js';
import { adviseHugePages, WASM_PAGE, wasm, wasmKernelModule, type WasmMemory } from '../../server/search/index.js';
import { percentile } from './metrics.js';

/** Control words shared with the helper thread. */
export const C_GEN = 0;
export const C_DONE = 1;
export const C_START = 2;
export const C_END = 3;
export const C_SUM = 4;
export const C_STOP = 5;

export type SumOf = (p: number, end: number) => number;

export function loadsKernel(memory: WasmMemory): SumOf {
  // server/search/kernels/memory-loads.wat: adds every 16 bytes of [p, end) and returns a lane, so nothing is dead code.
  const instance = new wasm.Instance(wasmKernelModule('memory-loads'), { env: { memory } });
  return (instance.exports as { sum: SumOf }).sum;
}

export interface MemoryFloor {
  /** Median wall time of one read of every byte, split evenly over the threads. */
  ms: number;
  gbPerS: number;
  bytes: number;
  threads: number;
}

/**
 * Times `runs` reads of `bytes` bytes (resident, not zero pages) split over `threads` threads (1
 * or 2: the caller's and one helper, handed their halves through Atomics as the index's scan
 * worker is), on huge pages where `hugePages` and the index's are, else on 4 KiB pages (huge-pages.ts).
 */
export async function measureMemoryFloor(bytes: number, threads: 1 | 2, hugePages: boolean, runs = 31): Promise<MemoryFloor> {
  const size = Math.ceil(bytes / 4096) * 4096;
  const pages = Math.ceil(size / WASM_PAGE);
  const memory = new wasm.Memory({ initial: pages, maximum: pages, shared: true });
  adviseHugePages(memory, hugePages);
  new Uint8Array(memory.buffer).fill(1);
  const sum = loadsKernel(memory);
  const control = new Int32Array(new SharedArrayBuffer(64));
  const half = threads === 2 ? Math.floor(size / 2 / 64) * 64 : size;
  let worker: Worker | null = null;
  if (threads === 2) {
    worker = new Worker(compiledBeside(import.meta.url, 'memory-floor-worker.js'), { workerData: { memory, control } });
    await new Promise((resolve, reject) => {
      worker!.once('message', resolve);
      worker!.once('error', reject);
    });
    control[C_START] = half;
    control[C_END] = size;
  }
  const times: number[] = [];
  try {
    for (let r = 0; r < runs + 3; r++) {
      const t0 = performance.now();
      const gen = Atomics.add(control, C_GEN, 1) + 1;
      Atomics.notify(control, C_GEN);
      sum(0, half);
      const deadline = t0 + 10_000;
      while (worker && Atomics.load(control, C_DONE) !== gen) {
        if (performance.now() > deadline) throw new Error('memory floor: the helper thread stopped answering');
        Atomics.wait(control, C_DONE, Atomics.load(control, C_DONE), 1);
      }
      // The first runs compile the kernel and fault the pages in.
      if (r >= 3) times.push(performance.now() - t0);
    }
  } finally {
    if (worker) {
      Atomics.store(control, C_STOP, 1);
      Atomics.add(control, C_GEN, 1);
      Atomics.notify(control, C_GEN);
      await new Promise((resolve) => worker!.once('exit', resolve));
    }
  }
  const ms = percentile(times, 50);
  return { ms, gbPerS: size / 1e6 / ms, bytes: size, threads };
}
