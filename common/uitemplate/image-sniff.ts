/**
 * Image type and dimensions read from the first bytes, without decoding pixels, so that
 * decompression bombs and non-images are refused before any decoder sees them.
 */
export type ImageType = 'image/jpeg' | 'image/png';

export interface SniffedImage {
  type: ImageType;
  width: number;
  height: number;
}

export function sniffImage(bytes: Uint8Array): SniffedImage | { error: string } {
  if (bytes.length >= 3 && bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) return sniffJpeg(bytes);
  if (bytes.length >= 8 && PNG_SIGNATURE.every((b, i) => bytes[i] === b)) return sniffPng(bytes);
  return { error: 'no es una imagen JPEG ni PNG' };
}

const PNG_SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];

function sniffPng(bytes: Uint8Array): SniffedImage | { error: string } {
  // IHDR must be the first chunk: length 13 at 8, type at 12, width at 16, height at 20.
  if (bytes.length < 33) return { error: 'PNG truncado' };
  const isIhdr = bytes[12] === 0x49 && bytes[13] === 0x48 && bytes[14] === 0x44 && bytes[15] === 0x52;
  if (!isIhdr) return { error: 'PNG sin cabecera IHDR' };
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  return { type: 'image/png', width: view.getUint32(16), height: view.getUint32(20) };
}

function sniffJpeg(bytes: Uint8Array): SniffedImage | { error: string } {
  let i = 2;
  while (i + 3 < bytes.length) {
    if (bytes[i] !== 0xff) return { error: 'JPEG con marcador inválido' };
    const marker = bytes[i + 1]!;
    if (marker === 0xff) {
      i++; // fill byte
      continue;
    }
    if (marker === 0xd9 || marker === 0xda) return { error: 'JPEG sin cabecera de tamaño (SOF)' };
    if (marker === 0x01 || (marker >= 0xd0 && marker <= 0xd7)) {
      i += 2;
      continue;
    }
    const length = (bytes[i + 2]! << 8) | bytes[i + 3]!;
    if (length < 2) return { error: 'JPEG con segmento de longitud inválida' };
    const isSof = marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc;
    if (isSof) {
      if (i + 9 > bytes.length) return { error: 'JPEG truncado' };
      const height = (bytes[i + 5]! << 8) | bytes[i + 6]!;
      const width = (bytes[i + 7]! << 8) | bytes[i + 8]!;
      return { type: 'image/jpeg', width, height };
    }
    i += 2 + length;
  }
  return { error: 'JPEG truncado' };
}
