import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { normalize } from '../matching/similarity.js';
import { IndexIntegrityError, QuantizedEmbeddingIndex } from './quantized-index.js';
import { seededRandom as rng } from '../../test/random.js';
import { expectSame, gallery, randomVec } from '../../test/search-gallery.js';

const dir = mkdtempSync(path.join(tmpdir(), 'qindex-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('QuantizedEmbeddingIndex snapshots', () => {
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
