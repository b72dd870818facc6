import type { Plane } from './pixels.js';

/** Downscales a plane by an integer factor with a box filter. */
export function shrink(plane: Plane, factor: number): Plane {
  if (factor <= 1) return plane;
  const width = Math.floor(plane.width / factor);
  const height = Math.floor(plane.height / factor);
  const data = new Uint8Array(width * height);
  const n = factor * factor;
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      let s = 0;
      for (let dy = 0; dy < factor; dy++) {
        const row = (y * factor + dy) * plane.width + x * factor;
        for (let dx = 0; dx < factor; dx++) s += plane.data[row + dx]!;
      }
      data[y * width + x] = s / n;
    }
  }
  return { width, height, data };
}

export interface EdgeMaps {
  width: number;
  height: number;
  /** Strong edges whose gradient is mostly horizontal (they belong to vertical lines). */
  vertical: Uint8Array;
  /** Strong edges whose gradient is mostly vertical (horizontal lines). */
  horizontal: Uint8Array;
}

/** Sobel edges split by orientation; `threshold` on the Sobel magnitude (0..1020). */
export function edgeMaps(p: Plane, threshold = 100): EdgeMaps {
  const { width, height, data } = p;
  const vertical = new Uint8Array(width * height);
  const horizontal = new Uint8Array(width * height);
  for (let y = 1; y < height - 1; y++) {
    for (let x = 1; x < width - 1; x++) {
      const i = y * width + x;
      const gx =
        data[i - width + 1]! +
        2 * data[i + 1]! +
        data[i + width + 1]! -
        data[i - width - 1]! -
        2 * data[i - 1]! -
        data[i + width - 1]!;
      const gy =
        data[i + width - 1]! +
        2 * data[i + width]! +
        data[i + width + 1]! -
        data[i - width - 1]! -
        2 * data[i - width]! -
        data[i - width + 1]!;
      const ax = Math.abs(gx);
      const ay = Math.abs(gy);
      if (ax > threshold && ax > 1.5 * ay) vertical[i] = 1;
      if (ay > threshold && ay > 1.5 * ax) horizontal[i] = 1;
    }
  }
  return { width, height, vertical, horizontal };
}

/** A straight line found in a band: `position + slope * (t - centre)` along the band's length. */
export interface LineFit {
  /** Share of the span that sits on an edge, 0..1. */
  coverage: number;
  position: number;
  slope: number;
  centre: number;
}

/** The slopes a line search tries: about +-15 degrees. */
export const LINE_SLOPES: readonly number[] = Array.from({ length: 13 }, (_, i) => -0.27 + i * 0.045);
const STEEPEST = Math.max(...LINE_SLOPES.map(Math.abs));

/**
 * The best near-vertical line with x in [x0, x1] over rows [y0, y1] (a small Hough transform:
 * every position and slope, scored by the share of rows on an edge, with one pixel of slack).
 */
export function bestVerticalLine(e: EdgeMaps, x0: number, x1: number, y0: number, y1: number): LineFit {
  return bestLine(e.vertical, e.width, e.height, x0, x1, y0, y1, false);
}

export function bestHorizontalLine(e: EdgeMaps, y0: number, y1: number, x0: number, x1: number): LineFit {
  return bestLine(e.horizontal, e.width, e.height, y0, y1, x0, x1, true);
}

function bestLine(
  map: Uint8Array,
  width: number,
  height: number,
  p0: number,
  p1: number,
  t0: number,
  t1: number,
  transposed: boolean,
): LineFit {
  const along = transposed ? width : height;
  const across = transposed ? height : width;
  const ts = Math.max(1, Math.floor(t0));
  const te = Math.min(along - 2, Math.ceil(t1));
  const span = te - ts;
  const centre = (ts + te) / 2;
  let best: LineFit = { coverage: 0, position: (p0 + p1) / 2, slope: 0, centre };
  if (span < 8) return best;
  const pFrom = Math.max(1, Math.floor(p0));
  const pTo = Math.min(across - 2, Math.ceil(p1));
  if (pTo < pFrom) return best;
  // Each cell of the band ORed with its two neighbours across the line (the pixel of slack), summed
  // down each column along the line: sums[(t - ts) * across + a] counts the cells of column a in
  // the rows before t.
  const sums = new Int32Array((span + 1) * across);
  const step = transposed ? width : 1;
  // Only the columns some slope reaches from some position.
  const reach = Math.ceil(STEEPEST * Math.max(centre - ts, te - centre)) + 1;
  const aFrom = Math.max(1, pFrom - reach);
  const aTo = Math.min(across - 2, pTo + reach);
  for (let t = ts; t < te; t++) {
    const before = (t - ts) * across;
    for (let a = aFrom; a <= aTo; a++) {
      const i = transposed ? a * width + t : t * width + a;
      sums[before + across + a] = sums[before + a]! + (map[i]! | map[i - step]! | map[i + step]! ? 1 : 0);
    }
  }
  // Every position of one slope at once: along the line a slope shifts all positions by the same
  // rounded offset, constant over runs of rows, and a run adds one column sum per position. (The
  // offset is rounded before the position is added: the same cell as rounding their sum, but
  // where the offset lies within floating-point error of a half.)
  const positions = pTo - pFrom + 1;
  const hits = new Int32Array(positions * LINE_SLOPES.length);
  LINE_SLOPES.forEach((slope, s) => {
    const mine = hits.subarray(s * positions, (s + 1) * positions);
    for (let t = ts; t < te; ) {
      const shift = Math.round(slope * (t - centre));
      let end = t + 1;
      while (end < te && Math.round(slope * (end - centre)) === shift) end++;
      const lo = Math.max(pFrom, 1 - shift);
      const hi = Math.min(pTo, across - 2 - shift);
      const from = (t - ts) * across + shift;
      const to = (end - ts) * across + shift;
      for (let p = lo; p <= hi; p++) mine[p - pFrom]! += sums[to + p]! - sums[from + p]!;
      t = end;
    }
  });
  // Position by position, slope by slope: the first best wins, as the search always chose.
  for (let k = 0; k < positions; k++) {
    for (let s = 0; s < LINE_SLOPES.length; s++) {
      const coverage = hits[s * positions + k]! / span;
      if (coverage > best.coverage) best = { coverage, position: pFrom + k, slope: LINE_SLOPES[s]!, centre };
    }
  }
  return best;
}
