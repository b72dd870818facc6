/**
 * JPEG segments a returned image keeps: APP0 (JFIF), APP2 (the ICC profile the pixels are in) and
 * APP14 (Adobe: how the colour channels were coded, needed to decode them right). Everything else
 * before the image data (APP1 with EXIF and XMP: place, time, device serial; the other APPn;
 * comments) is dropped.
 */
const KEPT_APP = new Set([0xe0, 0xe2, 0xee]);

/**
 * A JPEG's bytes without its personal metadata, the compressed image itself untouched (no second
 * lossy encoding): null when the bytes do not parse as a JPEG's segments.
 */
export function withoutPersonalMetadata(jpeg: Uint8Array): Uint8Array | null {
  if (jpeg.length < 4 || jpeg[0] !== 0xff || jpeg[1] !== 0xd8) return null;
  const parts: Uint8Array[] = [jpeg.subarray(0, 2)];
  let at = 2;
  for (;;) {
    if (at + 4 > jpeg.length || jpeg[at] !== 0xff) return null;
    const marker = jpeg[at + 1]!;
    if (marker === 0xff) {
      at++; // fill byte
      continue;
    }
    // Start of scan: the entropy-coded data and whatever follows are kept as they are.
    if (marker === 0xda) {
      parts.push(jpeg.subarray(at));
      break;
    }
    const end = at + 2 + ((jpeg[at + 2]! << 8) | jpeg[at + 3]!);
    if (marker === 0xd8 || marker === 0xd9 || (marker >= 0xd0 && marker <= 0xd7) || end > jpeg.length || end < at + 4)
      return null;
    const metadata = (marker >= 0xe0 && marker <= 0xef && !KEPT_APP.has(marker)) || marker === 0xfe;
    if (!metadata) parts.push(jpeg.subarray(at, end));
    at = end;
  }
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let o = 0;
  for (const p of parts) {
    out.set(p, o);
    o += p.length;
  }
  return out;
}
