import { createCipheriv, hkdfSync, randomBytes, type Cipher } from 'node:crypto';
import { aligned, bigEndian32, word, updateInto } from '../crypto/index.js';
import { nativeKernels } from './native-kernels.js';

/**
 * The key the search index seals its files with: derived from the station's data key for this
 * one use (HKDF-SHA256), so that the index's keystreams never meet the samples' GCM nonces.
 */
export function searchIndexKey(dataKey: Buffer): Buffer {
  return Buffer.from(hkdfSync('sha256', dataKey, Buffer.alloc(0), 'enrolla: search index files', 32));
}

/**
 * AES-256-CTR over the float rows of one file region: a random 8-byte nonce per region, row r at
 * counter r x blocks-per-row, so that any row is read alone. Each row is written once (a file
 * written again from its first row takes a new nonce: `renewed`), so no keystream is used twice. CTR gives secrecy, not integrity: each row is checked against
 * the hash the index keeps of it (in memory, and sealed in the snapshot), which a change made
 * without knowing the row cannot keep.
 */
export class RowCipher {
  private readonly blocks: number;

  constructor(
    private readonly key: Buffer,
    readonly nonce: Buffer,
    private readonly rowBytes: number,
  ) {
    if (key.length !== 32 || nonce.length !== 8) throw new Error('cifrado de filas: clave de 32 bytes y nonce de 8');
    this.blocks = Math.ceil(rowBytes / 16);
  }

  static fresh(key: Buffer, rowBytes: number): RowCipher {
    return new RowCipher(key, randomBytes(8), rowBytes);
  }

  /** The key and nonce, for another thread of this process that writes rows of the same region. */
  shared(): { key: Uint8Array; nonce: Uint8Array } {
    return { key: new Uint8Array(this.key), nonce: new Uint8Array(this.nonce) };
  }

  /** The same key with a new nonce: for a file written again from its first row. */
  renewed(): RowCipher {
    return RowCipher.fresh(this.key, this.rowBytes);
  }

  /** Encrypts or decrypts (the same XOR) `count` rows from row `row`, in place in `bytes`. */
  apply(row: number, bytes: Uint8Array, count = 1): void {
    // Rows that are whole blocks are contiguous in counter space: one cipher for the run.
    const step = this.rowBytes % 16 === 0 ? count : 1;
    for (let i = 0; i < count; i += step) {
      const run = bytes.subarray(i * this.rowBytes, (i + step) * this.rowBytes);
      updateInto(createCipheriv('aes-256-ctr', this.key, this.iv(row + i)), run, run);
    }
  }

  /**
   * The same for rows anywhere in the region, each in place in its own view (`parts[i]` holds row
   * `rows[i]`): their keystream from one AES-256-ECB call over all their counter blocks, where a
   * cipher set up per row (as `apply` does) costs more than the row itself.
   */
  applyRows(rows: ArrayLike<number>, parts: readonly Uint8Array[], native = true): void {
    const perRow = this.blocks * 4;
    // A few rows a call, so that the counters and the keystream stay in the first-level cache.
    const chunk = Math.max(1, Math.floor(APPLY_CHUNK_BYTES / (this.blocks * 16)));
    if (this.counters.length < chunk * perRow) this.counters = new Uint32Array(chunk * perRow);
    const n0 = word(this.nonce, 0);
    const n1 = word(this.nonce, 4);
    // ECB keeps no state between calls on whole blocks: one cipher serves every batch.
    this.ecb ??= createCipheriv('aes-256-ecb', this.key, null).setAutoPadding(false);
    // `native` false: JavaScript's XOR even where the native kernels are built (tests).
    const xorInto = native ? nativeKernels().kernels?.addon.xorInto : undefined;
    for (let from = 0; from < rows.length; from += chunk) {
      const to = Math.min(rows.length, from + chunk);
      // Each block: the nonce's 8 bytes, then the 64-bit big-endian counter (row x blocks + j).
      const words = this.counters.subarray(0, (to - from) * perRow);
      for (let i = from, w = 0; i < to; i++) {
        for (let j = 0, counter = rows[i]! * this.blocks; j < this.blocks; j++, counter++, w += 4) {
          words[w] = n0;
          words[w + 1] = n1;
          words[w + 2] = bigEndian32(Math.floor(counter / 2 ** 32));
          words[w + 3] = bigEndian32(counter >>> 0);
        }
      }
      const stream = this.ecb.update(new Uint8Array(words.buffer, 0, words.byteLength));
      // The parts are views of float rows: whole 32-bit words on word boundaries.
      if (xorInto) {
        // Natively: JavaScript's word-at-a-time XOR was about half of decrypting a shortlist.
        for (let i = from; i < to; i++) xorInto(parts[i]!, stream, (i - from) * perRow * 4);
        continue;
      }
      const s = aligned(stream);
      for (let i = from; i < to; i++) {
        const part = parts[i]!;
        const dst = new Uint32Array(part.buffer, part.byteOffset, part.length >>> 2);
        for (let k = 0, at = (i - from) * perRow; k < dst.length; k++) dst[k]! ^= s[at + k]!;
      }
    }
  }

  private ecb: Cipher | undefined;
  private counters = new Uint32Array(0);

  private iv(row: number): Buffer {
    const iv = Buffer.alloc(16);
    this.nonce.copy(iv, 0);
    iv.writeBigUInt64BE(BigInt(row) * BigInt(this.blocks), 8);
    return iv;
  }
}

const APPLY_CHUNK_BYTES = 16384;
