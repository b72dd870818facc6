import type { Box } from '../types.js';
import type { Plane } from './pixels.js';

/** Downscales a plane by an integer factor with a box filter. */
function shrink(plane: Plane, factor: number): Plane {
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

interface Edges {
  width: number;
  height: number;
  /** Strong edges whose gradient is mostly horizontal (a vertical line), and mostly vertical. */
  vertical: Uint8Array;
  horizontal: Uint8Array;
}

function edgesOf(p: Plane): Edges {
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
      if (ax > 100 && ax > 1.5 * ay) vertical[i] = 1;
      if (ay > 100 && ay > 1.5 * ax) horizontal[i] = 1;
    }
  }
  return { width, height, vertical, horizontal };
}

/**
 * Best coverage (0..1) of a straight, near-vertical line in the band [x0, x1] spanning rows
 * [y0, y1], tilted up to about 15 degrees: the share of its rows that sit on an edge.
 */
function bestVerticalLine(e: Edges, x0: number, x1: number, y0: number, y1: number): number {
  const ys = Math.max(1, Math.floor(y0));
  const ye = Math.min(e.height - 2, Math.ceil(y1));
  const span = ye - ys;
  if (span < 8) return 0;
  const yc = (ys + ye) / 2;
  let best = 0;
  for (let xc = Math.max(1, Math.floor(x0)); xc <= Math.min(e.width - 2, Math.ceil(x1)); xc++) {
    for (let slope = -0.27; slope <= 0.2701; slope += 0.045) {
      let hits = 0;
      for (let y = ys; y < ye; y++) {
        const x = Math.round(xc + slope * (y - yc));
        if (x < 1 || x >= e.width - 1) continue;
        const i = y * e.width + x;
        if (e.vertical[i] || e.vertical[i - 1] || e.vertical[i + 1]) hits++;
      }
      best = Math.max(best, hits / span);
    }
  }
  return best;
}

function bestHorizontalLine(e: Edges, y0: number, y1: number, x0: number, x1: number): number {
  const xs = Math.max(1, Math.floor(x0));
  const xe = Math.min(e.width - 2, Math.ceil(x1));
  const span = xe - xs;
  if (span < 8) return 0;
  const xc = (xs + xe) / 2;
  let best = 0;
  for (let yc = Math.max(1, Math.floor(y0)); yc <= Math.min(e.height - 2, Math.ceil(y1)); yc++) {
    for (let slope = -0.27; slope <= 0.2701; slope += 0.045) {
      let hits = 0;
      for (let x = xs; x < xe; x++) {
        const y = Math.round(yc + slope * (x - xc));
        if (y < 1 || y >= e.height - 1) continue;
        const i = y * e.width + x;
        if (e.horizontal[i] || e.horizontal[i - e.width] || e.horizontal[i + e.width]) hits++;
      }
      best = Math.max(best, hits / span);
    }
  }
  return best;
}

export interface FramingCue {
  /** 0..1: the face sits inside a frame-like rectangle (a phone or tablet bezel, a print's edge). */
  bezel: number;
  /** Line coverage found on each side of the face. */
  sides: { left: number; right: number; top: number; bottom: number };
}

/**
 * Looks for the straight edges of a device or a print around the face: a replayed or printed
 * face is enclosed by lines on opposite sides close to it, which a live head rarely is.
 */
export function framingCue(luma: Plane, face: Box): FramingCue {
  const factor = Math.max(1, Math.ceil(Math.max(luma.width, luma.height) / 320));
  const small = shrink(luma, factor);
  const e = edgesOf(small);
  const fx = face.x / factor;
  const fy = face.y / factor;
  const fw = face.width / factor;
  const fh = face.height / factor;
  const rowsFrom = fy - 0.3 * fh;
  const rowsTo = fy + 1.6 * fh;
  // Human's box is generous (forehead and hair): a device's edge can sit just inside it.
  const left = bestVerticalLine(e, fx - 1.3 * fw, fx + 0.12 * fw, rowsFrom, rowsTo);
  const right = bestVerticalLine(e, fx + 0.88 * fw, fx + 2.3 * fw, rowsFrom, rowsTo);
  const top = bestHorizontalLine(e, fy - 1.2 * fh, fy + 0.05 * fh, fx - 0.5 * fw, fx + 1.5 * fw);
  const bottom = bestHorizontalLine(e, fy + 1.1 * fh, fy + 2.4 * fh, fx - 0.5 * fw, fx + 1.5 * fw);
  // Opposite sides both lined: a frame. One strong side alone is common in rooms (doors, windows).
  const pair = Math.max(Math.min(left, right), Math.min(top, bottom));
  const bezel = Math.min(1, Math.max(0, (pair - 0.3) / 0.35));
  const r = (x: number) => Math.round(x * 100) / 100;
  return { bezel, sides: { left: r(left), right: r(right), top: r(top), bottom: r(bottom) } };
}
