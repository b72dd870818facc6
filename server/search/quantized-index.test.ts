import { describe, expect, it } from 'vitest';
import { EmbeddingIndex } from './embedding-index.js';
import { QuantizedEmbeddingIndex } from './quantized-index.js';
import { seededRandom as rng } from '../../test/random.js';
import { expectSame, expectSameSum, gallery, noisy, randomVec } from '../../test/search-gallery.js';

describe('QuantizedEmbeddingIndex', () => {
  for (const [dim, firstPass, bits] of [
    [64, 2048, 2],
    [100, 32, 2],
    [64, 2048, 4],
    [100, 32, 4],
    [300, 32, 2],
  ] as const) {
    it(`gives the exact brute-force top-k, ids and scores, at ${dim}-d, first pass of ${firstPass} rows over ${bits}-bit codes`, () => {
      const exact = new EmbeddingIndex(dim);
      // A short first pass and shortlist: the error bound has to widen them.
      const fast = new QuantizedEmbeddingIndex(dim, {
        firstPass,
        firstPassBits: bits,
        shortlist: firstPass === 32 ? 8 : 64,
        shortlistPerHit: 1,
      });
      const g = gallery(dim, 3000, dim);
      for (const [id, list] of g) {
        exact.set(id, list);
        fast.set(id, list);
      }
      expect(fast.personCount).toBe(exact.personCount);
      expect(fast.sampleCount).toBe(exact.sampleCount);
      const r = rng(99);
      for (let i = 0; i < 40; i++) {
        const probe = i % 2 ? randomVec(r, dim) : noisy(r, g[i * 37]![1][0]!, 0.3);
        expectSame(fast.search(probe, 10), exact.search(probe, 10));
        expectSame(fast.search(probe, 1), exact.search(probe, 1));
      }
    });
  }

  it('scans on two threads with the same result, a long 4-bit list scored on both', async () => {
    const dim = 128;
    const one = new QuantizedEmbeddingIndex(dim);
    const two = await QuantizedEmbeddingIndex.create(dim, { threads: 2, parallelFrom: 0 });
    expect(two.threads).toBe(2);
    for (const [id, list] of gallery(5, 2000, dim)) {
      one.set(id, list);
      two.set(id, list);
    }
    // A crowd of near copies of one face: every one of them is within the bound of the k-th
    // score, so the 4-bit list is long enough to be split between the threads.
    const r = rng(3);
    const face = randomVec(r, dim);
    for (let i = 0; i < 6000; i++) {
      const v = noisy(r, face, 0.05);
      one.set(`crowd${i}`, [v]);
      two.set(`crowd${i}`, [v]);
    }
    for (let i = 0; i < 20; i++) {
      const probe = i % 2 ? randomVec(r, dim) : noisy(r, face, 0.05);
      expectSame(two.search(probe, 10), one.search(probe, 10));
      // Past 5,000 rows over at most two settles (each at most 256 rows before the rest), one
      // list scored reached the 2,048 rows from which the worker scores half of it.
      if (i % 2 === 0) {
        expect(two.lastSearch.passes).toBeLessThanOrEqual(2);
        expect(two.lastSearch.refinedRows).toBeGreaterThanOrEqual(5000);
      }
      // The first pass's time splits into the caller's half and its wait; the worker times its own half.
      const t = two.lastSearch;
      expect(t.firstPassOwnMs).toBeGreaterThan(0);
      expect(t.firstPassOwnMs + t.firstPassWaitMs).toBeLessThanOrEqual(t.firstPassMs);
      expect(t.firstPassWorkerMs).toBeGreaterThan(0);
      expect(one.lastSearch.firstPassOwnMs).toBe(0);
    }
    await two.close();
  });

  it('scores at 4 bits and re-ranks only the rows the bound asks for, with the exact answer', () => {
    const dim = 256;
    const exact = new EmbeddingIndex(dim);
    // A first list far longer than the bound needs: most of it is never scored further.
    const fast = new QuantizedEmbeddingIndex(dim, { firstPass: 4096 });
    const g = gallery(21, 8000, dim);
    for (const [id, list] of g) {
      exact.set(id, list);
      fast.set(id, list);
    }
    const r = rng(8);
    for (let i = 0; i < 10; i++) {
      const probe = noisy(r, g[i * 101]![1][0]!, 0.5);
      expectSame(fast.search(probe, 10), exact.search(probe, 10));
      const t = fast.lastSearch;
      expect(t.firstPassRows).toBeGreaterThanOrEqual(4096);
      expect(t.refinedRows).toBeLessThan(t.firstPassRows / 2);
      expect(t.rerankedRows).toBeLessThan(t.refinedRows / 4);
    }
  });

  it('takes the best sample of each person, once per person', () => {
    const index = new QuantizedEmbeddingIndex(4);
    index.set('a', [new Float32Array([1, 0, 0, 0]), new Float32Array([0, 1, 0, 0])]);
    index.add('a', new Float32Array([0.6, 0.8, 0, 0]));
    index.add('b', new Float32Array([0, 0, 1, 0]));
    const hits = index.search(new Float32Array([0, 2, 0, 0]), 5);
    expect(hits.map((h) => h.idPersona)).toEqual(['a', 'b']);
    expect(hits[0]!.score).toBe(1);
    expect(hits[1]!.score).toBe(0);
    expect(index.sampleCount).toBe(4);
    expect(index.personCount).toBe(2);
  });

  it('returns k persons when one person has more samples than the shortlist', () => {
    const index = new QuantizedEmbeddingIndex(16, { shortlist: 8, shortlistPerHit: 1 });
    const r = rng(4);
    const base = randomVec(r, 16);
    for (let i = 0; i < 40; i++) index.add('many', noisy(r, base, 0.1));
    for (let i = 0; i < 20; i++) index.add(`other${i}`, randomVec(r, 16));
    const hits = index.search(base, 5);
    expect(hits).toHaveLength(5);
    expect(hits[0]!.idPersona).toBe('many');
    expect(new Set(hits.map((h) => h.idPersona)).size).toBe(5);
  });

  it('leaves out the excluded person', () => {
    const dim = 32;
    const exact = new EmbeddingIndex(dim);
    const fast = new QuantizedEmbeddingIndex(dim);
    const g = gallery(11, 500, dim);
    for (const [id, list] of g) {
      exact.set(id, list);
      fast.set(id, list);
    }
    const probe = g[10]![1][0]!;
    expect(fast.search(probe, 1)[0]!.idPersona).toBe('p10');
    expectSame(fast.search(probe, 5, 'p10'), exact.search(probe, 5, 'p10'));
    expect(fast.search(probe, 5, 'p10').some((h) => h.idPersona === 'p10')).toBe(false);
  });

  it('removes, replaces and compacts (tombstones) without changing results', () => {
    const dim = 48;
    const exact = new EmbeddingIndex(dim);
    const fast = new QuantizedEmbeddingIndex(dim);
    const g = gallery(21, 2000, dim);
    for (const [id, list] of g) {
      exact.set(id, list);
      fast.set(id, list);
    }
    const r = rng(5);
    for (let p = 0; p < 2000; p += 3) {
      exact.remove(`p${p}`);
      fast.remove(`p${p}`);
    }
    for (let p = 1; p < 2000; p += 7) {
      const list = [randomVec(r, dim)];
      exact.set(`p${p}`, list);
      fast.set(`p${p}`, list);
    }
    fast.remove('nobody');
    expect(fast.personCount).toBe(exact.personCount);
    expect(fast.sampleCount).toBe(exact.sampleCount);
    expect(fast.rowsHeld).toBeGreaterThan(fast.sampleCount);
    // The gallery's sum follows every change: what identification centres on.
    expectSameSum(fast, exact);
    const probes = Array.from({ length: 20 }, (_, i) => (i % 2 ? randomVec(r, dim) : g[i * 50]![1][0]!));
    for (const probe of probes) expectSame(fast.search(probe, 10), exact.search(probe, 10));
    fast.compact();
    expect(fast.rowsHeld).toBe(fast.sampleCount);
    expect([...fast.personIds()].sort()).toEqual([...exact.personIds()].sort());
    expectSameSum(fast, exact);
    for (const probe of probes) expectSame(fast.search(probe, 10), exact.search(probe, 10));
    fast.add('new', probes[1]!);
    exact.add('new', probes[1]!);
    expectSame(fast.search(probes[1]!, 10), exact.search(probes[1]!, 10));
    expect(fast.search(probes[1]!, 1)[0]!.idPersona).toBe('new');
    expectSameSum(fast, exact);
    for (const id of [...exact.personIds()]) fast.remove(id);
    expect(Math.max(...fast.sampleSum().map(Math.abs))).toBeLessThan(1e-3);
  });

  it('ignores embeddings of another dimension, as EmbeddingIndex does', () => {
    const index = new QuantizedEmbeddingIndex(8);
    index.add('a', new Float32Array(4));
    index.set('b', [new Float32Array(4)]);
    index.add('c', new Float32Array(12).fill(1));
    expect(index.personCount).toBe(0);
    expect(index.search(new Float32Array(8).fill(1), 3)).toEqual([]);
  });

  it('with `prefix`, holds and searches the leading part of longer vectors: the exact top-k of those parts', () => {
    const dim = 100;
    const exact = new EmbeddingIndex(dim);
    const fast = new QuantizedEmbeddingIndex(dim, { prefix: true });
    const r = rng(7);
    const tail = () => randomVec(r, 60).map((x) => x * 3);
    const longer = (v: Float32Array) => {
      const out = new Float32Array(dim + 60);
      out.set(v);
      out.set(tail(), dim);
      return out;
    };
    for (const [id, list] of gallery(5, 2000, dim)) {
      exact.set(id, list);
      if (id.endsWith('3')) list.forEach((e, i) => (i ? fast.add(id, longer(e)) : fast.set(id, [longer(e)])));
      else fast.set(id, list.map(longer));
    }
    expect(fast.sampleCount).toBe(exact.sampleCount);
    for (let i = 0; i < 30; i++) {
      const probe = randomVec(r, dim);
      expectSame(fast.search(longer(probe), 10), exact.search(probe, 10));
      expectSame(fast.search(probe, 10), exact.search(probe, 10));
    }
    expect(fast.search(new Float32Array(dim - 1).fill(1), 3)).toEqual([]);
  });
});
