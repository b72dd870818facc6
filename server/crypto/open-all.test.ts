import { createCipheriv, randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { gfMultiply, openAll, OpenAllScratch } from './open-all.js';
import { open, seal } from './sealed.js';

const key = randomBytes(32);

/** Values of every awkward length, bound to rows of every awkward name. */
function batch(n: number) {
  const associated = Array.from({ length: n }, (_, i) =>
    i % 7 === 3 ? `fila/ñandú-${i}` : i % 11 === 5 ? '' : `face_samples/embedding/p${i}`,
  );
  const plain = Array.from({ length: n }, (_, i) => randomBytes([0, 1, 15, 16, 17, 768, 33][i % 7]!));
  const sealed = plain.map((p, i) => seal(key, p, associated[i]!));
  return { associated, plain, sealed };
}

describe('openAll: many sealed values opened at once', () => {
  it('multiplies in GF(2^128) as GCM does: GHASH of one block, checked against OpenSSL', () => {
    // With no plaintext and a 16-byte AAD X, the tag is ((X x H) xor L) x H xor E(J0).
    const nonce = randomBytes(12);
    const x = randomBytes(16);
    const gcm = createCipheriv('aes-256-gcm', key, nonce);
    gcm.setAAD(x);
    gcm.final();
    const ecb = createCipheriv('aes-256-ecb', key, null).setAutoPadding(false);
    const h = ecb.update(Buffer.alloc(16));
    const mask = ecb.update(Buffer.concat([nonce, Buffer.of(0, 0, 0, 1)]));
    const lengths = Buffer.alloc(16);
    lengths.writeUInt32BE(128, 4);
    const y = gfMultiply(x, h);
    for (let k = 0; k < 16; k++) y[k]! ^= lengths[k]!;
    const tag = gfMultiply(y, h);
    for (let k = 0; k < 16; k++) tag[k]! ^= mask[k]!;
    expect(tag.equals(gcm.getAuthTag())).toBe(true);
  });

  it('opens every value as open does, in one pass', () => {
    const { associated, plain, sealed } = batch(200);
    const opened = openAll(key, sealed, associated);
    expect(opened).not.toBeNull();
    opened!.forEach((p, i) => {
      expect(p.equals(plain[i]!)).toBe(true);
      expect(p.equals(open(key, sealed[i]!, associated[i]!))).toBe(true);
    });
    expect(openAll(key, [], [])).toEqual([]);
  });

  it('reusing its memory across batches, opens each as open does, whatever the batch before left in it', () => {
    const scratch = new OpenAllScratch();
    const big = batch(300);
    expect(openAll(key, big.sealed, big.associated, scratch)!.every((p, i) => p.equals(big.plain[i]!))).toBe(true);
    // Smaller batches over the stale bytes of the big one: padding and the zero block must be zeroed again.
    for (const n of [40, 7, 1]) {
      const { associated, plain, sealed } = batch(n);
      const reversed = [...sealed].reverse();
      const opened = openAll(key, reversed, [...associated].reverse(), scratch);
      expect(opened!.map((p) => Buffer.from(p))).toEqual([...plain].reverse());
    }
    const { associated, sealed } = batch(20);
    const copy = sealed.map((s) => Buffer.from(s));
    copy[3]![copy[3]!.length - 1]! ^= 1;
    expect(openAll(key, copy, associated, scratch)).toBeNull();
  });

  it('refuses the whole batch for one flipped bit anywhere, a moved value or another key', () => {
    const { associated, sealed } = batch(50);
    const target = 26; // 768 bytes of plaintext
    for (const at of [0, 1, 12, 13, 100, sealed[target]!.length - 16, sealed[target]!.length - 1]) {
      const copy = sealed.map((s) => Buffer.from(s));
      copy[target]![at]! ^= 1;
      expect(openAll(key, copy, associated), `byte ${at}`).toBeNull();
    }
    const swapped = [...sealed];
    [swapped[5], swapped[12]] = [swapped[12]!, swapped[5]!];
    expect(openAll(key, swapped, associated)).toBeNull();
    const renamed = [...associated];
    renamed[40] = `${renamed[40]}x`;
    expect(openAll(key, sealed, renamed)).toBeNull();
    expect(openAll(randomBytes(32), sealed, associated)).toBeNull();
    expect(openAll(key, [...sealed.slice(0, 9), sealed[9]!.subarray(0, 20)], associated.slice(0, 10))).toBeNull();
  });
});
