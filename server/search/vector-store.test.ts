import { randomBytes } from 'node:crypto';
import { mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { seededRandom as rng } from '../../test/random.js';
import { RowCipher } from './row-cipher.js';
import { FileVectorStore } from './vector-store.js';

const dir = mkdtempSync(path.join(tmpdir(), 'vectors-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('FileVectorStore, sealed', () => {
  it('reads back what it wrote, keeps none of it in clear, and never reuses a keystream after a clear', () => {
    const dim = 10; // 40-byte rows: not whole AES blocks
    const file = path.join(dir, 'rows.f32');
    const store = new FileVectorStore(dim, file, RowCipher.fresh(randomBytes(32), dim * 4));
    const r = rng(5);
    const rows = (n: number) => Array.from({ length: n }, () => Float32Array.from({ length: dim }, () => r() - 0.5));
    const first = rows(1100); // 1,024 written out
    first.forEach((v) => store.append(v));
    for (const i of [0, 517, 1023, 1099]) expect(store.read(i, new Float32Array(dim))).toEqual(first[i]);
    const c1 = readFileSync(file).subarray(0, dim * 4);
    expect(c1.equals(Buffer.from(first[0]!.buffer))).toBe(false);
    store.clear();
    const second = rows(1100);
    second.forEach((v) => store.append(v));
    expect(store.read(0, new Float32Array(dim))).toEqual(second[0]);
    const c2 = readFileSync(file).subarray(0, dim * 4);
    // Under one keystream the two ciphertexts would differ exactly as the two plaintexts do.
    const xor = (a: Uint8Array, b: Uint8Array) => Buffer.from(a.map((x, i) => x ^ b[i]!));
    expect(xor(c1, c2).equals(xor(Buffer.from(first[0]!.buffer), Buffer.from(second[0]!.buffer)))).toBe(false);
    store.close();
  });

  it('reads a shortlist at once as it reads each row: from a sealed base region, its own file and the unwritten rows', () => {
    for (const dim of [10, 16]) {
      // 40-byte rows straddle AES blocks; 64-byte rows are whole blocks.
      const r = rng(dim);
      const rows = (n: number) => Array.from({ length: n }, () => Float32Array.from({ length: dim }, () => r() - 0.5));
      const key = randomBytes(32);
      const baseFile = path.join(dir, `base-${dim}.f32`);
      const baseRows = rows(300);
      const baseCipher = RowCipher.fresh(key, dim * 4);
      const writer = new FileVectorStore(dim, baseFile, baseCipher);
      baseRows.forEach((v) => writer.append(v));
      writer.close();
      const store = new FileVectorStore(dim, path.join(dir, `own-${dim}.f32`), RowCipher.fresh(key, dim * 4));
      store.useBase(openSync(baseFile, 'r'), 0, baseRows.length, baseCipher);
      const own = rows(1500); // 1,024 written out, the rest pending
      own.forEach((v) => store.append(v));
      const all = [...baseRows, ...own];
      const pick = [1799, 0, 299, 300, 1323, 1324, 5, 1000, 301, 150];
      const out = new Float32Array(pick.length * dim);
      store.readRows(pick, out);
      pick.forEach((row, i) => {
        expect(out.subarray(i * dim, (i + 1) * dim)).toEqual(all[row]);
        expect(store.read(row, new Float32Array(dim))).toEqual(all[row]);
      });
      store.close();
    }
  });

  it('keeps a copy in memory while the rows fit: made in the background, the same rows as the file, erased with it, dropped when outgrown', async () => {
    for (const dim of [10, 16]) {
      const r = rng(100 + dim);
      const rows = (n: number) => Array.from({ length: n }, () => Float32Array.from({ length: dim }, () => r() - 0.5));
      const key = randomBytes(32);
      const baseFile = path.join(dir, `resident-base-${dim}.f32`);
      const baseRows = rows(2500); // several slices of the background copy
      const baseCipher = RowCipher.fresh(key, dim * 4);
      const writer = new FileVectorStore(dim, baseFile, baseCipher);
      baseRows.forEach((v) => writer.append(v));
      writer.close();
      const budgetRows = 5000;
      const store = new FileVectorStore(
        dim,
        path.join(dir, `resident-own-${dim}.f32`),
        RowCipher.fresh(key, dim * 4),
        budgetRows * dim * 4,
      );
      expect(store.inMemory).toBe(true); // empty: it fits
      store.useBase(openSync(baseFile, 'r+'), 0, baseRows.length, baseCipher);
      expect(store.inMemory).toBe(false); // the copy is made after the call returns
      // Rows that arrive while it is made: 1,024 written out, the rest pending.
      const own = rows(1500);
      own.forEach((v) => store.append(v));
      const all = [...baseRows, ...own];
      const check = () => {
        const pick = [3999, 0, 2499, 2500, 3523, 3524, 5, 1023, 1024, 2048, 2501];
        const out = new Float32Array(pick.length * dim);
        store.readRows(pick, out);
        pick.forEach((row, i) => {
          expect(out.subarray(i * dim, (i + 1) * dim)).toEqual(all[row]);
          expect(store.read(row, new Float32Array(dim))).toEqual(all[row]);
        });
      };
      check(); // from the file
      await store.settled();
      expect(store.inMemory).toBe(true);
      check(); // from memory
      // An erased row leaves no copy in memory either.
      store.erase(7);
      expect(store.read(7, new Float32Array(dim))).toEqual(new Float32Array(dim));
      all[7] = new Float32Array(dim);
      // Appends follow in memory until the rows outgrow the budget; then the file answers again.
      const more = rows(budgetRows - all.length);
      more.forEach((v) => store.append(v));
      all.push(...more);
      expect(store.inMemory).toBe(true);
      check();
      expect(store.read(all.length - 1, new Float32Array(dim))).toEqual(all.at(-1));
      const over = rows(1)[0]!;
      store.append(over);
      all.push(over);
      expect(store.inMemory).toBe(false);
      check();
      expect(store.read(all.length - 1, new Float32Array(dim))).toEqual(over);
      store.close();
      // A store told of more rows than fit keeps no copy from the start.
      const big = new FileVectorStore(dim, path.join(dir, `resident-big-${dim}.f32`), undefined, budgetRows * dim * 4);
      big.expectRows(budgetRows);
      expect(big.inMemory).toBe(true);
      big.expectRows(budgetRows + 1);
      expect(big.inMemory).toBe(false);
      big.close();
    }
  });

  it('makes no copy, and does not fail, when its base region is cut short', async () => {
    const dim = 16;
    const file = path.join(dir, 'short-base.f32');
    const writer = new FileVectorStore(dim, file);
    const r = rng(9);
    for (let i = 0; i < 100; i++) writer.append(Float32Array.from({ length: dim }, () => r()));
    writer.close();
    const store = new FileVectorStore(dim, path.join(dir, 'short-own.f32'), undefined, 1 << 20);
    store.useBase(openSync(file, 'r+'), 0, 2000); // 1,900 rows past the end of the file
    await store.settled();
    expect(store.inMemory).toBe(false);
    store.close();
  });
});
