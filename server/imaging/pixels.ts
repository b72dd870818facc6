import type { Box } from './shapes.js';

/** An 8-bit single-channel image. */
export interface Plane {
  width: number;
  height: number;
  data: Uint8Array;
}

/** Rec. 601 luma of packed RGB. */
export function lumaOf(rgb: Uint8Array, width: number, height: number): Plane {
  const data = new Uint8Array(width * height);
  for (let i = 0, j = 0; i < data.length; i++, j += 3) {
    data[i] = (rgb[j]! * 77 + rgb[j + 1]! * 150 + rgb[j + 2]! * 29) >> 8;
  }
  return { width, height, data };
}

export function clampBox(box: Box, width: number, height: number): Box {
  const x0 = Math.max(0, Math.floor(box.x));
  const y0 = Math.max(0, Math.floor(box.y));
  const x1 = Math.min(width, Math.ceil(box.x + box.width));
  const y1 = Math.min(height, Math.ceil(box.y + box.height));
  return { x: x0, y: y0, width: Math.max(0, x1 - x0), height: Math.max(0, y1 - y0) };
}

export interface RegionStats {
  mean: number;
  std: number;
  /** Share of pixels under 8 or over 247. */
  clipped: number;
  pixels: number;
}

/** Mean and spread of a plane inside a box, on a 0..1 scale. */
export function regionStats(plane: Plane, box: Box): RegionStats {
  const b = clampBox(box, plane.width, plane.height);
  let sum = 0;
  let sq = 0;
  let clipped = 0;
  for (let y = b.y; y < b.y + b.height; y++) {
    let i = y * plane.width + b.x;
    for (let x = 0; x < b.width; x++, i++) {
      const v = plane.data[i]!;
      sum += v;
      sq += v * v;
      if (v < 8 || v > 247) clipped++;
    }
  }
  const n = b.width * b.height;
  if (n === 0) return { mean: 0, std: 0, clipped: 0, pixels: 0 };
  const mean = sum / n;
  return { mean: mean / 255, std: Math.sqrt(Math.max(0, sq / n - mean * mean)) / 255, clipped: clipped / n, pixels: n };
}

/**
 * Mean absolute horizontal and vertical gradients in a box (0..1 per pixel step); horizontal
 * edges (a spectacle frame's bar) raise `vertical`.
 */
export function gradientEnergy(plane: Plane, box: Box): { horizontal: number; vertical: number } {
  const b = clampBox(box, plane.width, plane.height);
  let gx = 0;
  let gy = 0;
  let n = 0;
  for (let y = Math.max(1, b.y); y < Math.min(plane.height - 1, b.y + b.height); y++) {
    for (let x = Math.max(1, b.x); x < Math.min(plane.width - 1, b.x + b.width); x++) {
      const i = y * plane.width + x;
      gx += Math.abs(plane.data[i + 1]! - plane.data[i - 1]!);
      gy += Math.abs(plane.data[i + plane.width]! - plane.data[i - plane.width]!);
      n++;
    }
  }
  return n === 0 ? { horizontal: 0, vertical: 0 } : { horizontal: gx / n / 510, vertical: gy / n / 510 };
}

/** Variance of the 4-neighbour Laplacian in a box, sampled every `step` pixels (0..1 scale squared). */
export function laplacianVariance(plane: Plane, box: Box, step = 1): number {
  const b = clampBox(box, plane.width, plane.height);
  let sum = 0;
  let sq = 0;
  let n = 0;
  const w = plane.width;
  for (let y = Math.max(1, b.y); y < Math.min(plane.height - 1, b.y + b.height); y += step) {
    for (let x = Math.max(1, b.x); x < Math.min(w - 1, b.x + b.width); x += step) {
      const i = y * w + x;
      const v = plane.data[i - 1]! + plane.data[i + 1]! + plane.data[i - w]! + plane.data[i + w]! - 4 * plane.data[i]!;
      sum += v;
      sq += v * v;
      n++;
    }
  }
  if (n === 0) return 0;
  const mean = sum / n;
  return (sq / n - mean * mean) / (255 * 255);
}

/** Cr of YCbCr (BT.601), 0..255 scale. */
const redDifference = (r: number, g: number, b: number): number => 0.5 * r - 0.4187 * g - 0.0813 * b;

/**
 * Red's share of a pixel, R / (R + G + B): a shadow scales the three channels alike, gamma-encoded
 * or not, and keeps it. The 1 keeps black defined (and less red than any skin).
 */
const redShare = (r: number, g: number, b: number): number => r / (r + g + b + 1);

/**
 * Mean chroma (Cb, Cr, centred on 0, scale 0..1) and mean red share of packed RGB in a box.
 */
export function chromaMean(rgb: Uint8Array, width: number, height: number, box: Box): { cb: number; cr: number; red: number } {
  const b = clampBox(box, width, height);
  let cb = 0;
  let cr = 0;
  let red = 0;
  let n = 0;
  for (let y = b.y; y < b.y + b.height; y++) {
    for (let x = b.x; x < b.x + b.width; x++) {
      const j = (y * width + x) * 3;
      const r = rgb[j]!;
      const g = rgb[j + 1]!;
      const bl = rgb[j + 2]!;
      cb += -0.1687 * r - 0.3313 * g + 0.5 * bl;
      cr += redDifference(r, g, bl);
      red += redShare(r, g, bl);
      n++;
    }
  }
  return n === 0 ? { cb: 0, cr: 0, red: 1 / 3 } : { cb: cb / n / 255, cr: cr / n / 255, red: red / n };
}

