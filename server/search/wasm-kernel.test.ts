import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import wabtInit from 'wabt';
import { describe, expect, it } from 'vitest';
import { dot } from '../matching/similarity.js';
import { type KernelName, kernelModule, instantiateKernel, relaxedSimd, wasm, wasmKernelBytes } from './wasm-kernel.js';
import { seededRandom as rng } from '../../test/random.js';

describe('wasm kernel', () => {
  it('computes int8 x int16 dot products and float32 dot products exactly', () => {
    const stride = 64;
    const memory = new wasm.Memory({ initial: 1, maximum: 16, shared: true });
    const k = instantiateKernel(kernelModule(stride, 48), memory);
    expect(() => kernelModule(48, 48)).toThrow();
    const r = rng(7);
    const rows = new Int8Array(memory.buffer, 1024, 12 * stride);
    for (let i = 0; i < rows.length; i++) rows[i] = Math.floor(r() * 255) - 127;
    const q = new Int16Array(memory.buffer, 0, stride);
    for (let i = 0; i < stride; i++) q[i] = Math.floor(r() * 32000) - 16000;
    new Float32Array(memory.buffer, 8192, 12).fill(0.5);
    const n = k.scanI8(0, 1024, 8192, 0, 12, -Infinity, 16384);
    expect(n).toBe(12);
    const out = new Int32Array(memory.buffer, 16384, 24);
    const outF = new Float32Array(memory.buffer, 16384, 24);
    for (let row = 0; row < 12; row++) {
      let s = 0;
      for (let i = 0; i < stride; i++) s += rows[row * stride + i]! * q[i]!;
      expect(out[2 * row]).toBe(row);
      expect(outF[2 * row + 1]).toBe(Math.fround(Math.fround(s) * 0.5));
    }
    // 4-bit codes: per 32 dimensions, eight 16-bit lanes of four nibbles (dimension 8k + i).
    const codes = new Uint8Array(memory.buffer, 24576, 12 * (stride / 2));
    const nib = (x: number) => Math.round(x / 17);
    for (let row = 0; row < 12; row++) {
      const h = (d: number) => nib(rows[row * stride + d]!) & 15;
      for (let g = 0; g < stride; g += 32) {
        for (let i = 0; i < 8; i++) {
          codes[row * (stride / 2) + g / 2 + 2 * i] = h(g + i) | (h(g + 8 + i) << 4);
          codes[row * (stride / 2) + g / 2 + 2 * i + 1] = h(g + 16 + i) | (h(g + 24 + i) << 4);
        }
      }
    }
    expect(k.scanI4(0, 24576, 8192, 0, 12, -Infinity, 16384)).toBe(12);
    for (let row = 0; row < 12; row++) {
      let s = 0;
      for (let i = 0; i < stride; i++) s += nib(rows[row * stride + i]!) * q[i]!;
      expect(outF[2 * row + 1]).toBe(Math.fround(Math.fround(s) * 0.5));
    }
    const f = new Float32Array(memory.buffer, 32768, 3 * 48);
    const fq = new Float32Array(memory.buffer, 40000, 48);
    for (let i = 0; i < f.length; i++) f[i] = r() - 0.5;
    for (let i = 0; i < 48; i++) fq[i] = r() - 0.5;
    k.dotF32(40000, 32768, 0, 3, 50000);
    const d = new Float32Array(memory.buffer, 50000, 3);
    for (let row = 0; row < 3; row++) expect(d[row]).toBeCloseTo(dot(fq, f.subarray(row * 48, row * 48 + 48)), 5);
  });

  it('compiles relaxed SIMD on this Node (its flag turned on where it is not the default)', () => {
    expect(relaxedSimd()).toBe(true);
  });

  it.each([false, true])(
    'sums the fast-scan tables exactly, every row of a block in its place, each raised by its own error (relaxed swizzle: %s)',
    (relaxed) => {
      const stride = 64;
      const memory = new wasm.Memory({ initial: 2, maximum: 16, shared: true });
      const k = instantiateKernel(kernelModule(stride, 64, relaxed), memory);
      const r = rng(11);
      const groups = stride / 2;
      // Entries at the extremes the kernel allows (+-31) as well as in between.
      const lut = new Int8Array(memory.buffer, 0, groups * 16);
      for (let i = 0; i < lut.length; i++) lut[i] = i % 7 === 0 ? (i % 2 ? 31 : -31) : Math.floor(r() * 63) - 31;
      const rows = 64;
      const codes = new Uint8Array(memory.buffer, 4096, (rows / 32) * groups * 16);
      for (let i = 0; i < codes.length; i++) codes[i] = Math.floor(r() * 256);
      const scales = new Float32Array(memory.buffer, 32768, rows).fill(0.25);
      scales[5] = NaN; // a tombstone
      // Each row's error, added times eScale: 0 gives the plain estimate.
      const errs = new Float32Array(memory.buffer, 36864, rows);
      for (let row = 0; row < rows; row++) errs[row] = row / 8;
      for (const eScale of [0, 2]) {
        const n = k.scanFS(0, 4096, 32768, 0, rows, -Infinity, 40000, 36864, eScale);
        expect(n).toBe(rows - 1);
        const out = new Int32Array(memory.buffer, 40000, 2 * n);
        const outF = new Float32Array(memory.buffer, 40000, 2 * n);
        const got = new Map<number, number>();
        for (let i = 0; i < n; i++) got.set(out[2 * i]!, outF[2 * i + 1]!);
        for (let row = 0; row < rows; row++) {
          if (row === 5) continue;
          const j = row & 31;
          let sum = 0;
          for (let g = 0; g < groups; g++) {
            const byte = codes[(row >> 5) * groups * 16 + g * 16 + (j & 15)]!;
            sum += lut[16 * g + (j >= 16 ? byte >> 4 : byte & 15)]!;
          }
          expect(got.get(row)).toBe(Math.fround(Math.fround(sum * 0.25) + Math.fround(eScale * errs[row]!)));
        }
      }
    },
  );
});

describe('the WebAssembly kernels built', () => {
  it('are their WebAssembly text compiled as it is now (npm run build:server builds them)', async () => {
    const wabt = await wabtInit();
    const dir = path.join(path.dirname(fileURLToPath(import.meta.url)), 'kernels');
    const sources = readdirSync(dir).filter((f) => f.endsWith('.wat'));
    expect(sources.sort()).toEqual(['memory-loads.wat', 'row-coder.wat', 'scan-kernel.wat']);
    const compile = (text: string) => {
      const parsed = wabt.parseWat('kernel.wat', text, { simd: true, threads: true, relaxed_simd: true });
      try {
        return new Uint8Array(parsed.toBinary({}).buffer);
      } finally {
        parsed.destroy();
      }
    };
    for (const file of sources) {
      const name = path.basename(file, '.wat') as KernelName;
      const text = readFileSync(path.join(dir, file), 'utf8');
      expect(wasmKernelBytes(name)).toEqual(compile(text));
      if (name === 'scan-kernel')
        expect(wasmKernelBytes('scan-kernel-relaxed')).toEqual(
          compile(text.replaceAll('i8x16.swizzle', 'i8x16.relaxed_swizzle')),
        );
    }
  });
});
