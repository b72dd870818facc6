/**
 * An `update` whose output is this size or less gets memory the allocator reuses; a larger one
 * gets fresh pages at every call, and faulting them in costs several times the AES itself.
 */
export const CIPHER_PIECE_BYTES = 65536;

/** A cipher or decipher whose `update` returns Node's Buffer. */
interface Updating {
  update(data: Uint8Array): Uint8Array;
}

/**
 * `cipher.update(input)` written into `out` (which may be `input` itself), a piece at a time. For
 * ciphers whose output matches their input piece by piece: CTR, GCM, and ECB over whole blocks.
 */
export function updateInto(cipher: Updating, input: Uint8Array, out: Uint8Array): void {
  for (let at = 0; at < input.length; at += CIPHER_PIECE_BYTES) {
    out.set(cipher.update(input.subarray(at, at + CIPHER_PIECE_BYTES)), at);
  }
}
