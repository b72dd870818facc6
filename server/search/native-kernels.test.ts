import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { gaussian, seededRandom as rng } from '../../test/random.js';
import { kernelLogFields, nativeKernels, withNativeKernel, type NativeKernels } from './native-kernels.js';
import { QuantizedEmbeddingIndex } from './quantized-index.js';
import { instantiateKernel, kernelModule, wasm, type WasmMemory } from './wasm-kernel.js';

const cpuFlags = (() => {
  try {
    const line = /^flags\s*:(.*)$/m.exec(readFileSync('/proc/cpuinfo', 'utf8'));
    return new Set(line ? line[1]!.trim().split(/\s+/) : []);
  } catch {
    return new Set<string>();
  }
})();
// Where the build must have produced the kernel: x86-64 with AVX2 and Node's headers, which
// scripts/build-native.js compiles against (elsewhere the index runs on its WebAssembly kernel).
const nodeHeaders = [path.join(path.dirname(process.execPath), '..', 'include', 'node'), '/usr/include/node'].some((dir) =>
  existsSync(path.join(dir, 'node_api.h')),
);
const expected = process.arch === 'x64' && cpuFlags.has('avx2') && nodeHeaders;

function loaded(): NativeKernels {
  const { kernels: scan, why } = nativeKernels();
  if (!scan) throw new Error(`native kernel: ${why} (npm run build:server builds it)`);
  return scan;
}

/** One kernel's memory with random codes, tables, scales (some NaN: tombstones) and errors. */
function setUp(dpad: number, rows: number, seed: number) {
  const pairs = dpad / 2;
  const blockBytes = pairs * 16;
  const rowBytes4 = dpad / 2;
  const lut = 0;
  const q = lut + pairs * 16;
  const codes = 65536;
  const codes4 = codes + (rows / 32) * blockBytes;
  const scales = codes4 + rows * rowBytes4;
  const errs = scales + rows * 4;
  const list = errs + rows * 4;
  const out = list + rows * 4;
  const out2 = out + rows * 8;
  const memory = new wasm.Memory({ initial: Math.ceil((out2 + rows * 8) / 65536) + 1, maximum: 65536, shared: true });
  const r = rng(seed);
  const b = memory.buffer;
  const i8 = new Int8Array(b);
  for (let i = 0; i < pairs * 16; i++) i8[lut + i] = Math.floor(r() * 63) - 31;
  const i16 = new Int16Array(b, q, dpad);
  for (let i = 0; i < dpad; i++) i16[i] = Math.floor(r() * 32767) - 16383;
  const u8 = new Uint8Array(b);
  for (let i = codes; i < scales; i++) u8[i] = Math.floor(r() * 256);
  const f32 = new Float32Array(b);
  for (let row = 0; row < rows; row++) {
    f32[scales / 4 + row] = row % 97 === 5 ? NaN : r() * 0.01;
    f32[errs / 4 + row] = r() * 0.02;
  }
  return { memory, pairs, lut, q, codes, codes4, scales, errs, list, out, out2 };
}

function bytes(memory: WasmMemory, at: number, n: number): Uint8Array {
  return new Uint8Array(memory.buffer, at, n).slice();
}

