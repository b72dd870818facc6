import sharp from 'sharp';
import { Rng } from './synthetic-embeddings.js';

export type RecaptureKind = 'screen' | 'print';

/**
 * One still of a photo shown to the camera instead of the person, as the camera sees it: on a
 * screen (its sub-pixel stripes, raised blacks, a bluish white, a bezel, glare) or printed (paper
 * grain, a duller gamut, a white margin, gloss), held in a room and photographed again (resampled,
 * blurred, noisy, JPEG). No recordings of such attacks beyond a handful exist in the fixtures, so
 * the evaluation makes them from live photos; what it measures on them is the generator's look
 * as much as an attack's.
 */
export async function recapturedStill(photo: Uint8Array, kind: RecaptureKind, seed: number): Promise<Buffer> {
  const rng = new Rng(seed, kind === 'screen' ? 0x51ee : 0x9a9e);
  const between = (a: number, b: number) => a + (b - a) * rng.uniform();
  const shownWidth = Math.round(between(300, 480));
  const { data, info } = await sharp(photo)
    .rotate()
    .resize({ width: shownWidth })
    .removeAlpha()
    .raw()
    .toBuffer({ resolveWithObject: true });
  const w = info.width;
  const h = info.height;
  const src = new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
  let shown: { rgb: Uint8Array; width: number; height: number };
  if (kind === 'screen') {
    // Each pixel as three vertical stripes of its own primaries, with a dark gap between rows.
    const W = w * 3;
    const H = h * 3;
    const out = new Uint8Array(W * H * 3);
    const black = between(12, 30);
    const blue = between(1.0, 1.12);
    for (let y = 0; y < H; y++) {
      // A darker gap every third row; the stripes brighten their own primary and dim the other
      // two, the pixel's mean light unchanged.
      const gap = y % 3 === 2 ? 0.8 : 1.1;
      for (let x = 0; x < W; x++) {
        const s = ((Math.floor(y / 3) * w + Math.floor(x / 3)) * 3) | 0;
        for (let c = 0; c < 3; c++) {
          const v = src[s + c]! * (c === 2 ? blue : 1);
          const lit = (black + (v * (255 - black)) / 255) * gap * (x % 3 === c ? 1.5 : 0.75);
          out[(y * W + x) * 3 + c] = Math.min(255, lit);
        }
      }
    }
    shown = { rgb: out, width: W, height: H };
  } else {
    // Ink on paper: a narrower gamut, a warm white, the paper's grain.
    const out = new Uint8Array(w * h * 3);
    const flat = between(0.7, 0.88);
    for (let i = 0; i < w * h; i++) {
      const r = src[i * 3]!;
      const g = src[i * 3 + 1]!;
      const b = src[i * 3 + 2]!;
      const y = 0.299 * r + 0.587 * g + 0.114 * b;
      const grain = (rng.uniform() - 0.5) * 18;
      const tint = [6, 3, -6];
      [r, g, b].forEach((v, c) => {
        const desat = y + (v - y) * flat;
        out[i * 3 + c] = Math.max(0, Math.min(255, 18 + desat * 0.86 + tint[c]! + grain));
      });
    }
    shown = { rgb: out, width: w, height: h };
  }
  const margin = Math.round(shown.width * (kind === 'screen' ? between(0.04, 0.08) : between(0.02, 0.06)));
  const edge = kind === 'screen' ? { r: 16, g: 16, b: 18 } : { r: 244, g: 242, b: 236 };
  const held = await sharp(shown.rgb, { raw: { width: shown.width, height: shown.height, channels: 3 } })
    .extend({ top: margin, bottom: margin * (kind === 'screen' ? 2 : 1), left: margin, right: margin, background: edge })
    .rotate(between(-6, 6), { background: { r: 0, g: 0, b: 0, alpha: 0 } })
    .png()
    .toBuffer();
  const heldMeta = await sharp(held).metadata();
  // The held picture fills 55-90 % of a 640 x 480 camera frame's height.
  const frameW = 640;
  const frameH = 480;
  const scale = (frameH * between(0.55, 0.9)) / heldMeta.height!;
  const heldSmall = await sharp(held)
    .resize({ width: Math.min(frameW - 4, Math.round(heldMeta.width! * scale)), kernel: 'lanczos3' })
    .png()
    .toBuffer();
  const smallMeta = await sharp(heldSmall).metadata();
  const room = { r: Math.round(between(90, 200)), g: Math.round(between(90, 190)), b: Math.round(between(80, 180)) };
  const left = Math.round(between(0, Math.max(0, frameW - smallMeta.width!)));
  const top = Math.round(between(0, Math.max(0, frameH - smallMeta.height!)));
  const glare = Math.round(between(0, 1) * 255 * (kind === 'screen' ? 0.3 : 0.2));
  const glareSvg = Buffer.from(
    `<svg width="${frameW}" height="${frameH}"><defs><radialGradient id="g"><stop offset="0" stop-color="white" stop-opacity="${glare / 255}"/><stop offset="1" stop-color="white" stop-opacity="0"/></radialGradient></defs>` +
      `<ellipse cx="${between(0.2, 0.8) * frameW}" cy="${between(0.2, 0.8) * frameH}" rx="${between(60, 180)}" ry="${between(40, 120)}" fill="url(#g)"/></svg>`,
  );
  const composed = await sharp({ create: { width: frameW, height: frameH, channels: 3, background: room } })
    .composite([
      { input: heldSmall, left: Math.min(left, frameW - 1), top: Math.min(top, frameH - 1) },
      { input: glareSvg, left: 0, top: 0 },
    ])
    .blur(between(0.5, 1.1))
    .removeAlpha()
    .raw()
    .toBuffer({ resolveWithObject: true });
  // The camera's own noise.
  const px = new Uint8Array(composed.data.buffer, composed.data.byteOffset, composed.data.byteLength);
  const sigma = between(2, 6);
  for (let i = 0; i < px.length; i++) px[i] = Math.max(0, Math.min(255, px[i]! + (rng.uniform() - 0.5) * 2 * sigma));
  return sharp(px, { raw: { width: composed.info.width, height: composed.info.height, channels: 3 } })
    .jpeg({ quality: Math.round(between(78, 92)) })
    .toBuffer();
}
