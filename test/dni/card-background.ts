/**
 * Backgrounds and overlays for the random-layout cards: guilloche, gradient, blotchy noise, a faint
 * watermark (large text or an emblem), and a rainbow "hologram" drawn over the printed text.
 */
import sharp, { type OverlayOptions } from 'sharp';
import { type Box, backgroundSvg, type Guilloche } from './synthetic-card.js';
import { type FontFamily, type TextEngine } from './card-text.js';
import { Draw } from './random-person.js';

export interface Watermark {
  kind: 'text' | 'emblem';
  text: string;
  /** Centre and size (emblem diameter, text cap height) in mm; degrees clockwise. */
  xMm: number;
  yMm: number;
  sizeMm: number;
  rotate: number;
  opacity: number;
}

export interface BackgroundSpec {
  tint: string;
  /** Second stop of the gradient (equal to tint for a flat card). */
  tint2: string;
  gradientAngle: number;
  line: string;
  guilloche: Guilloche | null;
  /** 0 for none; about 0.05-0.15 for a visible paper or print texture. */
  noise: number;
  noiseSeed: number;
  watermark: Watermark | null;
}

export interface Hologram {
  shape: 'ellipse' | 'band';
  xMm: number;
  yMm: number;
  /** Half-axes of the ellipse, or half-length and half-width of the band, in mm. */
  rxMm: number;
  ryMm: number;
  rotate: number;
  opacity: number;
  hue: number;
}

const svg = (w: number, h: number, body: string): Buffer =>
  Buffer.from(`<svg xmlns="http://www.w3.org/2000/svg" width="${w}" height="${h}">${body}</svg>`);

/** The ID-1 corner radius of today's cards (w / 25), as a mask (blend dest-in). */
export const cornerMask = (w: number, h: number): Buffer =>
  svg(w, h, `<rect width="${w}" height="${h}" rx="${w / 25}" fill="#fff"/>`);

function baseSvg(w: number, h: number, b: BackgroundSpec): Buffer {
  const rad = (b.gradientAngle * Math.PI) / 180;
  const [dx, dy] = [Math.cos(rad) / 2, Math.sin(rad) / 2];
  return svg(
    w,
    h,
    `<defs><linearGradient id="g" x1="${0.5 - dx}" y1="${0.5 - dy}" x2="${0.5 + dx}" y2="${0.5 + dy}">` +
      `<stop offset="0" stop-color="${b.tint}"/><stop offset="1" stop-color="${b.tint2}"/></linearGradient></defs>` +
      `<rect width="${w}" height="${h}" fill="url(#g)"/>`,
  );
}

/** Low-frequency blotches plus a fine grain, in the line colour: print and paper, not sensor noise. */
async function noiseLayers(w: number, h: number, b: BackgroundSpec): Promise<OverlayOptions[]> {
  const r = new Draw(b.noiseSeed);
  const [rr, gg, bb] = [1, 3, 5].map((i) => parseInt(b.line.slice(i, i + 2), 16));
  const fill = (pw: number, ph: number, amount: number): Buffer => {
    const px = Buffer.alloc(pw * ph * 4);
    for (let i = 0; i < pw * ph; i++) {
      px[i * 4] = rr ?? 0;
      px[i * 4 + 1] = gg ?? 0;
      px[i * 4 + 2] = bb ?? 0;
      px[i * 4 + 3] = Math.round(r.float() * amount * 255);
    }
    return px;
  };
  const [lw, lh] = [Math.ceil(w / 14), Math.ceil(h / 14)];
  const blotches = await sharp(fill(lw, lh, b.noise * 3), { raw: { width: lw, height: lh, channels: 4 } })
    .resize(w, h, { kernel: 'cubic', fit: 'fill' })
    .raw()
    .toBuffer();
  return [
    { input: blotches, raw: { width: w, height: h, channels: 4 } },
    { input: fill(w, h, b.noise * 1.5), raw: { width: w, height: h, channels: 4 } },
  ];
}

/** A sun with straight and wavy rays, a stand-in for the emblem printed under the data. */
function emblemSvg(d: number, colour: string, opacity: number): Buffer {
  const c = d / 2;
  const rays: string[] = [];
  for (let k = 0; k < 32; k++) {
    const a = (k * Math.PI) / 16;
    const [r0, r1] = [c * 0.42, k % 2 ? c * 0.82 : c];
    const w = Math.PI / 64;
    const p = (r: number, t: number): string => `${(c + r * Math.cos(t)).toFixed(1)},${(c + r * Math.sin(t)).toFixed(1)}`;
    rays.push(`<polygon points="${p(r0, a - w)} ${p(r1, a)} ${p(r0, a + w)}"/>`);
  }
  return svg(
    d,
    d,
    `<g fill="${colour}" fill-opacity="${opacity}" stroke="none"><circle cx="${c}" cy="${c}" r="${c * 0.36}"/>${rays.join('')}</g>`,
  );
}

