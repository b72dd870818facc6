// Faces as integrators send them, made from photos whose face box is known: cropped tight by
// another detector, filling the frame, small faces enlarged, portraits on a plain background.
import sharp from 'sharp';
import type { Box } from '../../server/imaging/index.js';
import { seededRandom } from '../../test/random.js';

export type CropKind = 'tight' | 'fill' | 'upscaled' | 'portrait';
export const CROP_KINDS: readonly CropKind[] = ['tight', 'fill', 'upscaled', 'portrait'];

export interface MadeCrop {
  kind: CropKind;
  image: Buffer;
  /** Share of the output's width the face box takes (1 or more: the box is cut by the edges). */
  faceShare: number;
  width: number;
}

/**
 * One input of each kind from a photo and its face box (the box of Human's detector, which holds
 * the face with little margin), varied by `seed`:
 * - tight: a square the box's size or smaller (60-100 % of it; chin or forehead cut), 90-240 px,
 * - fill: the box filling 60-100 % of a frame of the photo's own pixels around it,
 * - upscaled: the face shrunk to 28-45 px wide and enlarged back to 160-240 px (a small face blown up),
 * - portrait: the head and shoulders on a plain background, as an ID photo.
 */
export async function facesAsSent(
  photo: Uint8Array,
  box: Box,
  size: { width: number; height: number },
  seed: number,
): Promise<MadeCrop[]> {
  const r = seededRandom(seed);
  const between = (a: number, b: number) => a + (b - a) * r();
  const cx = box.x + box.width / 2 + between(-0.05, 0.05) * box.width;
  const cy = box.y + box.height / 2 + between(-0.05, 0.05) * box.height;
  const square = (side: number) => {
    const left = Math.round(Math.max(0, Math.min(size.width - side, cx - side / 2)));
    const top = Math.round(Math.max(0, Math.min(size.height - side, cy - side / 2)));
    const s = Math.round(Math.min(side, size.width - left, size.height - top));
    return { left, top, width: s, height: s };
  };
  const base = () => sharp(photo).rotate();
  const out: MadeCrop[] = [];

  const tightShare = between(0.6, 1);
  const tight = square(Math.max(box.width, box.height) * tightShare);
  const tightWidth = Math.round(between(90, 240));
  out.push({
    kind: 'tight',
    image: await base().extract(tight).resize(tightWidth).jpeg({ quality: 88 }).toBuffer(),
    faceShare: box.width / tight.width,
    width: tightWidth,
  });

  const fillShare = between(0.6, 1);
  const fill = square(box.width / fillShare);
  const fillWidth = Math.round(between(160, 400));
  out.push({
    kind: 'fill',
    image: await base().extract(fill).resize(fillWidth).jpeg({ quality: 88 }).toBuffer(),
    faceShare: box.width / fill.width,
    width: fillWidth,
  });

  const head = square(box.width * 1.6);
  const small = Math.round((head.width * between(28, 45)) / box.width);
  const upWidth = Math.round(between(160, 240));
  const shrunk = await base().extract(head).resize(Math.max(16, small)).png().toBuffer();
  out.push({
    kind: 'upscaled',
    image: await sharp(shrunk).resize(upWidth, upWidth, { kernel: 'cubic' }).jpeg({ quality: 90 }).toBuffer(),
    faceShare: box.width / head.width,
    width: upWidth,
  });

  // ICAO-like: the face about half the width of a 3:4 photo on a light plain background.
  const portraitWidth = Math.round(between(240, 420));
  const faceWidth = Math.round(portraitWidth * between(0.45, 0.6));
  const cut = square(box.width * 1.25);
  const face = await base()
    .extract(cut)
    .resize(Math.round((faceWidth * cut.width) / box.width))
    .png()
    .toBuffer();
  const faceMeta = await sharp(face).metadata();
  const height = Math.round((portraitWidth * 4) / 3);
  const grey = Math.round(between(200, 240));
  out.push({
    kind: 'portrait',
    image: await sharp({ create: { width: portraitWidth, height, channels: 3, background: { r: grey, g: grey, b: grey + 6 } } })
      .composite([
        {
          input: face,
          left: Math.round((portraitWidth - faceMeta.width!) / 2),
          top: Math.max(0, Math.round(height * 0.42 - faceMeta.height! / 2)),
        },
      ])
      .jpeg({ quality: 90 })
      .toBuffer(),
    faceShare: faceWidth / portraitWidth,
    width: portraitWidth,
  });
  return out;
}
