import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { adviseHugePages, anonHugePagesBytes, transparentHugePages } from './huge-pages.js';
import { nativeKernels } from './native-kernels.js';
import { QuantizedEmbeddingIndex } from './quantized-index.js';
import { wasm } from './wasm-kernel.js';

const MiB = 2 ** 20;
const mode = transparentHugePages();
// The addon is built where native-kernels.test.ts expects it; these run wherever it loaded.
const addon = nativeKernels().kernels !== null;
const linux = process.platform === 'linux' && existsSync('/proc/self/smaps_rollup');

function sharedMemory(mib: number) {
  return new wasm.Memory({ initial: mib * 16, maximum: 65536, shared: true });
}

describe('huge pages for the search index', () => {
  it.runIf(addon && linux)('advises the whole 2 MiB pages inside the memory, and only those', () => {
    const memory = sharedMemory(64);
    const advised = adviseHugePages(memory);
    expect(advised % (2 * MiB)).toBe(0);
    // The buffer need not start on a 2 MiB boundary: at most one page is left out at each end.
    expect(advised).toBeGreaterThanOrEqual(60 * MiB);
    expect(advised).toBeLessThanOrEqual(64 * MiB);
    // A memory smaller than one huge page holds none.
    expect(adviseHugePages(sharedMemory(1))).toBe(0);
  });

  it.runIf(addon && linux && (mode === 'madvise' || mode === 'always'))(
    "puts the advised memory's pages on huge pages when they are first written",
    () => {
      const memory = sharedMemory(64);
      const before = anonHugePagesBytes()!;
      expect(adviseHugePages(memory)).toBeGreaterThan(0);
      new Uint8Array(memory.buffer).fill(1);
      // Linux falls back to 4 KiB pages where it finds no free 2 MiB ones: most, not all, must be huge.
      expect(anonHugePagesBytes()! - before).toBeGreaterThanOrEqual(32 * MiB);
    },
  );

  it.runIf(addon && linux && (mode === 'madvise' || mode === 'always'))(
    'keeps memory advised against huge pages on 4 KiB pages, even after an advice for them',
    () => {
      const memory = sharedMemory(64);
      const before = anonHugePagesBytes()!;
      expect(adviseHugePages(memory)).toBeGreaterThan(0);
      expect(adviseHugePages(memory, false)).toBeGreaterThan(0);
      new Uint8Array(memory.buffer).fill(1);
      // Other memory of the process may turn huge meanwhile (vitest's own): far less than this.
      expect(anonHugePagesBytes()! - before).toBeLessThan(8 * MiB);
    },
  );

  it.runIf(addon && linux)('is what the index asks for its memory unless told not to, and says so', async () => {
    const on = new QuantizedEmbeddingIndex(512, { capacity: 100_000 });
    const off = new QuantizedEmbeddingIndex(512, { capacity: 100_000, hugePages: false });
    // Turned off, the advice is against huge pages, which keeps them off where they are `always` too.
    const states =
      mode === 'madvise'
        ? ['advised', 'no (turned off)']
        : mode === 'always'
          ? ['always (transparent huge pages)', 'no (turned off)']
          : [`no (transparent huge pages ${mode})`, `no (transparent huge pages ${mode})`];
    expect([on.hugePages, off.hugePages]).toEqual(states);
    await on.close();
    await off.close();
  });
});
