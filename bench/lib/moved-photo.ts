import sharp from 'sharp';
import { homographyFrom, type Point, warpPerspective } from '../../server/imaging/index.js';
import { Rng } from './synthetic-embeddings.js';

/**
 * A photo attack as a capture sequence shows it: a still picture (a print, a tablet) held in front
 * of the camera and moving with the hand. Each frame is the picture's plane shifted, turned in
 * plane and tilted (a perspective map, as a real card tilting), drifting smoothly from one pose to
 * another; around it, a grey backdrop. There is no recording of such attacks in the fixtures,
 * so the evaluation makes them from the stills.
 */
export async function movedPhotoSequence(photo: Uint8Array, seed: number, frames = 5): Promise<Buffer[]> {
  const { data, info } = await sharp(photo)
    .rotate()
    .resize({ width: 640, height: 640, fit: 'inside' })
    .removeAlpha()
    .raw()
    .toBuffer({ resolveWithObject: true });
  const rgb = new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
  const { width: w, height: h } = info;
  const rng = new Rng(seed, 0x9e37);
  const r = () => rng.uniform() - 0.5;
  // Start and end poses: shift up to 4 % of the side, in-plane turn up to 4 degrees, tilt up to 5 %.
  const pose = () => ({ tx: r() * 0.08 * w, ty: r() * 0.08 * h, angle: (r() * 8 * Math.PI) / 180, tilt: r() * 0.1 });
  const [a, b] = [pose(), pose()];
  const out: Buffer[] = [];
  for (let k = 0; k < frames; k++) {
    const t = frames > 1 ? k / (frames - 1) : 0;
    const p = {
      tx: a.tx + (b.tx - a.tx) * t,
      ty: a.ty + (b.ty - a.ty) * t,
      angle: a.angle + (b.angle - a.angle) * t,
      tilt: a.tilt + (b.tilt - a.tilt) * t,
    };
    const c: Point = [w / 2, h / 2];
    // The picture's corners where the camera sees them: the near edge taller than the far one.
    const corners: Point[] = [
      [0, -p.tilt * h * 0.5],
      [w, p.tilt * h * 0.5],
      [w, h - p.tilt * h * 0.5],
      [0, h + p.tilt * h * 0.5],
    ].map(([x, y]) => {
      const dx = x! - c[0];
      const dy = y! - c[1];
      return [
        c[0] + dx * Math.cos(p.angle) - dy * Math.sin(p.angle) + p.tx,
        c[1] + dx * Math.sin(p.angle) + dy * Math.cos(p.angle) + p.ty,
      ];
    });
    const seen = homographyFrom(corners, [
      [0, 0],
      [w, 0],
      [w, h],
      [0, h],
    ]);
    if (!seen) throw new Error('degenerate pose');
    const frame = warpPerspective(rgb, w, h, seen, w, h, 128);
    out.push(
      await sharp(frame, { raw: { width: w, height: h, channels: 3 } })
        .jpeg({ quality: 90 })
        .toBuffer(),
    );
  }
  return out;
}
