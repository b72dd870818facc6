import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { dot, normalize } from '../matching/similarity.js';
import { EmbeddingIndex } from './embedding-index.js';
import { IndexIntegrityError, QuantizedEmbeddingIndex } from './quantized-index.js';
import { selectNth } from './scan-shard.js';
import { kernelModule, instantiateKernel, relaxedSimd, wasm } from './wasm-kernel.js';
import { gaussian, seededRandom as rng } from '../../test/random.js';

function randomVec(r: () => number, dim: number): Float32Array {
  const v = new Float32Array(dim);
  for (let i = 0; i < dim; i++) v[i] = gaussian(r);
  return v;
}

function noisy(r: () => number, base: Float32Array, sigma: number): Float32Array {
  const v = normalize(base);
  return v.map((x) => x + sigma * gaussian(r) * Math.sqrt(1 / base.length));
}

/** Persons with 1 to 3 samples each; some pairs of near-duplicates. */
function gallery(seed: number, persons: number, dim: number) {
  const r = rng(seed);
  const out: [string, Float32Array[]][] = [];
  for (let p = 0; p < persons; p++) {
    const base = p % 50 === 1 ? noisy(r, out[p - 1]![1][0]!, 0.05) : randomVec(r, dim);
    const n = 1 + (p % 3);
    out.push([`p${p}`, Array.from({ length: n }, () => noisy(r, base, 0.4))]);
  }
  return out;
}

function expectSame(a: { idPersona: string; score: number }[], b: { idPersona: string; score: number }[]) {
  expect(a.map((h) => h.idPersona)).toEqual(b.map((h) => h.idPersona));
  expect(a.map((h) => h.score)).toEqual(b.map((h) => h.score));
}

/** The two indexes' sums of their samples' unit vectors agree (to float32 rounding over thousands of rows). */
function expectSameSum(a: { sampleSum(): Float64Array }, b: { sampleSum(): Float64Array }) {
  const x = a.sampleSum();
  const y = b.sampleSum();
  expect(x.length).toBe(y.length);
  expect(Math.max(...x.map((v, i) => Math.abs(v - y[i]!)))).toBeLessThan(1e-3);
}

