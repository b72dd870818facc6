import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

/**
 * AES-256-GCM envelope for one stored value: version(1) | nonce(12) | ciphertext | tag(16).
 * The associated data binds a value to its row (a sample of one person cannot be moved to
 * another), and a fresh random nonce per value keeps GCM safe under one key.
 */
export const VERSION = 1;
export const NONCE = 12;
export const TAG = 16;

export class SealError extends Error {
  override name = 'SealError';
}

export function seal(key: Buffer, plaintext: Uint8Array, associated: string): Buffer {
  const nonce = randomBytes(NONCE);
  const cipher = createCipheriv('aes-256-gcm', key, nonce);
  cipher.setAAD(Buffer.from(associated, 'utf8'));
  const body = Buffer.concat([cipher.update(plaintext), cipher.final()]);
  return Buffer.concat([Buffer.of(VERSION), nonce, body, cipher.getAuthTag()]);
}

export function open(key: Buffer, sealed: Uint8Array, associated: string): Buffer {
  if (sealed.length < 1 + NONCE + TAG || sealed[0] !== VERSION) throw new SealError('dato cifrado con formato desconocido');
  const nonce = sealed.subarray(1, 1 + NONCE);
  const tag = sealed.subarray(sealed.length - TAG);
  const decipher = createDecipheriv('aes-256-gcm', key, nonce, { authTagLength: TAG });
  decipher.setAAD(Buffer.from(associated, 'utf8'));
  decipher.setAuthTag(tag);
  try {
    // GCM's final() returns nothing and only checks the tag: the plaintext is update()'s.
    const plaintext = decipher.update(sealed.subarray(1 + NONCE, sealed.length - TAG));
    decipher.final();
    return plaintext;
  } catch {
    throw new SealError('no se pudo descifrar un dato: la clave de la estación no es la que lo cifró, o el dato fue alterado');
  }
}
