import { describe, expect, it } from 'vitest';
import { seededRandom as rng } from '../../test/random.js';
import { scanShard, selectNth } from './scan-shard.js';
import type { Kernel } from './wasm-kernel.js';

/** A kernel over plain scores (row r scores `scores[r]`), writing (row, score) pairs as the WebAssembly ones do. */
function scoresKernel(scores: Float32Array, buffer: ArrayBuffer): Pick<Kernel, 'scanI8' | 'scanI4' | 'scanFS'> {
  const scanI8 = (_q: number, _rows: number, _scales: number, start: number, end: number, thr: number, out: number) => {
    const row = new Int32Array(buffer, out);
    const score = new Float32Array(buffer, out);
    let n = 0;
    for (let r = start; r < end; r++) {
      if (scores[r]! >= thr) {
        row[2 * n] = r;
        score[2 * n + 1] = scores[r]!;
        n++;
      }
    }
    return n;
  };
  return { scanI8, scanI4: scanI8, scanFS: scanI8 };
}

function topRows(scores: Float32Array, start: number, end: number, keep: number, floor: number): number[] {
  return Array.from({ length: end - start }, (_, i) => start + i)
    .filter((r) => scores[r]! >= floor)
    .sort((a, b) => scores[b]! - scores[a]! || a - b)
    .slice(0, keep)
    .sort((a, b) => a - b);
}

describe('scanShard', () => {
  const block = 1024;
  const out = 0;
  const res = block * 8;

  function run(scores: Float32Array, start: number, end: number, keep: number, floor = -Infinity): number[] {
    const buffer = new ArrayBuffer(res + 8 * keep + 8);
    const n = scanShard(scoresKernel(scores, buffer), buffer, 0, 0, 0, start, end, keep, out, res, block, 0, floor, 0, 0);
    return Array.from(new Int32Array(buffer, res, 2 * n).filter((_, i) => i % 2 === 0)).sort((a, b) => a - b);
  }

  it('keeps exactly the best rows, with a first threshold guessed from the first block or without one', () => {
    const r = rng(3);
    const scores = Float32Array.from({ length: 60_000 }, () => r());
    for (const [start, end, keep] of [
      [0, 60_000, 500],
      [4_096, 50_000, 2_000],
      [0, 3_000, 100],
      [0, 60_000, 20_000],
    ] as const) {
      expect(run(scores, start, end, keep)).toEqual(topRows(scores, start, end, keep, -Infinity));
      expect(run(scores, start, end, keep, 0.5)).toEqual(topRows(scores, start, end, keep, 0.5));
    }
  });

  it('scans again when the first block misled the guess: its rows all score above the rest', () => {
    const r = rng(4);
    const scores = Float32Array.from({ length: 40_000 }, (_, i) => (i < block ? 10 + r() : r()));
    expect(run(scores, 0, 40_000, 300)).toEqual(topRows(scores, 0, 40_000, 300, -Infinity));
    // The guess (the first block's best share) lies above every later row: most of the best 2,000 lie after it.
    expect(run(scores, 0, 40_000, 2_000)).toEqual(topRows(scores, 0, 40_000, 2_000, -Infinity));
  });
});

describe('selectNth', () => {
  it('finds the k-th smallest value and leaves no larger value before it, duplicates included', () => {
    let seed = 7;
    const rnd = () => (seed = (seed * 1103515245 + 12345) >>> 0) / 2 ** 32;
    for (let round = 0; round < 200; round++) {
      const n = 1 + Math.floor(rnd() * 300);
      // Few distinct values in some rounds: ties are the hard case for the partition.
      const levels = round % 2 ? 5 : 1000;
      const a = Float32Array.from({ length: n }, () => Math.floor(rnd() * levels) - levels / 2);
      const sorted = a.slice().sort();
      const k = Math.floor(rnd() * n);
      const copy = a.slice();
      expect(selectNth(copy, k)).toBe(sorted[k]);
      for (let i = 0; i < k; i++) expect(copy[i]).toBeLessThanOrEqual(sorted[k]!);
      expect(copy.slice().sort()).toEqual(sorted);
    }
  });
});