const dir = mkdtempSync(path.join(tmpdir(), 'qindex-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

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

  for (const [mode, sealKey] of [
    ['memory', undefined],
    ['file', undefined],
    ['file, copied to memory', undefined],
    ['memory', randomBytes(32)],
    ['file', randomBytes(32)],
    ['file, copied to memory', randomBytes(32)],
  ] as const) {
    it(`round-trips a snapshot (float rows in ${mode}${sealKey ? ', sealed' : ''})`, async () => {
      const dim = 72;
      const inFile = (name: string) =>
        mode === 'memory'
          ? {}
          : { vectorFile: path.join(dir, `${name}-${mode}.f32`), ...(mode === 'file' ? { residentFloatBytes: 0 } : {}) };
      const options = { sealKey, ...inFile('v') };
      const a = new QuantizedEmbeddingIndex(dim, options);
      const g = gallery(31, 1500, dim);
      for (const [id, list] of g) a.set(id, list);
      for (let p = 0; p < 1500; p += 4) a.remove(`p${p}`);
      const file = path.join(dir, `snap-${mode}.idx`);
      a.saveSnapshot(file);
      const b = await QuantizedEmbeddingIndex.create(dim, {
        sealKey,
        ...inFile('w'),
        threads: 2,
        parallelFrom: 0,
      });
      b.add('stale', g[1]![1][0]!);
      b.loadSnapshot(file);
      expect(b.personCount).toBe(a.personCount);
      expect(b.sampleCount).toBe(a.sampleCount);
      expect(b.sampleSum()).toEqual(a.sampleSum());
      // Every id, though none was made a string by the load.
      expect([...b.personIds()].sort()).toEqual([...a.personIds()].sort());
      // Right after the load (its ids found through the packed text): an exclusion, then a re-enrollment, find their person.
      const own = g[1499]![1][0]!;
      expect(b.search(own, 1)[0]!.idPersona).toBe('p1499');
      expect(b.search(own, 1, 'p1499')[0]!.idPersona).not.toBe('p1499');
      b.set('p1499', g[1499]![1]);
      expect([b.personCount, b.sampleCount]).toEqual([a.personCount, a.sampleCount]);
      const r = rng(8);
      for (let i = 0; i < 20; i++) {
        const probe = i % 2 ? randomVec(r, dim) : g[i * 30 + 1]![1][0]!;
        expectSame(b.search(probe, 10), a.search(probe, 10));
      }
      expect(b.search(g[1]![1][0]!, 3).some((h) => h.idPersona === 'stale')).toBe(false);
      // The copy in memory, once made, gives the same answers (before it, the file did).
      await b.floatsSettled();
      expect(b.floatsReadFrom).toBe(mode === 'file' ? 'file' : 'memory');
      for (let i = 0; i < 20; i++) {
        const probe = i % 2 ? randomVec(r, dim) : g[i * 30 + 1]![1][0]!;
        expectSame(b.search(probe, 10), a.search(probe, 10));
      }
      // Still updatable after loading.
      const late = randomVec(r, dim);
      b.add('late', late);
      b.remove('p1');
      expect(b.search(late, 1)[0]!.idPersona).toBe('late');
      expect(b.search(g[1]![1][0]!, 10).some((h) => h.idPersona === 'p1')).toBe(false);
      b.compact();
      expect(b.search(late, 1)[0]!.idPersona).toBe('late');
      await b.floatsSettled();
      expect(b.search(late, 1)[0]!.idPersona).toBe('late');
      expect(b.floatsReadFrom).toBe(mode === 'file' ? 'file' : 'memory');
      expect(b.rowsHeld).toBe(b.sampleCount);
      await a.close();
      await b.close();
    });
  }

  it('leaves no copy of a removed person in its files: the snapshot it started from, its own file, its buffer', async () => {
    const dim = 64;
    const r = rng(12);
    const people = Array.from({ length: 1700 }, (_, p) => [`p${p}`, randomVec(r, dim)] as const);
    const snapshot = path.join(dir, 'erase.idx');
    const a = new QuantizedEmbeddingIndex(dim, { vectorFile: path.join(dir, 'erase-a.f32') });
    for (const [id, e] of people.slice(0, 600)) a.add(id, e);
    a.saveSnapshot(snapshot);
    await a.close();
    const ownFile = path.join(dir, 'erase-b.f32');
    const b = new QuantizedEmbeddingIndex(dim, { vectorFile: ownFile });
    b.loadSnapshot(snapshot);
    // 1,100 more rows: the first 1,024 written to its own file, the rest still buffered.
    for (const [id, e] of people.slice(600)) b.add(id, e);
    // Two 32-byte pieces of each stored (normalised) row: in the snapshot, in the own file, buffered.
    const pieces = (p: number) => {
      const bytes = Buffer.from(normalize(people[p]![1]).buffer);
      return [bytes.subarray(0, 32), bytes.subarray(128, 160)];
    };
    const holds = (file: string, p: number) => pieces(p).some((piece) => readFileSync(file).includes(piece));
    expect(holds(snapshot, 5)).toBe(true);
    expect(holds(ownFile, 700)).toBe(true);
    for (const p of [5, 700, 1650]) b.remove(`p${p}`);
    expect(holds(snapshot, 5)).toBe(false);
    expect(holds(ownFile, 700)).toBe(false);
    for (const p of [6, 701, 1651]) expect(b.search(people[p]![1], 1)[0]!.idPersona).toBe(`p${p}`);
    await b.close(); // writes the buffer out
    expect(holds(ownFile, 1651)).toBe(true);
    expect(holds(ownFile, 1650)).toBe(false);
  });

  it('sealed, writes no row in clear to its files, and refuses a snapshot altered or without the key', async () => {
    const dim = 60; // 240-byte rows: not whole AES blocks, so each row has its own counter run
    const sealKey = randomBytes(32);
    const r = rng(13);
    const people = Array.from({ length: 1500 }, (_, p) => [`p${p}`, randomVec(r, dim)] as const);
    const ownFile = path.join(dir, 'sealed-a.f32');
    const a = new QuantizedEmbeddingIndex(dim, { sealKey, vectorFile: ownFile });
    for (const [id, e] of people) a.add(id, e);
    const snapshot = path.join(dir, 'sealed.idx');
    a.saveSnapshot(snapshot, 'etiqueta');
    const inClear = (file: string) => {
      const bytes = readFileSync(file);
      return people.filter(([, e]) => bytes.includes(Buffer.from(normalize(e).buffer).subarray(0, 32))).length;
    };
    expect(inClear(ownFile)).toBe(0); // 1,024 rows written out, sealed
    expect(inClear(snapshot)).toBe(0);
    expect(QuantizedEmbeddingIndex.snapshotLabel(snapshot)).toBe('etiqueta');
    const b = new QuantizedEmbeddingIndex(dim, { sealKey, vectorFile: path.join(dir, 'sealed-b.f32') });
    b.loadSnapshot(snapshot);
    for (const p of [0, 700, 1499]) {
      expect(b.search(people[p]![1], 3)).toEqual(a.search(people[p]![1], 3));
      expect(b.search(people[p]![1], 1)[0]!.idPersona).toBe(`p${p}`);
    }
    await a.close();
    await b.close();
    const withoutKey = new QuantizedEmbeddingIndex(dim, { vectorFile: path.join(dir, 'sealed-c.f32') });
    expect(() => withoutKey.loadSnapshot(snapshot)).toThrow(IndexIntegrityError);
    const otherKey = new QuantizedEmbeddingIndex(dim, { sealKey: randomBytes(32) });
    expect(() => otherKey.loadSnapshot(snapshot)).toThrow(IndexIntegrityError);
    // One bit of the sealed codes changed (before the segments' tags and the float rows: each of
    // the nine sealed parts is one segment here): the seal no longer holds.
    const altered = readFileSync(snapshot);
    altered[altered.length - 1500 * dim * 4 - 9 * 16 - 100]! ^= 1;
    writeFileSync(snapshot, altered);
    const c = new QuantizedEmbeddingIndex(dim, { sealKey });
    expect(() => c.loadSnapshot(snapshot)).toThrow(IndexIntegrityError);
    await Promise.all([withoutKey.close(), otherKey.close(), c.close()]);
  });

  for (const sealKey of [randomBytes(32), undefined]) {
    it(`loads a snapshot saved in many segments, and refuses one with a segment altered or two swapped (${sealKey ? 'sealed' : 'in clear'})`, async () => {
      const dim = 64; // 32 bytes of 4-bit codes a row: 3,000 rows make 96,000 bytes, 24 segments of 4 KiB
      const rows = 3000;
      const r = rng(21);
      const people = Array.from({ length: rows }, (_, p) => [`persona-${p}-ñ`, randomVec(r, dim)] as const);
      const a = new QuantizedEmbeddingIndex(dim, { sealKey, snapshotSegmentBytes: 4096 });
      for (const [id, e] of people) a.add(id, e);
      const snapshot = path.join(dir, `segments-${sealKey ? 'sealed' : 'clear'}.idx`);
      a.saveSnapshot(snapshot, 'etiqueta');
      const b = new QuantizedEmbeddingIndex(dim, { sealKey });
      b.loadSnapshot(snapshot);
      expect(b.personCount).toBe(rows);
      expect([...b.personIds()].sort()).toEqual([...a.personIds()].sort());
      for (const p of [0, 1234, 2999]) {
        expect(b.search(people[p]![1], 5)).toEqual(a.search(people[p]![1], 5));
        expect(b.search(people[p]![1], 1)[0]!.idPersona).toBe(`persona-${p}-ñ`);
      }
      const original = readFileSync(snapshot);
      // The float rows end the file; before them the tags of every part's segments (at 64-d: the
      // ids, six arrays of a number a row, the codes; no 2-bit codes), and before those the codes.
      const idBytes = rows * 4 + Buffer.byteLength(people.map(([id]) => id).join(''), 'utf8');
      const segments = Math.ceil(idBytes / 4096) + 6 * Math.ceil((rows * 4) / 4096) + Math.ceil((rows * 32) / 4096);
      const tagsAt = original.length - rows * dim * 4 - Math.ceil((segments * 16) / 64) * 64;
      const codesAt = tagsAt - rows * 32;
      const refused = (change: (bytes: Buffer) => void) => {
        const bytes = Buffer.from(original);
        change(bytes);
        writeFileSync(snapshot, bytes);
        const c = new QuantizedEmbeddingIndex(dim, { sealKey });
        expect(() => c.loadSnapshot(snapshot)).toThrow(IndexIntegrityError);
        return c.close();
      };
      await refused((bytes) => (bytes[codesAt + 5000]! ^= 1));
      await refused((bytes) => {
        const first = Buffer.from(bytes.subarray(codesAt, codesAt + 4096));
        bytes.copy(bytes, codesAt, codesAt + 4096, codesAt + 8192);
        first.copy(bytes, codesAt + 4096);
      });
      await a.close();
      await b.close();
    });
  }
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
