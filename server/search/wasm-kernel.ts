// The search index's WebAssembly kernels, loaded. Their one source is WebAssembly text beside this
// file (kernels/*.wat), compiled by `npm run build:server` (scripts/build-native.js, with wabt's
// wat2wasm) into dist/server/search/kernels/*.wasm, read from there at run time (nothing fetched):
// - scan-kernel.wat: the scans (scanI8, scanI4, the 2-bit fast scan scanFS, scoreI4List, dotF32);
//   scan-kernel-relaxed.wasm is the same text with its table lookups by i8x16.relaxed_swizzle;
// - row-coder.wat: the coding of one row (wasm-row-coder.ts);
// - memory-loads.wat: loads alone, the benchmark's floor for the first pass (bench/lib/memory-floor.ts).
// The modules import their memory (the index's, shared between the threads that scan) and the row
// widths they are instantiated for.
import { readFileSync } from 'node:fs';
import { setFlagsFromString } from 'node:v8';
import { compiledBeside } from '../threads/index.js';

export interface Kernel {
  /** int8 rows of `stride` bytes against an int16 probe: (row, score) of each row scoring >= thr to `out`; the count. */
  scanI8(q: number, rows: number, scales: number, start: number, end: number, thr: number, out: number): number;
  /** The same over 4-bit codes (rows of strideI8 / 2 bytes), for a coarse first pass. */
  scanI4(q: number, rows: number, scales: number, start: number, end: number, thr: number, out: number): number;
  dotF32(q: number, rows: number, start: number, end: number, out: number): void;
  /**
   * The 2-bit first pass over blocks of 32 rows (scan-kernel.wat); `lut` is the probe's table.
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

/** Pages of 64 KiB; the most a 32-bit memory can address. */
export const WASM_PAGE = 65536;
export const WASM_MAX_PAGES = 65536;

export type KernelName = 'scan-kernel' | 'scan-kernel-relaxed' | 'row-coder' | 'memory-loads';

const bytesOf = new Map<KernelName, Uint8Array>();

/** A compiled kernel's bytes (dist/server/search/kernels/NAME.wasm, built from kernels/*.wat). */
export function wasmKernelBytes(name: KernelName): Uint8Array {
  let bytes = bytesOf.get(name);
  if (!bytes) {
    const file = compiledBeside(import.meta.url, `kernels/${name}.wasm`);
    try {
      bytes = new Uint8Array(readFileSync(file));
    } catch (error) {
      throw new Error(`índice: núcleo ${name} no compilado (${file}; npm run build:server): ${(error as Error).message}`);
    }
    bytesOf.set(name, bytes);
  }
  return bytes;
}

const modules = new Map<KernelName, WasmModule>();

/** A kernel compiled once per process (synchronous: about a millisecond). */
export function wasmKernelModule(name: KernelName): WasmModule {
  let mod = modules.get(name);
  if (!mod) {
    mod = new wasm.Module(wasmKernelBytes(name));
    modules.set(name, mod);
  }
  return mod;
}

let relaxedSupport: boolean | undefined;

/**
 * Whether this engine compiles relaxed SIMD (the relaxed scan kernel validates). Node 20's V8 has
 * it behind a flag, which is turned on here: the flag is process-wide, but it only adds
 * instructions that no other module uses unless it asks for them (Node 22 and Electron have them
 * on by default). False where neither works.
 */
export function relaxedSimd(): boolean {
  if (relaxedSupport === undefined) {
    const probe = wasmKernelBytes('scan-kernel-relaxed');
    relaxedSupport = wasm.validate(probe);
    if (!relaxedSupport) {
      try {
        setFlagsFromString('--experimental-wasm-relaxed-simd');
        relaxedSupport = wasm.validate(probe);
      } catch {
        // An engine whose flags can no longer be set: the plain swizzle serves.
      }
    }
  }
  return relaxedSupport;
}

/** The scan kernel for one row width: the compiled module and the widths an instance is given (a worker receives it whole). */
export interface KernelModule {
  module: WasmModule;
  /** int8 row bytes (the padded dimension, a multiple of 32); 4-bit rows take half. */
  stride: number;
  /** float32 row floats (a multiple of 4). */
  strideF32: number;
  /** The fast scan's pairs per row: past 1024 its 16-bit sums could overflow, and such rows (beyond 2048 dimensions) are scanned at 4 bits. */
  pairs: number;
}

/**
 * The scan kernel for int8 rows of `strideI8` bytes (a multiple of 32) and float32 rows of
 * `strideF32` floats (a multiple of 4); `relaxed`: the fast scan's lookups by relaxed swizzle.
 */
export function kernelModule(strideI8: number, strideF32: number, relaxed = relaxedSimd()): KernelModule {
  if (strideI8 % 32 !== 0 || strideF32 % 4 !== 0 || strideI8 <= 0 || strideF32 <= 0)
    throw new Error('int8 stride: a multiple of 32; float32: of 4');
  // Asked for explicitly (tests), relaxed SIMD still needs its flag turned on first.
  if (relaxed && !relaxedSimd()) throw new Error('relaxed SIMD: not available on this engine');
  const module = wasmKernelModule(relaxed ? 'scan-kernel-relaxed' : 'scan-kernel');
  return { module, stride: strideI8, strideF32, pairs: Math.min(1024, strideI8 / 2) };
}

export function instantiateKernel(kernel: KernelModule, memory: WasmMemory): Kernel {
  const { module, stride, strideF32, pairs } = kernel;
  const instance = new wasm.Instance(module, { env: { memory, stride, strideF32, pairs } });
  return instance.exports as Kernel;
}
