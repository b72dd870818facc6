import { createCipheriv, randomBytes, timingSafeEqual } from 'node:crypto';
import { updateInto } from './cipher-pieces.js';
import { NONCE, TAG, VERSION } from './sealed.js';
import { aligned, bigEndian32, word } from './words.js';

/**
 * Opens many values sealed by `seal` under one key, with two OpenSSL calls for the whole batch
 * instead of one GCM decipher per value (whose set-up, not the decryption, is most of its cost:
 * docs/search-index.md, start-up). The same AES-256-GCM, checked the same way, recombined:
 *
 * - One AES-256-ECB call enciphers every value's counter blocks: J0 = nonce || 1 (which masks the
 *   tag) and nonce || 2, 3, ... (the CTR keystream), plus the zero block (GHASH's key H) and the
 *   J0 of the GHASH call below.
 * - A value's tag is T = GHASH_H(A, C) xor E(J0). GHASH is Horner's rule in H, so running it over
 *   the value's blocks (A and C each zero-padded, then their bit lengths) and then over the block
 *   S = T xor E(J0) leaves (GHASH_H(A, C) xor S) x H, which is zero exactly when the tag holds. Run
 *   over every value's blocks and S one after another, GHASH stays zero through the batch when
 *   every tag holds; a wrong tag, nonce, ciphertext or associated data leaves a non-zero polynomial
 *   in the secret H, zero by chance with probability at most (blocks in the batch) / 2^128, the
 *   bound GCM itself gives one forgery attempt.
 * - That GHASH is one GCM call with the whole sequence as associated data and nothing to encrypt;
 *   its tag is then (L x H) xor E(J0') for its own length block L and nonce, computed here.
 *
 * No plaintext is returned unless the whole batch holds. Then each value is the XOR of its
 * ciphertext and keystream. Values whose format is not `seal`'s, or any tag that fails, make the
 * batch null: callers then open them one by one with `open`, which names the first bad value.
 */
