import { describe, expect, it } from 'vitest';
import { dot } from '../matching/similarity.js';
import { hashAndDotRows, rowHash } from './row-scores.js';

describe('hashAndDotRows', () => {
  it('gives each row the hash and the dot product of the one-row functions, bit for bit', () => {
    let seed = 7;
    const rand = () => ((seed = (seed * 1103515245 + 12345) >>> 0) / 2 ** 32) * 2 - 1;
    for (const dim of [1, 3, 128, 192]) {
      const q = Float32Array.from({ length: dim }, rand);
      for (let n = 0; n <= 9; n++) {
        const rows = Float32Array.from({ length: n * dim }, rand);
        const hashes = new Int32Array(n);
        const dots = new Float64Array(n);
        hashAndDotRows(q, rows, dim, n, hashes, dots);
        for (let r = 0; r < n; r++) {
          const row = rows.subarray(r * dim, (r + 1) * dim);
          expect(hashes[r]).toBe(rowHash(new Int32Array(row.slice().buffer)));
          expect(dots[r]).toBe(dot(q, row));
        }
      }
    }
  });
});