describe('native fast scan', () => {
  it.runIf(expected)('is built and loaded where the CPU has AVX2, with the widest instructions it has', () => {
    const scan = loaded();
    expect(scan.name).toBe(cpuFlags.has('avx512bw') ? 'avx512bw' : 'avx2');
  });

  it.runIf(expected)("writes the WebAssembly kernel's rows and scores, bit for bit, with each instruction set", () => {
    const native = loaded();
    const levels = native.isa === 2 ? [1, 2] : [1];
    const rows = 32 * 160;
    for (const dpad of [32, 64, 256, 512, 2048]) {
      const m = setUp(dpad, rows, dpad);
      const wasmKernel = instantiateKernel(kernelModule(dpad, dpad), m.memory);
      // Whole shards, a shard ending inside a block (the block is scanned whole, as the kernel does),
      // thresholds that keep none, some and all (NaN scales never pass).
      for (const [start, end, thr, eScale] of [
        [0, rows, 0.05, 1.5],
        [64, rows - 32, -1e9, 0.7],
        [32 * 10, 32 * 100 + 7, 0.1, 0],
        [0, rows, 1e9, 1],
      ] as const) {
        const n = wasmKernel.scanFS(m.lut, m.codes, m.scales, start, end, thr, m.out, m.errs, eScale);
        const expectedBytes = bytes(m.memory, m.out, 8 * n);
        for (const isa of levels) {
          const got = native.addon.scan(
            new Uint8Array(m.memory.buffer),
            isa,
            m.pairs,
            m.lut,
            m.codes,
            m.scales,
            start,
            end,
            thr,
            m.out2,
            m.errs,
            eScale,
          );
          expect(got).toBe(n);
          expect(bytes(m.memory, m.out2, 8 * got)).toEqual(expectedBytes);
        }
      }
    }
  });

  it.runIf(expected)("scores a list of 4-bit rows as the WebAssembly kernel's scoreI4List, bit for bit", () => {
    const native = loaded();
    const rows = 32 * 64;
    for (const dpad of [64, 128, 512, 8192]) {
      const m = setUp(dpad, rows, 7 + dpad);
      const wasmKernel = instantiateKernel(kernelModule(dpad, dpad), m.memory);
      const r = rng(dpad);
      const count = 1500;
      const list = new Int32Array(m.memory.buffer, m.list, count);
      for (let i = 0; i < count; i++) list[i] = Math.floor(r() * rows);
      wasmKernel.scoreI4List(m.q, m.codes4, m.scales, m.list, count, m.out);
      native.addon.scoreList(new Uint8Array(m.memory.buffer), dpad, m.q, m.codes4, m.scales, m.list, count, m.out2);
      expect(bytes(m.memory, m.out2, 4 * count)).toEqual(bytes(m.memory, m.out, 4 * count));
    }
  });

  it.runIf(expected)('refuses offsets outside the memory with an error instead of reading past it', () => {
    const native = loaded();
    const m = setUp(256, 32 * 8, 1);
    const view = new Uint8Array(m.memory.buffer);
    const length = view.byteLength;
    expect(() => native.addon.scan(view, 1, m.pairs, m.lut, length - 64, m.scales, 0, 64, 0, m.out, m.errs, 1)).toThrow(
      RangeError,
    );
    expect(() => native.addon.scan(view, 1, m.pairs, m.lut, m.codes, m.scales, 3, 64, 0, m.out, m.errs, 1)).toThrow(RangeError);
    new Int32Array(m.memory.buffer, m.list, 2).set([0, 1 << 30]);
    expect(() => native.addon.scoreList(view, 256, m.q, m.codes4, m.scales, m.list, 2, m.out)).toThrow(RangeError);
    expect(() => native.addon.xorInto(new Uint8Array(16), new Uint8Array(24), 9)).toThrow(RangeError);
    // A call with arguments missing (the addon's own check, beside TypeScript's).
    const partial = native.addon.scan as unknown as (...args: unknown[]) => number;
    expect(() => partial(view, 1, m.pairs, m.lut)).toThrow(/argumentos/);
  });

  it.runIf(expected)('sees the memory after it grows (a gallery that outgrows its reservation)', () => {
    const native = loaded();
    const m = setUp(64, 32 * 4, 2);
    const wasmKernel = instantiateKernel(kernelModule(64, 64), m.memory);
    const kernel = withNativeKernel(wasmKernel, native.addon, m.memory, native.isa, m.pairs, 64);
    const before = m.memory.buffer.byteLength;
    m.memory.grow(4);
    // Rows placed past the old end are read through a view of the grown memory.
    const codes = before;
    new Uint8Array(m.memory.buffer).copyWithin(codes, m.codes, m.codes + 4 * 32 * 16);
    const n = kernel.scanFS(m.lut, codes, m.scales, 0, 128, -1e9, m.out2, m.errs, 1);
    const w = wasmKernel.scanFS(m.lut, codes, m.scales, 0, 128, -1e9, m.out, m.errs, 1);
    expect(n).toBe(w);
    expect(bytes(m.memory, m.out2, 8 * n)).toEqual(bytes(m.memory, m.out, 8 * w));
  });
});

describe('the index on the native kernel', () => {
  function randomVec(r: () => number, dim: number): Float32Array {
    return Float32Array.from({ length: dim }, () => gaussian(r));
  }

  it.runIf(expected)('gives the same hits, scores and passes as on the WebAssembly kernel, on one thread and two', async () => {
    // 512-d: the 2-bit fast scan; 128-d: 4-bit rows, the list scored natively.
    for (const dim of [512, 128]) {
      const options = { threads: 2, parallelFrom: 0, firstPass: 1024 };
      const native = await QuantizedEmbeddingIndex.create(dim, options);
      const plain = await QuantizedEmbeddingIndex.create(dim, { ...options, nativeScan: false });
      const single = new QuantizedEmbeddingIndex(dim);
      expect(native.firstPassKernel).toBe(dim === 512 ? `native ${loaded().name}` : 'wasm 4-bit');
      // What the station's ready log line says of it.
      expect(kernelLogFields(native)).toEqual({ kernel: native.firstPassKernel, hugePages: native.hugePages });
      expect(plain.firstPassKernel).toMatch(/^wasm/);
      const r = rng(dim);
      const bases: Float32Array[] = [];
      for (let p = 0; p < 3000; p++) {
        const v = randomVec(r, dim);
        bases.push(v);
        for (const index of [native, plain, single]) index.add(`p${p}`, v);
      }
      for (let i = 0; i < 25; i++) {
        // Enrolled persons seen again with noise, and strangers.
        const probe = i % 2 ? randomVec(r, dim) : bases[i * 97]!.map((x) => x + 0.6 * gaussian(r));
        const a = native.search(probe, 10);
        const b = plain.search(probe, 10);
        expect(a).toEqual(b);
        expect(single.search(probe, 10)).toEqual(b);
        expect(native.lastSearch.firstPassRows).toBe(plain.lastSearch.firstPassRows);
        expect(native.lastSearch.rerankedRows).toBe(plain.lastSearch.rerankedRows);
        expect(native.threads).toBe(2);
      }
      await native.close();
      await plain.close();
    }
  });
});
