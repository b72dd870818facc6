/**
 * Minimal valid image headers made in code, for tests of the template codec: the codec reads
 * headers only, so these need no pixels. Real photos are used where pixels matter.
 */
export function fakeJpeg(width: number, height: number, payloadBytes = 64): Uint8Array {
  const sof = [
    0xff,
    0xc0,
    0x00,
    0x11,
    0x08,
    height >> 8,
    height & 255,
    width >> 8,
    width & 255,
    0x03,
    1,
    0x22,
    0,
    2,
    0x11,
    1,
    3,
    0x11,
    1,
  ];
  const app0 = [0xff, 0xe0, 0x00, 0x10, 0x4a, 0x46, 0x49, 0x46, 0x00, 0x01, 0x01, 0x00, 0x00, 0x01, 0x00, 0x01, 0x00, 0x00];
  const bytes = new Uint8Array(2 + app0.length + sof.length + payloadBytes + 2);
  bytes.set([0xff, 0xd8], 0);
  bytes.set(app0, 2);
  bytes.set(sof, 2 + app0.length);
  bytes.set([0xff, 0xd9], bytes.length - 2);
  return bytes;
}

export function fakePng(width: number, height: number): Uint8Array {
  const bytes = new Uint8Array(45);
  bytes.set([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52]);
  const view = new DataView(bytes.buffer);
  view.setUint32(16, width);
  view.setUint32(20, height);
  bytes.set([8, 2, 0, 0, 0], 24);
  return bytes;
}
