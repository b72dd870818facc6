import type { Plane } from '../../../imaging/index.js';

/**
 * Contrast-limited adaptive histogram equalization (Zuiderveld, 1994) on a luma plane:
 * per-tile histograms clipped at `clipLimit` times the mean bin height, redistributed, and
 * the tile mappings bilinearly interpolated.
 */
export function claheMapping(plane: Plane, clipLimit: number, tiles = 8): Uint8Array {
  const { width, height, data } = plane;
  const tw = Math.ceil(width / tiles);
  const th = Math.ceil(height / tiles);
  // Every tile's 256-entry mapping, one after the other.
  const maps = new Uint8Array(tiles * tiles * 256);
  for (let ty = 0; ty < tiles; ty++) {
    for (let tx = 0; tx < tiles; tx++) {
      const hist = new Uint32Array(256);
      const x0 = tx * tw;
      const y0 = ty * th;
      const x1 = Math.min(width, x0 + tw);
      const y1 = Math.min(height, y0 + th);
      let n = 0;
      for (let y = y0; y < y1; y++) for (let x = x0; x < x1; x++, n++) hist[data[y * width + x]!]!++;
      maps.set(tileMap(hist, n, clipLimit), (ty * tiles + tx) * 256);
    }
  }
  // A column's two tiles and weight are the same on every row: computed once.
  const left = new Int32Array(width);
  const right = new Int32Array(width);
  const toRight = new Float64Array(width);
  for (let x = 0; x < width; x++) {
    const fx = Math.min(tiles - 1, Math.max(0, (x + 0.5) / tw - 0.5));
    const tx0 = Math.floor(fx);
    left[x] = tx0 * 256;
    right[x] = Math.min(tiles - 1, tx0 + 1) * 256;
    toRight[x] = fx - tx0;
  }
  const out = new Uint8Array(data.length);
  for (let y = 0; y < height; y++) {
    const fy = Math.min(tiles - 1, Math.max(0, (y + 0.5) / th - 0.5));
    const ty0 = Math.floor(fy);
    const upper = ty0 * tiles * 256;
    const lower = Math.min(tiles - 1, ty0 + 1) * tiles * 256;
    const wy = fy - ty0;
    for (let x = 0, i = y * width; x < width; x++, i++) {
      const v = data[i]!;
      const wx = toRight[x]!;
      const top = maps[upper + left[x]! + v]! * (1 - wx) + maps[upper + right[x]! + v]! * wx;
      const bottom = maps[lower + left[x]! + v]! * (1 - wx) + maps[lower + right[x]! + v]! * wx;
      out[i] = Math.round(top * (1 - wy) + bottom * wy);
    }
  }
  return out;
}

/** One tile's mapping: its histogram clipped, the excess spread over every bin, then its CDF. */
export function tileMap(hist: Uint32Array, n: number, clipLimit: number): Uint8Array {
  const map = new Uint8Array(256);
  if (n === 0) return map.map((_, i) => i);
  const limit = Math.max(1, Math.floor((clipLimit * n) / 256));
  let excess = 0;
  for (let i = 0; i < 256; i++) {
    if (hist[i]! > limit) {
      excess += hist[i]! - limit;
      hist[i] = limit;
    }
  }
  const share = Math.floor(excess / 256);
  let rest = excess - share * 256;
  for (let i = 0; i < 256; i++) hist[i]! += share + (rest-- > 0 ? 1 : 0);
  let cdf = 0;
  for (let i = 0; i < 256; i++) {
    cdf += hist[i]!;
    map[i] = Math.min(255, Math.round((cdf * 255) / n));
  }
  return map;
}

/** Applies a new luma to packed RGB, keeping each pixel's chroma. */
export function applyLuma(rgb: Uint8Array, before: Uint8Array, after: Uint8Array): Uint8Array {
  const out = new Uint8Array(rgb.length);
  for (let i = 0, j = 0; i < before.length; i++, j += 3) {
    const d = after[i]! - before[i]!;
    out[j] = clamp8(rgb[j]! + d);
    out[j + 1] = clamp8(rgb[j + 1]! + d);
    out[j + 2] = clamp8(rgb[j + 2]! + d);
  }
  return out;
}

function clamp8(v: number): number {
  return v < 0 ? 0 : v > 255 ? 255 : v;
}

/**
 * Whether a frame needs equalization and how strongly: none for a well-exposed, contrasted
 * frame; up to `maxClip` for a dark, bright or flat one.
 */
export function claheClipFor(stats: { mean: number; std: number }, minClip: number, maxClip: number): number {
  const dark = Math.max(0, 0.3 - stats.mean) / 0.3;
  const bright = Math.max(0, stats.mean - 0.75) / 0.25;
  const flat = Math.max(0, 0.16 - stats.std) / 0.16;
  const severity = Math.min(1, Math.max(dark, bright, flat));
  if (severity <= 0) return 0;
  return Math.round((minClip + (maxClip - minClip) * severity) * 10) / 10;
}
