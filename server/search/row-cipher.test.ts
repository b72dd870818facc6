import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { RowCipher } from './row-cipher.js';

describe('RowCipher.applyRows', () => {
  it('decrypts scattered rows as the per-row CTR cipher does, with the native XOR and with JavaScript', () => {
    const key = randomBytes(32);
    // 2,048-byte rows (512 floats) and rows that are not whole AES blocks (300 floats: 75 blocks).
    for (const rowBytes of [2048, 1200]) {
      const cipher = RowCipher.fresh(key, rowBytes);
      // Rows far apart, one whose counters cross 2^32 (row x blocks + j past 4,294,967,295), and
      // more rows than one keystream call takes (the chunks).
      const blocks = Math.ceil(rowBytes / 16);
      const rows = [0, 7, 1_000_003, Math.floor(2 ** 32 / blocks), 3, ...Array.from({ length: 40 }, (_, i) => 5000 + 17 * i)];
      const clear = rows.map(() => randomBytes(rowBytes));
      const sealed = rows.map((row, i) => {
        const b = new Uint8Array(clear[i]!);
        cipher.apply(row, b);
        return b;
      });
      for (const native of [true, false]) {
        const parts = sealed.map((b) => new Uint8Array(b));
        cipher.applyRows(rows, parts, native);
        parts.forEach((p, i) => expect(Buffer.from(p).equals(clear[i]!)).toBe(true));
      }
    }
  });
});
