// Sealing's entry point: AES-GCM values bound to what they are, and their opening in bulk.
export { CIPHER_PIECE_BYTES, updateInto } from './cipher-pieces.js';
export { openAll, OpenAllScratch } from './open-all.js';
export { NONCE, open, seal, SealError, TAG, VERSION } from './sealed.js';
export { aligned, bigEndian32, word } from './words.js';
