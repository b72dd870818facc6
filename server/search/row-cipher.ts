import { createCipheriv, hkdfSync, randomBytes } from 'node:crypto';

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
    // Rows that are whole blocks are contiguous in counter space: one call for the run.
    const step = this.rowBytes % 16 === 0 ? count : 1;
    for (let i = 0; i < count; i += step) {
      const part = bytes.subarray(i * this.rowBytes, (i + step) * this.rowBytes);
      part.set(createCipheriv('aes-256-ctr', this.key, this.iv(row + i)).update(part));
    }
  }

  private iv(row: number): Buffer {
    const iv = Buffer.alloc(16);
    this.nonce.copy(iv, 0);
    iv.writeBigUInt64BE(BigInt(row) * BigInt(this.blocks), 8);
    return iv;
  }
}
