// 32-bit word views and helpers for the batched AES keystreams (open-all.ts, the search index's
// row cipher): counter blocks are written, and keystreams XOR-ed, a word at a time.

/** The bytes as 32-bit words, copied when their offset is not a multiple of four. */
export function aligned(bytes: Buffer): Uint32Array {
  const own = bytes.byteOffset % 4 === 0 ? bytes : Buffer.from(bytes);
  return new Uint32Array(own.buffer, own.byteOffset, own.length >>> 2);
}

/** Four bytes as the little-endian word a Uint32Array stores them in. */
export function word(bytes: Uint8Array, at: number): number {
  return (bytes[at]! | (bytes[at + 1]! << 8) | (bytes[at + 2]! << 16) | (bytes[at + 3]! << 24)) >>> 0;
}

/** A counter written big-endian into a little-endian word. */
export function bigEndian32(c: number): number {
  return (((c & 0xff) << 24) | ((c & 0xff00) << 8) | ((c >>> 8) & 0xff00) | (c >>> 24)) >>> 0;
}
