// The search index's native kernels (native/search-kernels.c, built by scripts/build-native.js):
// the 2-bit fast scan with 256- or 512-bit table lookups where WebAssembly has 128-bit ones and the
// 4-bit scoring of a list, with bit-identical scores, and the XOR of a keystream into sealed rows.
// Optional: where they were not built or the CPU lacks AVX2, the index uses its WebAssembly kernel
// and JavaScript, with the same answers. The addon also asks for huge pages (huge-pages.ts).
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { packageRoot } from '../version.js';
import type { Kernel, WasmMemory } from './wasm-kernel.js';

/** The addon's exports. `isa`: 2 AVX-512BW, 1 AVX2; offsets into `memory` as for Kernel.scanFS. */
export interface NativeKernelsAddon {
  /** Kernel.scanFS's arguments after the memory, the instruction set and the pairs per row. */
  scan(memory: Uint8Array, isa: number, pairs: number, ...scanFS: Parameters<Kernel['scanFS']>): number;
  /** The 4-bit score of each row of a list, as Kernel.scoreI4List (`stride` a multiple of 64). */
  scoreList(memory: Uint8Array, stride: number, ...scoreI4List: Parameters<Kernel['scoreI4List']>): void;
  /** dst[i] ^= src[srcOffset + i] for every byte of dst. */
  xorInto(dst: Uint8Array, src: Uint8Array, srcOffset: number): void;
  /** madvise(MADV_HUGEPAGE, or MADV_NOHUGEPAGE) over the whole 2 MiB pages inside `memory`: the bytes advised, -1 if refused (huge-pages.ts). */
  adviseHugePages(memory: Uint8Array, huge: boolean): number;
  isa(): { level: number; name: string };
}

export interface NativeKernels {
  /** The addon's file, for the scan worker to load it too. */
  file: string;
  /** The instruction set it scans with: 2 AVX-512BW, 1 AVX2. */
  isa: 1 | 2;
  name: string;
  addon: NativeKernelsAddon;
}

export function nativeKernelsFile(): string {
  return path.join(packageRoot(), 'dist', 'server', 'search', 'native', 'search-kernels.node');
}

let loaded: { kernels: NativeKernels | null; why: string } | undefined;

/** The native kernels, or null with the reason (the index then uses its WebAssembly kernel and JavaScript). */
export function nativeKernels(): { kernels: NativeKernels | null; why: string } {
  if (loaded) return loaded;
  const file = nativeKernelsFile();
  if (process.arch !== 'x64') loaded = { kernels: null, why: `${process.arch}: only x86-64 is built` };
  else if (!existsSync(file)) loaded = { kernels: null, why: `not built (${file})` };
  else {
    try {
      const addon = createRequire(import.meta.url)(file) as NativeKernelsAddon;
      const { level, name } = addon.isa();
      loaded =
        level === 1 || level === 2
          ? { kernels: { file, isa: level, name, addon }, why: '' }
          : { kernels: null, why: 'the processor has neither AVX2 nor AVX-512BW' };
    } catch (err) {
      loaded = { kernels: null, why: `not loaded: ${(err as Error).message}` };
    }
  }
  return loaded;
}

/** For an index's ready log line: which kernel scans (and why not the native one where it is not), and whether on huge pages. */
export function kernelLogFields(index: { firstPassKernel: string; hugePages: string }): {
  kernel: string;
  hugePages: string;
  nativeKernels?: string;
} {
  const { kernels, why } = nativeKernels();
  const fields = { kernel: index.firstPassKernel, hugePages: index.hugePages };
  return kernels ? fields : { ...fields, nativeKernels: why };
}

export type ScanKernel = Pick<Kernel, 'scanI8' | 'scanI4' | 'scanFS' | 'scoreI4List'>;

/**
 * `kernel` with its 2-bit fast scan (where `pairs` > 0) and its list scoring (where `stride`, the
 * padded dimension, is a multiple of 64) done by the addon, on the caller's thread and in the scan
 * worker alike: a view of the memory is made again only after it grew.
 */
export function withNativeKernel(
  kernel: ScanKernel,
  addon: Pick<NativeKernelsAddon, 'scan' | 'scoreList'>,
  memory: WasmMemory,
  isa: number,
  pairs: number,
  stride: number,
): ScanKernel {
  let buffer = memory.buffer;
  let view = new Uint8Array(buffer);
  const current = () => {
    if (memory.buffer !== buffer) {
      buffer = memory.buffer;
      view = new Uint8Array(buffer);
    }
    return view;
  };
  return {
    scanI8: kernel.scanI8,
    scanI4: kernel.scanI4,
    scanFS:
      pairs > 0
        ? (lut, codes, scales, start, end, thr, out, errs, eScale) =>
            addon.scan(current(), isa, pairs, lut, codes, scales, start, end, thr, out, errs, eScale)
        : kernel.scanFS,
    scoreI4List:
      stride % 64 === 0
        ? (q, codes, scales, list, count, out) => addon.scoreList(current(), stride, q, codes, scales, list, count, out)
        : kernel.scoreI4List,
  };
}
