// 2 MiB pages for the search index's memory. The first pass streams every row's codes (122 MB at
// 1M x 512); over 4 KiB pages that is a TLB miss and a page walk every 4 KiB, two walks inside a
// VM, which a scan of a gallery held in memory waited on beside the memory itself.
// Linux backs anonymous memory with huge pages where its transparent huge pages are `always`, or
// `madvise` (Debian's default) for memory advised so, which only native code can ask for: the
// search kernels' addon does (native-kernels.ts). Without the addon, or with them `never`, the
// index runs on 4 KiB pages, with the same answers.
import { readFileSync } from 'node:fs';
import { nativeKernels } from './native-kernels.js';
import type { WasmMemory } from './wasm-kernel.js';

export type TransparentHugePages = 'always' | 'madvise' | 'never' | 'unavailable';

/** The kernel's setting (the bracketed word of /sys/kernel/mm/transparent_hugepage/enabled). */
export function transparentHugePages(): TransparentHugePages {
  try {
    const mode = /\[(\w+)\]/.exec(readFileSync('/sys/kernel/mm/transparent_hugepage/enabled', 'utf8'))?.[1];
    return mode === 'always' || mode === 'madvise' || mode === 'never' ? mode : 'unavailable';
  } catch {
    return 'unavailable';
  }
}

/**
 * Advises the whole 2 MiB pages inside `memory` to be huge (`huge` false: never huge, even where
 * the transparent huge pages are `always`): the pages touched after this are so. Returns the bytes
 * advised (0: no whole 2 MiB page inside), -1 where it cannot be asked (no addon, not Linux) or
 * Linux refused.
 */
export function adviseHugePages(memory: WasmMemory, huge = true): number {
  const addon = nativeKernels().kernels?.addon;
  return addon ? addon.adviseHugePages(new Uint8Array(memory.buffer), huge) : -1;
}

/** Bytes of this process's memory on huge pages now (AnonHugePages of /proc/self/smaps_rollup), null if unknown. */
export function anonHugePagesBytes(): number | null {
  try {
    const kb = /^AnonHugePages:\s+(\d+) kB/m.exec(readFileSync('/proc/self/smaps_rollup', 'utf8'))?.[1];
    return kb === undefined ? null : Number(kb) * 1024;
  } catch {
    return null;
  }
}

/**
 * For logs and benchmarks: whether the index's memory can be on huge pages. `advised` the most
 * bytes the index advised at once so far (for or against huge pages, as `enabled`), -1 if its
 * advice could not be given.
 */
export function hugePagesState(enabled: boolean, advised: number): string {
  const mode = transparentHugePages();
  if (mode === 'never' || mode === 'unavailable') return `no (transparent huge pages ${mode})`;
  if (!enabled) return mode === 'always' && advised < 0 ? 'always (transparent huge pages; not turned off)' : 'no (turned off)';
  if (mode === 'always') return 'always (transparent huge pages)';
  if (advised > 0) return 'advised';
  if (advised === 0) return 'no (smaller than a huge page)';
  return `no (${nativeKernels().kernels ? 'advice refused' : 'native kernels not loaded'})`;
}
