// Galleries and checks shared by the search index's tests (server/search/*.test.ts).
import { expect } from 'vitest';
import { normalize } from '../server/matching/similarity.js';
import { gaussian, seededRandom as rng } from './random.js';

export function randomVec(r: () => number, dim: number): Float32Array {
  const v = new Float32Array(dim);
  for (let i = 0; i < dim; i++) v[i] = gaussian(r);
  return v;
}

export function noisy(r: () => number, base: Float32Array, sigma: number): Float32Array {
  const v = normalize(base);
  return v.map((x) => x + sigma * gaussian(r) * Math.sqrt(1 / base.length));
}

/** Persons with 1 to 3 samples each; some pairs of near-duplicates. */
export function gallery(seed: number, persons: number, dim: number) {
  const r = rng(seed);
  const out: [string, Float32Array[]][] = [];
  for (let p = 0; p < persons; p++) {
    const base = p % 50 === 1 ? noisy(r, out[p - 1]![1][0]!, 0.05) : randomVec(r, dim);
    const n = 1 + (p % 3);
    out.push([`p${p}`, Array.from({ length: n }, () => noisy(r, base, 0.4))]);
  }
  return out;
}

/** The same persons in the same order with bit-identical scores. */
export function expectSame(a: { idPersona: string; score: number }[], b: { idPersona: string; score: number }[]) {
  expect(a.map((h) => h.idPersona)).toEqual(b.map((h) => h.idPersona));
  expect(a.map((h) => h.score)).toEqual(b.map((h) => h.score));
}

/** The two indexes' sums of their samples' unit vectors agree (to float32 rounding over thousands of rows). */
export function expectSameSum(a: { sampleSum(): Float64Array }, b: { sampleSum(): Float64Array }) {
  const x = a.sampleSum();
  const y = b.sampleSum();
  expect(x.length).toBe(y.length);
  expect(Math.max(...x.map((v, i) => Math.abs(v - y[i]!)))).toBeLessThan(1e-3);
}
