/**
 * JPEG segments a returned image keeps: APP0 (JFIF), APP2 when it is an ICC profile (the colour
 * space of the pixels) and APP14 (Adobe: how the colour channels were coded, needed to decode them
 * right). Everything else before the image data is dropped: APP1 with EXIF and XMP (place, time,
 * device serial), APP2 with MPF (the index of further images a camera appends), the other APPn
 * and comments.
 */
const ALWAYS_KEPT_APP = new Set([0xe0, 0xee]);
const ICC = new TextEncoder().encode('ICC_PROFILE\0');

/**
 * A JPEG's bytes without its personal metadata, the compressed image itself untouched (no second
 * lossy encoding), and nothing after its end (cameras append previews and depth maps there, with
 * their own EXIF): null when the bytes do not parse as a whole JPEG.
 */
export function withoutPersonalMetadata(jpeg: Uint8Array): Uint8Array | null {
  if (jpeg.length < 4 || jpeg[0] !== 0xff || jpeg[1] !== 0xd8) return null;
  const parts: Uint8Array[] = [jpeg.subarray(0, 2)];
  let at = 2;
  for (;;) {
    if (at + 2 > jpeg.length || jpeg[at] !== 0xff) return null;
    const marker = jpeg[at + 1]!;
    if (marker === 0xff) {
      at++; // fill byte
      continue;
    }
    if (marker === 0xd9) {
      parts.push(jpeg.subarray(at, at + 2));
      break;
    }
    const end = at + 4 <= jpeg.length ? at + 2 + ((jpeg[at + 2]! << 8) | jpeg[at + 3]!) : -1;
    if (marker === 0xd8 || (marker >= 0xd0 && marker <= 0xd7) || end > jpeg.length || end < at + 4) return null;
    if (kept(marker, jpeg.subarray(at + 4, end))) parts.push(jpeg.subarray(at, end));
    at = end;
    // A scan header is followed by its entropy-coded data, kept as it is up to the next marker
    // (another scan's tables or header in a progressive JPEG, or the end).
    if (marker === 0xda) {
      const next = nextMarker(jpeg, at);
      if (next < 0) return null;
      parts.push(jpeg.subarray(at, next));
      at = next;
    }
  }
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let o = 0;
  for (const p of parts) {
    out.set(p, o);
    o += p.length;
  }
  return out;
}

function kept(marker: number, payload: Uint8Array): boolean {
  if (marker === 0xfe) return false; // comment
  if (marker < 0xe0 || marker > 0xef) return true; // tables, frame and scan headers: the image itself
  if (ALWAYS_KEPT_APP.has(marker)) return true;
  return marker === 0xe2 && payload.length >= ICC.length && ICC.every((b, i) => payload[i] === b);
}

/**
 * Where entropy-coded data ends: the first 0xff not followed by 0x00 (a stuffed byte) or by a
 * restart marker, which belong to the data.
 */
function nextMarker(jpeg: Uint8Array, from: number): number {
  const bytes = Buffer.from(jpeg.buffer, jpeg.byteOffset, jpeg.byteLength);
  for (let i = bytes.indexOf(0xff, from); i >= 0 && i + 1 < bytes.length; i = bytes.indexOf(0xff, i + 1)) {
    const next = bytes[i + 1]!;
    if (next !== 0x00 && !(next >= 0xd0 && next <= 0xd7)) return i;
  }
  return -1;
}