/**
 * The deepest thin dark line across a band, on the 0..1 scale: the band is sampled in a frame
 * turned by `angle` (so a line along the eyes stays a row when the head rolls), rows from `b0` to
 * `b1` px along the normal, each the mean over `a0`..`a1` px along the axis, from `origin`. For each
 * row run of `thickness`, the darkness under the lighter of its neighbours on either side (each as
 * thick): a spectacle rim or bridge makes such a dip, the smooth shading of skin does not.
 */
export function darkLineDepth(
  plane: Plane,
  origin: readonly [number, number],
  angle: number,
  range: { a0: number; a1: number; b0: number; b1: number },
  thickness: number,
): number {
  const ux = Math.cos(angle);
  const uy = Math.sin(angle);
  const rows: number[] = [];
  const t = Math.max(1, Math.round(thickness));
  for (let b = Math.floor(range.b0); b <= Math.ceil(range.b1); b++) {
    let sum = 0;
    let n = 0;
    for (let a = Math.floor(range.a0); a <= Math.ceil(range.a1); a++) {
      const x = Math.round(origin[0] + a * ux - b * uy);
      const y = Math.round(origin[1] + a * uy + b * ux);
      if (x < 0 || y < 0 || x >= plane.width || y >= plane.height) continue;
      sum += plane.data[y * plane.width + x]!;
      n++;
    }
    rows.push(n > 0 ? sum / n / 255 : NaN);
  }
  const mean = (from: number, to: number) => {
    let s = 0;
    for (let i = from; i < to; i++) s += rows[i]!;
    return s / (to - from);
  };
  let depth = 0;
  for (let i = t; i + 2 * t <= rows.length; i++) {
    const line = mean(i, i + t);
    const around = Math.min(mean(i - t, i), mean(i + t, i + 2 * t));
    if (line < around - depth) depth = around - line;
  }
  return Number.isFinite(depth) ? depth : 0;
}

/**
 * Under this red share a cheek leaves hair no room for a lower one: a grey or infrared frame, or
 * pale skin in cool light (grey is 1/3).
 */
const COLOURLESS_SKIN_RED = 1 / 3 + 0.03;

/**
 * Share of a box's pixels that look like hair against a skin reference (luma and Cr 0..1, and the
 * red share, as regionStats and chromaMean give them).
 *
 * By luma and Cr: no redder than the skin (lips, the other dark thing near a beard, are redder),
 * and clearly darker, or somewhat darker and less red. A shadow passes that test too: it darkens
 * the skin and lowers its Cr with its luma. What a shadow keeps is the skin's red share; dark hair
 * (red hair aside) has less of it. So a pixel that passes counts half, and the other half is for
 * one somewhat darker whose red share is also clearly under the skin's: a shadow scores half, dark
 * hair whole. Brown hair, whose red share is the skin's, scores as a shadow does. Where the
 * cheek has almost no red, the luma test counts whole.
 */
export function hairShare(luma: Plane, rgb: Uint8Array, box: Box, skin: { luma: number; cr: number; red: number }): number {
  const b = clampBox(box, luma.width, luma.height);
  const colourless = skin.red < COLOURLESS_SKIN_RED;
  let hair = 0;
  for (let y = b.y; y < b.y + b.height; y++) {
    for (let x = b.x; x < b.x + b.width; x++) {
      const i = y * luma.width + x;
      const r = rgb[3 * i]!;
      const g = rgb[3 * i + 1]!;
      const bl = rgb[3 * i + 2]!;
      const cr = redDifference(r, g, bl) / 255;
      const darker = (skin.luma - luma.data[i]! / 255) / Math.max(0.02, skin.luma);
      const byLuma = cr <= skin.cr + 0.02 && (darker >= 0.25 || (darker >= 0.08 && cr <= skin.cr - 0.01));
      if (colourless) {
        if (byLuma) hair++;
        continue;
      }
      if (byLuma) hair += 0.5;
      if (darker >= 0.08 && redShare(r, g, bl) <= skin.red - 0.02) hair += 0.5;
    }
  }
  const n = b.width * b.height;
  return n === 0 ? 0 : hair / n;
}

/** Reverses each row of a packed-RGB image `width` pixels wide, a pixel's three channels together, in place. */
export function mirrorRowsInPlace(data: Uint8Array | Int32Array, width: number): void {
  const rows = data.length / (width * 3);
  for (let y = 0; y < rows; y++) {
    for (let l = y * width * 3, r = (y * width + width - 1) * 3; l < r; l += 3, r -= 3) {
      for (let c = 0; c < 3; c++) {
        const v = data[l + c]!;
        data[l + c] = data[r + c]!;
        data[r + c] = v;
      }
    }
  }
}
