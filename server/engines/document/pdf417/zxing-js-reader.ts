// Named imports work both for Node (the CommonJS build, named exports detected) and for
// bundlers/vite-node (the ESM build, which has no default export).
import {
  BinaryBitmap,
  DecodeHintType,
  GlobalHistogramBinarizer,
  HybridBinarizer,
  PDF417Reader,
  RGBLuminanceSource,
  ZXingStringEncoding,
} from '@zxing/library';
import { type GreyImage, type Pdf417Read } from './zxing-wasm-reader.js';

/**
 * In Node, @zxing/library decodes ISO-8859-1 through `decodeURIComponent`, i.e. as UTF-8: a Latin-1
 * Ñ (0xD1) throws URIError or comes out garbled. Decode Latin-1 with Buffer (true ISO-8859-1;
 * WHATWG's 'iso-8859-1' label is windows-1252). Process-wide, as the library's hook is static.
 */
ZXingStringEncoding.customDecoder = (bytes: Uint8Array, encoding: string): string =>
  /^(ISO-?8859-?1|ASCII|US-ASCII)$/i.test(encoding)
    ? Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('latin1')
    : new TextDecoder(encoding).decode(bytes);

export type JsBinarizer = 'hybrid' | 'global';

/**
 * Payload bytes of a PDF417 in a greyscale image, or null. Pure JS and synchronous (blocks the event
 * loop for ~5-30 ms), used as the second decoder: it reads crops without a start pattern that
 * zxing-cpp misses.
 */
export function readPdf417Js(img: GreyImage, binarizer: JsBinarizer = 'hybrid'): Pdf417Read | null {
  // A Uint8ClampedArray of exactly width*height is taken as luminance as is.
  const lum = new Uint8ClampedArray(img.data.buffer, img.data.byteOffset, img.width * img.height);
  const source = new RGBLuminanceSource(lum, img.width, img.height);
  const bitmap = new BinaryBitmap(binarizer === 'hybrid' ? new HybridBinarizer(source) : new GlobalHistogramBinarizer(source));
  try {
    const result = new PDF417Reader().decode(bitmap, new Map([[DecodeHintType.TRY_HARDER, true]]));
    const text = result.getText();
    // With the decoder above, byte-compacted text has one char per byte; anything wider came from an ECI.
    const bytes = [...text].some((c) => c.charCodeAt(0) > 0xff)
      ? new TextEncoder().encode(text)
      : Uint8Array.from(Buffer.from(text, 'latin1'));
    const points = (result.getResultPoints() ?? []).filter((p) => p !== null);
    return { bytes, corners: points.length >= 2 ? points.map((p) => [p.getX(), p.getY()]) : null };
  } catch {
    return null; // NotFound / Checksum / Format: nothing readable in this image
  }
}