export function openAll(
  key: Buffer,
  sealed: readonly Uint8Array[],
  associated: readonly string[],
  scratch?: OpenAllScratch,
): Buffer[] | null {
  const n = sealed.length;
  if (associated.length !== n) throw new Error('openAll: un dato asociado por valor');
  if (n === 0) return [];
  // Layout of the GHASH sequence (per value A, C each padded, lengths, S) and of the counter
  // blocks (the zero block for H, J0 of the GHASH call's own nonce, then per value J0 and its keystream).
  const aadBytes = new Int32Array(n);
  const ctBytes = new Int32Array(n);
  const ctAt = new Int32Array(n); // where C starts in the sequence; lengths and S follow its padding
  const j0At = new Int32Array(n); // the value's J0 block; its keystream follows
  let sequence = 0;
  let counters = 2;
  for (let i = 0; i < n; i++) {
    const s = sealed[i]!;
    if (s.length < 1 + NONCE + TAG || s[0] !== VERSION) return null;
    const a = associated[i]!;
    aadBytes[i] = ASCII.test(a) ? a.length : Buffer.byteLength(a, 'utf8');
    ctBytes[i] = s.length - 1 - NONCE - TAG;
    ctAt[i] = sequence + pad16(aadBytes[i]!);
    sequence = ctAt[i]! + pad16(ctBytes[i]!) + 32;
    j0At[i] = counters;
    counters += 1 + pad16(ctBytes[i]!) / 16;
  }
  // Its own memory (not the pool's), so the XOR below can run over 32-bit words. Reused, it is
  // zeroed (the padding must be), and the zero block of the counters too (the rest is written).
  let ghashInput: Buffer;
  let blocks: Uint32Array;
  if (scratch) {
    if (scratch.ghash.byteLength < sequence) scratch.ghash = new ArrayBuffer(sequence);
    if (scratch.blocks.length < counters * 4) scratch.blocks = new Uint32Array(counters * 4);
    ghashInput = Buffer.from(scratch.ghash, 0, sequence).fill(0);
    blocks = scratch.blocks.subarray(0, counters * 4).fill(0, 0, 4);
  } else {
    ghashInput = Buffer.from(new ArrayBuffer(sequence));
    blocks = new Uint32Array(counters * 4);
  }
  const nonce = randomBytes(NONCE);
  blocks.set([word(nonce, 0), word(nonce, 4), word(nonce, 8), bigEndian32(1)], 4);
  for (let i = 0; i < n; i++) {
    const s = sealed[i]!;
    const a = associated[i]!;
    const aAt = ctAt[i]! - pad16(aadBytes[i]!);
    if (aadBytes[i] === a.length) for (let k = 0; k < a.length; k++) ghashInput[aAt + k] = a.charCodeAt(k);
    else ghashInput.write(a, aAt, 'utf8');
    ghashInput.set(new Uint8Array(s.buffer, s.byteOffset + 1 + NONCE, ctBytes[i]!), ctAt[i]!);
    writeBitLengths(ghashInput, ctAt[i]! + pad16(ctBytes[i]!), aadBytes[i]!, ctBytes[i]!);
    // The nonce's three words, then the 32-bit big-endian counter: 1 for J0, 2... for the keystream.
    const w0 = word(s, 1);
    const w1 = word(s, 5);
    const w2 = word(s, 9);
    const count = 1 + pad16(ctBytes[i]!) / 16;
    for (let c = 1, b = j0At[i]! << 2; c <= count; c++, b += 4) {
      blocks[b] = w0;
      blocks[b + 1] = w1;
      blocks[b + 2] = w2;
      blocks[b + 3] = bigEndian32(c);
    }
  }
  // Enciphered in place, a piece at a time: a batch's blocks are megabytes, and fresh output
  // memory that size costs more than the AES (cipher-pieces.ts).
  const ecb = createCipheriv('aes-256-ecb', key, null).setAutoPadding(false);
  const stream = Buffer.from(blocks.buffer, blocks.byteOffset, blocks.byteLength);
  updateInto(ecb, stream, stream);
  ecb.final();
  // S = T xor E(J0), after each value's lengths.
  for (let i = 0; i < n; i++) {
    const s = sealed[i]!;
    const tagAt = s.length - TAG;
    const o = ctAt[i]! + pad16(ctBytes[i]!) + 16;
    const j0 = j0At[i]! << 4;
    for (let k = 0; k < 16; k++) ghashInput[o + k] = s[tagAt + k]! ^ stream[j0 + k]!;
  }
  const gcm = createCipheriv('aes-256-gcm', key, nonce);
  gcm.setAAD(ghashInput);
  gcm.final();
  const tag = gcm.getAuthTag();
  // Expected when every value holds: GHASH over the sequence is zero, so the tag is L x H xor E(nonce || 1).
  const lengths = Buffer.alloc(16);
  writeBitLengths(lengths, 0, sequence, 0);
  const expected = gfMultiply(lengths, stream.subarray(0, 16));
  for (let k = 0; k < 16; k++) expected[k]! ^= stream[16 + k]!;
  if (!timingSafeEqual(tag, expected)) return null;

  // Word by word: every region starts on a 16-byte boundary of its buffer, and is padded to one.
  const keystream = aligned(stream);
  const text = new Uint32Array(ghashInput.buffer, ghashInput.byteOffset, sequence / 4);
  const out: Buffer[] = new Array<Buffer>(n);
  for (let i = 0; i < n; i++) {
    const o = ctAt[i]!;
    const len = ctBytes[i]!;
    for (let w = o >>> 2, k = (j0At[i]! + 1) << 2, end = (o + pad16(len)) >>> 2; w < end; w++, k++) text[w]! ^= keystream[k]!;
    out[i] = ghashInput.subarray(o, o + len);
  }
  return out;
}

/**
 * Memory `openAll` may keep from one batch to the next (a bulk read's batches are megabytes, and
 * fresh memory is slow to fault in): the values it returns are then views into it, valid until
 * the next call with it.
 */
export class OpenAllScratch {
  ghash = new ArrayBuffer(0);
  blocks = new Uint32Array(0);
}

// eslint-disable-next-line no-control-regex
const ASCII = /^[\x00-\x7f]*$/;

const pad16 = (bytes: number): number => (bytes + 15) & ~15;

/** GCM's length block: the two byte counts as 64-bit big-endian bit counts. */
function writeBitLengths(to: Buffer, at: number, aadBytes: number, ctBytes: number): void {
  to.writeUInt32BE(Math.floor(aadBytes / 2 ** 29), at);
  to.writeUInt32BE((aadBytes * 8) >>> 0, at + 4);
  to.writeUInt32BE(Math.floor(ctBytes / 2 ** 29), at + 8);
  to.writeUInt32BE((ctBytes * 8) >>> 0, at + 12);
}

/** Multiplication in GCM's GF(2^128), bit-reflected (NIST SP 800-38D, algorithm 1). */
export function gfMultiply(x: Uint8Array, y: Uint8Array): Buffer {
  const z = Buffer.alloc(16);
  const v = Buffer.from(y.subarray(0, 16));
  for (let i = 0; i < 128; i++) {
    if ((x[i >> 3]! >> (7 - (i & 7))) & 1) for (let k = 0; k < 16; k++) z[k]! ^= v[k]!;
    const low = v[15]! & 1;
    for (let k = 15; k > 0; k--) v[k] = (v[k]! >> 1) | ((v[k - 1]! & 1) << 7);
    v[0] = v[0]! >> 1;
    if (low) v[0]! ^= 0xe1;
  }
  return z;
}