async function watermarkLayer(
  wm: Watermark,
  [cardW, cardH]: [number, number],
  px: (mm: number) => number,
  colour: string,
  text: TextEngine,
  font: FontFamily,
): Promise<OverlayOptions> {
  let input: Buffer;
  if (wm.kind === 'emblem')
    input = await sharp(emblemSvg(px(wm.sizeMm), colour, wm.opacity))
      .png()
      .toBuffer();
  else {
    // A cap height of sizeMm is about 1.4 times that in points' em, at 72 pt to the inch.
    const pt = (wm.sizeMm / 0.7 / 25.4) * 72;
    const run = await text.run(wm.text, { font, bold: true, pt, colour, alpha: wm.opacity });
    input = await sharp(run.input, { raw: { width: run.width, height: run.height, channels: 4 } })
      .png()
      .toBuffer();
  }
  input = await sharp(input)
    .rotate(wm.rotate, { background: { r: 0, g: 0, b: 0, alpha: 0 } })
    .png()
    .toBuffer();
  // sharp clips an overlay that runs past the edge but refuses one larger than the card.
  input = await sharp(input).resize(cardW, cardH, { fit: 'inside', withoutEnlargement: true }).png().toBuffer();
  const meta = await sharp(input).metadata();
  const [w, h] = [meta.width ?? 0, meta.height ?? 0];
  return { input, left: px(wm.xMm) - Math.round(w / 2), top: px(wm.yMm) - Math.round(h / 2) };
}

/** The card's background as raw RGBA pixels (PNG intermediates would cost more than the drawing). */
export async function renderBackground(
  w: number,
  h: number,
  b: BackgroundSpec,
  px: (mm: number) => number,
  text: TextEngine,
  font: FontFamily,
): Promise<Buffer> {
  const layers: OverlayOptions[] = [];
  if (b.guilloche) layers.push({ input: backgroundSvg(w, h, 'none', b.line, b.guilloche) });
  if (b.noise > 0) layers.push(...(await noiseLayers(w, h, b)));
  if (b.watermark) layers.push(await watermarkLayer(b.watermark, [w, h], px, b.line, text, font));
  return sharp(baseSvg(w, h, b))
    .composite(layers)
    .ensureAlpha()
    .raw()
    .toBuffer();
}

/** Bounding box of the rotated ellipse or band, in pixels, clamped to the card. */
export function hologramBox(g: Hologram, px: (mm: number) => number, w: number, h: number): Box {
  const t = (g.rotate * Math.PI) / 180;
  const [c, s] = [Math.abs(Math.cos(t)), Math.abs(Math.sin(t))];
  const [hw, hh] =
    g.shape === 'ellipse'
      ? [Math.hypot(g.rxMm * c, g.ryMm * s), Math.hypot(g.rxMm * s, g.ryMm * c)]
      : [g.rxMm * c + g.ryMm * s, g.rxMm * s + g.ryMm * c];
  const x0 = Math.max(0, px(g.xMm - hw));
  const y0 = Math.max(0, px(g.yMm - hh));
  return { x: x0, y: y0, width: Math.min(w, px(g.xMm + hw)) - x0, height: Math.min(h, px(g.yMm + hh)) - y0 };
}

/** A semi-transparent rainbow shape, composited over everything printed. */
export function hologramSvg(g: Hologram, px: (mm: number) => number, w: number, h: number): Buffer {
  const stops = [0, 60, 120, 180, 240, 300, 360]
    .map((d, i) => `<stop offset="${(i / 6).toFixed(3)}" stop-color="hsl(${(g.hue + d) % 360}, 85%, 60%)"/>`)
    .join('');
  const [cx, cy, rx, ry] = [px(g.xMm), px(g.yMm), px(g.rxMm), px(g.ryMm)];
  const shape =
    g.shape === 'ellipse'
      ? `<ellipse cx="${cx}" cy="${cy}" rx="${rx}" ry="${ry}"`
      : `<rect x="${cx - rx}" y="${cy - ry}" width="${2 * rx}" height="${2 * ry}" rx="${ry / 3}"`;
  return svg(
    w,
    h,
    `<defs><linearGradient id="h" x1="0" y1="0" x2="1" y2="0.35">${stops}</linearGradient></defs>` +
      `${shape} fill="url(#h)" opacity="${g.opacity.toFixed(3)}" transform="rotate(${g.rotate.toFixed(1)} ${cx} ${cy})"/>`,
  );
}
