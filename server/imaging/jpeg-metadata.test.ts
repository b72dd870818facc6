import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { withoutPersonalMetadata } from './jpeg-metadata.js';

/** The JPEG's segment markers before its image data, in order. */
function markers(jpeg: Uint8Array): number[] {
  const out: number[] = [];
  for (let at = 2; jpeg[at] === 0xff && jpeg[at + 1] !== 0xda; at += 2 + ((jpeg[at + 2]! << 8) | jpeg[at + 3]!))
    out.push(jpeg[at + 1]!);
  return out;
}

/** A camera-like JPEG: EXIF with place and device, a display-P3 ICC profile, and a comment. */
async function cameraJpeg(): Promise<Uint8Array> {
  const jpeg = await sharp({ create: { width: 64, height: 48, channels: 3, background: { r: 200, g: 120, b: 60 } } })
    .composite([{ input: Buffer.from([0, 0, 255]), raw: { width: 1, height: 1, channels: 3 }, left: 10, top: 10 }])
    .withIccProfile('p3')
    .withExif({ IFD0: { Make: 'CamaraX', Model: 'Serie 12345', ImageDescription: 'GPS -34.6037,-58.3816' } })
    .jpeg({ quality: 90 })
    .toBuffer();
  const comment = Buffer.concat([Buffer.from([0xff, 0xfe, 0x00, 0x0c]), Buffer.from('operador 7')]);
  return new Uint8Array(Buffer.concat([jpeg.subarray(0, 2), comment, jpeg.subarray(2)]));
}

describe('withoutPersonalMetadata', () => {
  it('drops EXIF and comments, keeps the ICC profile and the compressed image as they were', async () => {
    const original = await cameraJpeg();
    expect(markers(original)).toContain(0xe1);
    expect(markers(original)).toContain(0xfe);
    const clean = withoutPersonalMetadata(original)!;
    expect(markers(clean)).not.toContain(0xe1);
    expect(markers(clean)).not.toContain(0xfe);
    expect(markers(clean)).toContain(0xe2);
    for (const text of ['CamaraX', 'Serie 12345', 'GPS', 'operador', 'Exif'])
      expect(Buffer.from(clean).includes(text)).toBe(false);
    // The entropy-coded data is the original's byte for byte: same pixels, no second encoding.
    const sos = (b: Uint8Array) => Buffer.from(b).subarray(Buffer.from(b).indexOf(Buffer.from([0xff, 0xda])));
    expect(sos(clean).equals(sos(original))).toBe(true);
    const raw = (b: Uint8Array) => sharp(b).raw().toBuffer();
    expect((await raw(clean)).equals(await raw(original))).toBe(true);
    expect((await sharp(clean).metadata()).icc).toBeDefined();
  });

  it('ends at the end of the image: a preview appended after it, with its own EXIF, is not returned; MPF is dropped', async () => {
    const original = await cameraJpeg();
    const preview = await sharp(original)
      .resize(16)
      .withExif({ IFD0: { Make: 'CamaraPreview' } })
      .jpeg()
      .toBuffer();
    // An APP2 segment that is not an ICC profile: MPF, the index of appended images.
    const mpf = Buffer.concat([Buffer.from([0xff, 0xe2, 0x00, 0x0a]), Buffer.from('MPF\0'), Buffer.from([0, 0, 0, 0])]);
    const withTrailer = new Uint8Array(Buffer.concat([original.subarray(0, 2), mpf, original.subarray(2), preview]));
    const clean = withoutPersonalMetadata(withTrailer)!;
    expect(Buffer.from(clean).includes('CamaraPreview')).toBe(false);
    expect(Buffer.from(clean).includes('MPF')).toBe(false);
    expect(
      Buffer.from(clean)
        .subarray(-2)
        .equals(Buffer.from([0xff, 0xd9])),
    ).toBe(true);
    expect(clean.length).toBeLessThan(original.length);
    expect((await sharp(clean).raw().toBuffer()).equals(await sharp(original).raw().toBuffer())).toBe(true);
  });

  it('follows a progressive JPEG scan by scan: a comment between two scans is dropped too', async () => {
    const progressive = await sharp(await cameraJpeg())
      .jpeg({ progressive: true, quality: 90 })
      .toBuffer();
    const firstScan = progressive.indexOf(Buffer.from([0xff, 0xda]));
    const secondScan = progressive.indexOf(Buffer.from([0xff, 0xda]), firstScan + 2);
    expect(secondScan).toBeGreaterThan(firstScan);
    const comment = Buffer.concat([Buffer.from([0xff, 0xfe, 0x00, 0x10]), Buffer.from('entre escaneos')]);
    const withComment = new Uint8Array(
      Buffer.concat([progressive.subarray(0, secondScan), comment, progressive.subarray(secondScan)]),
    );
    const clean = withoutPersonalMetadata(withComment)!;
    expect(Buffer.from(clean).includes('entre escaneos')).toBe(false);
    expect((await sharp(clean).raw().toBuffer()).equals(await sharp(progressive).raw().toBuffer())).toBe(true);
  });

  it('refuses what is not a JPEG or is cut inside its segments', async () => {
    const original = await cameraJpeg();
    expect(withoutPersonalMetadata(new Uint8Array(await sharp(original).png().toBuffer()))).toBeNull();
    expect(withoutPersonalMetadata(original.subarray(0, 40))).toBeNull();
    expect(withoutPersonalMetadata(new Uint8Array([0xff, 0xd8]))).toBeNull();
  });
});
