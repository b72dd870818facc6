/** Base64url (RFC 4648 section 5, no padding) for browser and Node alike. */
const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
const LOOKUP = new Int16Array(128).fill(-1);
for (let i = 0; i < ALPHABET.length; i++) LOOKUP[ALPHABET.charCodeAt(i)] = i;

export function encodeBase64url(bytes: Uint8Array): string {
  const parts: string[] = [];
  let chunk = '';
  let i = 0;
  for (; i + 2 < bytes.length; i += 3) {
    const n = (bytes[i]! << 16) | (bytes[i + 1]! << 8) | bytes[i + 2]!;
    chunk += ALPHABET[(n >> 18) & 63]! + ALPHABET[(n >> 12) & 63]! + ALPHABET[(n >> 6) & 63]! + ALPHABET[n & 63]!;
    if (chunk.length >= 8192) {
      parts.push(chunk);
      chunk = '';
    }
  }
  const rest = bytes.length - i;
  if (rest === 1) {
    const n = bytes[i]! << 16;
    chunk += ALPHABET[(n >> 18) & 63]! + ALPHABET[(n >> 12) & 63]!;
  } else if (rest === 2) {
    const n = (bytes[i]! << 16) | (bytes[i + 1]! << 8);
    chunk += ALPHABET[(n >> 18) & 63]! + ALPHABET[(n >> 12) & 63]! + ALPHABET[(n >> 6) & 63]!;
  }
  parts.push(chunk);
  return parts.join('');
}

/**
 * Strict decoding: only the url-safe alphabet, no padding, no whitespace, and a length that
 * a real encoding can have. Returns the index of the first bad character instead of throwing.
 */
export function decodeBase64url(text: string): Uint8Array | { badIndex: number; reason: string } {
  if (text.length % 4 === 1) {
    const bad = badAt(text, 0);
    return bad.badIndex < text.length ? bad : { badIndex: text.length - 1, reason: 'longitud imposible en base64url' };
  }
  const out = new Uint8Array(Math.floor((text.length * 3) / 4));
  let o = 0;
  let i = 0;
  const sextet = (k: number): number => {
    const c = text.charCodeAt(k);
    return c < 128 ? LOOKUP[c]! : -1;
  };
  for (; i + 3 < text.length; i += 4) {
    const a = sextet(i);
    const b = sextet(i + 1);
    const c = sextet(i + 2);
    const d = sextet(i + 3);
    if ((a | b | c | d) < 0) return badAt(text, i);
    const n = (a << 18) | (b << 12) | (c << 6) | d;
    out[o++] = n >> 16;
    out[o++] = (n >> 8) & 255;
    out[o++] = n & 255;
  }
  const rest = text.length - i;
  if (rest >= 2) {
    const a = sextet(i);
    const b = sextet(i + 1);
    const c = rest === 3 ? sextet(i + 2) : 0;
    if ((a | b | c) < 0) return badAt(text, i);
    const n = (a << 18) | (b << 12) | (c << 6);
    out[o++] = n >> 16;
    if (rest === 3) out[o++] = (n >> 8) & 255;
  }
  return out.subarray(0, o);
}

function badAt(text: string, from: number): { badIndex: number; reason: string } {
  for (let k = from; k < text.length; k++) {
    const c = text.charCodeAt(k);
    if (c >= 128 || LOOKUP[c]! < 0) return { badIndex: k, reason: 'carácter no permitido en base64url' };
  }
  return { badIndex: text.length, reason: 'carácter no permitido en base64url' };
}
