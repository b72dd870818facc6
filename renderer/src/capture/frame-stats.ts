import type { Box } from './face-guidance.js';

/** A grey image, one byte per pixel (BT.601 luma), small enough to measure on every frame. */
export interface GreyPlane {
  width: number;
  height: number;
  data: Uint8Array;
}

/** Luma of RGBA pixels (canvas ImageData layout). */
export function greyFromRgba(rgba: Uint8ClampedArray | Uint8Array, width: number, height: number): GreyPlane {
  const data = new Uint8Array(width * height);
  for (let i = 0, p = 0; i < data.length; i++, p += 4) {
    data[i] = (77 * rgba[p]! + 150 * rgba[p + 1]! + 29 * rgba[p + 2]!) >> 8;
  }
  return { width, height, data };
}

function clampRegion(plane: GreyPlane, box?: Box): { x0: number; y0: number; x1: number; y1: number } {
  if (!box) return { x0: 0, y0: 0, x1: plane.width, y1: plane.height };
  const x0 = Math.max(0, Math.floor(box.x));
  const y0 = Math.max(0, Math.floor(box.y));
  const x1 = Math.min(plane.width, Math.ceil(box.x + box.width));
  const y1 = Math.min(plane.height, Math.ceil(box.y + box.height));
  return x1 > x0 && y1 > y0 ? { x0, y0, x1, y1 } : { x0: 0, y0: 0, x1: plane.width, y1: plane.height };
}

/** Mean luma 0..1, its standard deviation, and the share of pixels at either end of the range. */
export function regionStats(plane: GreyPlane, box?: Box): { brightness: number; contrast: number; clipped: number } {
  const { x0, y0, x1, y1 } = clampRegion(plane, box);
  let sum = 0;
  let sq = 0;
  let clipped = 0;
  for (let y = y0; y < y1; y++) {
    for (let x = x0; x < x1; x++) {
      const v = plane.data[y * plane.width + x]!;
      sum += v;
      sq += v * v;
      if (v >= 250) clipped++;
    }
  }
  const n = (x1 - x0) * (y1 - y0);
  const mean = sum / n;
  return { brightness: mean / 255, contrast: Math.sqrt(Math.max(0, sq / n - mean * mean)) / 255, clipped: clipped / n };
}

/** Variance of the 4-neighbour Laplacian: high for a sharp image, near zero for blur. */
export function sharpness(plane: GreyPlane, box?: Box): number {
  const { x0, y0, x1, y1 } = clampRegion(plane, box);
  const w = plane.width;
  let sum = 0;
  let sq = 0;
  let n = 0;
  for (let y = Math.max(1, y0); y < Math.min(plane.height - 1, y1); y++) {
    for (let x = Math.max(1, x0); x < Math.min(w - 1, x1); x++) {
      const i = y * w + x;
      const d = plane.data;
      const lap = d[i - 1]! + d[i + 1]! + d[i - w]! + d[i + w]! - 4 * d[i]!;
      sum += lap;
      sq += lap * lap;
      n++;
    }
  }
  if (n === 0) return 0;
  const mean = sum / n;
  return sq / n - mean * mean;
}

/** Mean absolute luma change between two frames of the same size, 0..255. */
export function motion(a: GreyPlane, b: GreyPlane): number {
  if (a.width !== b.width || a.height !== b.height) return 255;
  let sum = 0;
  for (let i = 0; i < a.data.length; i++) sum += Math.abs(a.data[i]! - b.data[i]!);
  return sum / a.data.length;
}
