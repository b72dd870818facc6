// The search index's scan worker, the caller's side (the worker: scan-worker.ts). The worker runs
// the same kernels on the same shared memory; a task is handed through control words (a
// SharedArrayBuffer of Int32 words, some read as float32), never through messages: the caller
// writes a task's words, bumps the generation and wakes the worker, which writes its result and
// the generation it finished. Each side spins briefly before sleeping on the other: waking a
// thread asleep in Atomics.wait is slow on a VM (an idle virtual CPU is woken through the
// hypervisor), and at 100,000 rows it was a large part of a search's first pass.
import { Worker } from 'node:worker_threads';
import { compiledBeside } from '../threads/index.js';
import type { KernelModule, WasmMemory } from './wasm-kernel.js';

/** The control words. */
export const C_GEN = 0; // the task's generation, bumped by the caller
export const C_DONE = 1; // the generation the worker finished
export const C_STOP = 2; // 1: the worker exits at its next wake
export const C_Q = 3; // the task: the kernel's arguments (offsets into the memory) ...
export const C_ROWS = 4;
export const C_SCALES = 5;
export const C_START = 6;
export const C_END = 7;
export const C_KEEP = 8;
export const C_OUT = 9;
export const C_RES = 10;
export const C_COUNT = 11; // ... and the rows a scan kept
export const C_BLOCK = 12;
export const C_MODE = 13; // scanShard's mode (0-2), or LIST_MODE
export const C_FLOOR = 14; // a float32, through a Float32Array view of the control words
export const C_ERRS = 15;
export const C_ESCALE = 16; // a float32, as C_FLOOR
export const C_TASK_MS = 17; // a float32: the worker's time on its last task
const CONTROL_WORDS = 32;

/** C_MODE of a task that scores a list at 4 bits (scanShard's modes are 0-2). */
export const LIST_MODE = 3;
/** A worker silent this long is dropped and its half scanned by the caller. */
const WORKER_TIMEOUT_MS = 2000;
/** How long the worker spins for its next task after one (a search hands it two: the first pass and the list). */
export const WORKER_SPIN_MS = 1;
/** How long the caller spins for the worker's result before sleeping. */
const CALLER_SPIN_MS = 5;

/** What the worker starts with. */
export interface ScanWorkerData {
  memory: WasmMemory;
  kernel: KernelModule;
  control: SharedArrayBuffer;
  /** The native kernels' addon, where the caller's thread scans with it (native-kernels.ts). */
  native: { file: string; isa: number; pairs: number; stride: number } | null;
}

/** A scan of rows start..end-1 (scanShard's arguments). */
export interface ScanTask {
  q: number;
  rows: number;
  scales: number;
  start: number;
  end: number;
  keep: number;
  out: number;
  res: number;
  block: number;
  mode: number;
  floor: number;
  errs: number;
  eScale: number;
}

/** The 4-bit scoring of `count` rows listed at `list` (Kernel.scoreI4List's arguments). */
export interface ListTask {
  q: number;
  codes: number;
  scales: number;
  list: number;
  count: number;
  out: number;
}

export class ScanWorker {
  private readonly words: Int32Array;
  private readonly floats: Float32Array;
  private dropped = false;

  private constructor(
    private readonly worker: Worker,
    control: SharedArrayBuffer,
    /** Called once when the worker is dropped (stuck, failed or stopped). */
    private readonly onDrop: () => void,
  ) {
    this.words = new Int32Array(control);
    this.floats = new Float32Array(control);
  }

  /** A worker on `memory`, ready (its kernels instantiated) when this resolves. */
  static async start(data: Omit<ScanWorkerData, 'control'>, onDrop: () => void): Promise<ScanWorker> {
    const control = new SharedArrayBuffer(CONTROL_WORDS * 4);
    const workerData: ScanWorkerData = { ...data, control };
    const worker = new Worker(compiledBeside(import.meta.url, 'scan-worker.js'), { workerData });
    await new Promise<void>((resolve, reject) => {
      worker.once('message', () => resolve());
      worker.once('error', reject);
    });
    const scanWorker = new ScanWorker(worker, control, onDrop);
    worker.on('error', () => scanWorker.drop());
    worker.unref();
    return scanWorker;
  }

  /** Wakes the worker without a task (one is about to be handed: it spins for it). */
  wake(): void {
    Atomics.notify(this.words, C_GEN);
  }

  /** Hands a scan; its generation, for `finished`. */
  scan(t: ScanTask): number {
    const c = this.words;
    c[C_Q] = t.q;
    c[C_ROWS] = t.rows;
    c[C_SCALES] = t.scales;
    c[C_START] = t.start;
    c[C_END] = t.end;
    c[C_KEEP] = t.keep;
    c[C_OUT] = t.out;
    c[C_RES] = t.res;
    c[C_BLOCK] = t.block;
    c[C_MODE] = t.mode;
    this.floats[C_FLOOR] = t.floor;
    c[C_ERRS] = t.errs;
    this.floats[C_ESCALE] = t.eScale;
    return this.hand();
  }

  /** Hands a list to score at 4 bits; its generation. */
  scoreList(t: ListTask): number {
    const c = this.words;
    c[C_MODE] = LIST_MODE;
    c[C_Q] = t.q;
    c[C_ROWS] = t.codes;
    c[C_SCALES] = t.scales;
    c[C_START] = t.list;
    c[C_END] = t.count;
    c[C_OUT] = t.out;
    return this.hand();
  }

  private hand(): number {
    const gen = Atomics.add(this.words, C_GEN, 1) + 1;
    Atomics.notify(this.words, C_GEN);
    return gen;
  }

  /** Waits for task `gen`; false (and the worker dropped) when it is stuck or gone. */
  finished(gen: number): boolean {
    const control = this.words;
    const deadline = performance.now() + WORKER_TIMEOUT_MS;
    const spinUntil = performance.now() + CALLER_SPIN_MS;
    while (Atomics.load(control, C_DONE) !== gen && performance.now() < spinUntil);
    let done = Atomics.load(control, C_DONE);
    while (done !== gen && performance.now() < deadline) {
      Atomics.wait(control, C_DONE, done, 50);
      done = Atomics.load(control, C_DONE);
    }
    if (done === gen) return true;
    this.drop();
    return false;
  }

  /** The rows the last scan kept. */
  get count(): number {
    return this.words[C_COUNT]!;
  }

  /** The worker's time on its last task. */
  get taskMs(): number {
    return this.floats[C_TASK_MS]!;
  }

  /** Stops the worker (it exits at its next wake). */
  async stop(): Promise<void> {
    Atomics.store(this.words, C_STOP, 1);
    Atomics.add(this.words, C_GEN, 1);
    Atomics.notify(this.words, C_GEN);
    this.dropped = true;
    this.onDrop();
    await this.worker.terminate();
  }

  private drop(): void {
    if (this.dropped) return;
    this.dropped = true;
    this.onDrop();
    void this.worker.terminate();
  }
}
