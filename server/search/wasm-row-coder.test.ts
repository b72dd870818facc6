import { describe, expect, it } from 'vitest';
import { seededRandom as rng } from '../../test/random.js';
import { normalize } from '../matching/similarity.js';
import { Rotation } from './rotation.js';
import { wasm } from './wasm-kernel.js';
import { rowCoder } from './wasm-row-coder.js';

const T2 = 0.9816;
const STEP4 = 0.33;

/** The coder's arithmetic one dimension at a time in JavaScript, sums in order. */
function reference(v: Float32Array, dpad: number) {
  const y = new Rotation(v.length, dpad).apply(v, new Float64Array(dpad));
  let ss = 0;
  for (const x of y) ss += x * x;
  const sigma = Math.sqrt(ss / dpad);
  const c2: number[] = [];
  const c4: number[] = [];
  const sums = [ss, 0, 0, 0, 0];
  for (const x of y) {
    const c = Number(x >= -T2 * sigma) + Number(x >= 0) + Number(x >= T2 * sigma);
    const n = Math.min(7, Math.max(-7, Math.floor(x * (1 / (STEP4 * sigma)) + 0.5)));
    c2.push(c);
    c4.push(n);
    sums[1]! += (2 * c - 3) * x;
    sums[2]! += (2 * c - 3) ** 2;
    sums[3]! += n * x;
    sums[4]! += n * n;
  }
  return { y, c2, c4, sums };
}

describe('wasm row coder', () => {
  for (const [dim, dpad] of [
    [512, 512],
    [192, 256],
    [100, 128],
  ] as const) {
    it(`rotates, codes and packs a row as the scalar reference does (${dim}-d in ${dpad})`, () => {
      const memory = new wasm.Memory({ initial: 2, maximum: 16, shared: true });
      const coder = rowCoder(dpad, memory);
      const at = { unit: 0, signs: 4096, y: 12288, scratch: 20480, out4: 24576, fs: 32768, res: 65536 };
      const r = rng(dim);
      const rotation = new Rotation(dim, dpad);
      new Float64Array(memory.buffer, at.signs, dpad).set(rotation.signs);
      const u8 = new Uint8Array(memory.buffer);
      let firstRow: number[] = [];
      for (const [row, shift] of [
        [0, 0],
        [1, 4],
      ] as const) {
        const v = Float32Array.from({ length: dim }, () => r() * 2 - 1);
        new Float32Array(memory.buffer, at.unit, dpad).fill(0).set(v);
        // Row 0's nibbles first (low), then row 1's (high) over them: each keeps the other's.
        coder.codeRow(at.unit, at.signs, at.y, at.scratch, at.out4 + row * 1024, at.fs, dpad / 2, shift, at.res, T2, STEP4);
        const ref = reference(v, dpad);
        expect(Array.from(new Float64Array(memory.buffer, at.y, dpad))).toEqual(Array.from(ref.y));
        expect(Array.from(new Uint8Array(memory.buffer, at.scratch, dpad))).toEqual(ref.c2);
        expect(Array.from(new Int8Array(memory.buffer, at.scratch + dpad, dpad))).toEqual(ref.c4);
        const sums = new Float64Array(memory.buffer, at.res, 5);
        ref.sums.forEach((s, k) => expect(sums[k]).toBeCloseTo(s, 9));
        // scanI4's layout: per 32 dimensions, byte 2k holds dimensions k and 8 + k, byte 2k + 1
        // dimensions 16 + k and 24 + k, the first in the low nibble.
        for (let d = 0; d < dpad; d++) {
          const g = d & ~31;
          const i = d - g;
          const byte = u8[at.out4 + row * 1024 + g / 2 + 2 * (i & 7) + (i >= 16 ? 1 : 0)]!;
          const nibble = (i & 15) >= 8 ? byte >> 4 : byte & 15;
          expect(((nibble << 28) >> 28) | 0).toBe(ref.c4[d]);
        }
        for (let p = 0; p < dpad / 2; p++) {
          const nibble = (u8[at.fs + 16 * p]! >> shift) & 15;
          expect(nibble).toBe(ref.c2[2 * p]! | (ref.c2[2 * p + 1]! << 2));
        }
        if (row === 1) {
          for (let p = 0; p < dpad / 2; p++) {
            expect(u8[at.fs + 16 * p]! & 15).toBe(firstRow[2 * p]! | (firstRow[2 * p + 1]! << 2));
          }
        }
        firstRow = ref.c2;
      }
    });
  }

  it('normalises a row to the floats normalize() gives, and hashes their bits (FNV-1a)', () => {
    const memory = new wasm.Memory({ initial: 1, maximum: 16, shared: true });
    const coder = rowCoder(256, memory);
    const r = rng(3);
    for (const dim of [192, 7]) {
      const e = Float32Array.from({ length: dim }, () => (r() - 0.5) * 40);
      const row = new Float32Array(memory.buffer, 64, dim);
      row.set(e);
      const hash = coder.prepareRow(64, dim, 1);
      const expected = normalize(e);
      expect(Array.from(row)).toEqual(Array.from(expected));
      let h = 0x811c9dc5;
      for (const bits of new Int32Array(expected.buffer)) h = Math.imul(h ^ bits, 0x01000193);
      expect(hash).toBe(h | 0);
      // An already normalised row is only hashed.
      expect(coder.prepareRow(64, dim, 0)).toBe(h | 0);
      expect(Array.from(row)).toEqual(Array.from(expected));
    }
    // A zero row stays zero (norm 0 counts as 1).
    new Float32Array(memory.buffer, 64, 8).fill(0);
    coder.prepareRow(64, 8, 1);
    expect(Array.from(new Float32Array(memory.buffer, 64, 8))).toEqual(new Array(8).fill(0));
  });
});
