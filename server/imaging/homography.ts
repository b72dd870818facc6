import type { Point } from './shapes.js';

/** 3x3 projective transform, row-major, h[8] = 1. */
export type Homography = [number, number, number, number, number, number, number, number, number];

/** The homography mapping four source points onto four destination points (direct linear solve). */
export function homographyFrom(src: readonly Point[], dst: readonly Point[]): Homography | null {
  const a: number[][] = [];
  const b: number[] = [];
  for (let i = 0; i < 4; i++) {
    const [x, y] = src[i]!;
    const [u, v] = dst[i]!;
    a.push([x, y, 1, 0, 0, 0, -u * x, -u * y]);
    b.push(u);
    a.push([0, 0, 0, x, y, 1, -v * x, -v * y]);
    b.push(v);
  }
  const h = solve(a, b);
  return h ? ([...h, 1] as Homography) : null;
}

export function applyHomography(h: Homography, p: Point): Point {
  const w = h[6] * p[0] + h[7] * p[1] + h[8];
  return [(h[0] * p[0] + h[1] * p[1] + h[2]) / w, (h[3] * p[0] + h[4] * p[1] + h[5]) / w];
}

/** Gaussian elimination with partial pivoting. */
function solve(a: number[][], b: number[]): number[] | null {
  const n = b.length;
  const m = a.map((row, i) => [...row, b[i]!]);
  for (let col = 0; col < n; col++) {
    let pivot = col;
    for (let r = col + 1; r < n; r++) if (Math.abs(m[r]![col]!) > Math.abs(m[pivot]![col]!)) pivot = r;
    if (Math.abs(m[pivot]![col]!) < 1e-12) return null;
    [m[col], m[pivot]] = [m[pivot]!, m[col]!];
    for (let r = 0; r < n; r++) {
      if (r === col) continue;
      const f = m[r]![col]! / m[col]![col]!;
      for (let c = col; c <= n; c++) m[r]![c]! -= f * m[col]![c]!;
    }
  }
  return m.map((row, i) => row[n]! / row[i]!);
}

/**
 * Warps packed RGB through a destination-to-source homography into an outW x outH image
 * (bilinear); outside the source is `fill` (white by default). The map is applied inline, as
 * applyHomography computes it, with no array per pixel (a 360x480 portrait is 170,000 of them);
 * inside the source every value is non-negative, so `| 0` floors and `(x + 0.5) | 0` rounds.
 */
export function warpPerspective(
  rgb: Uint8Array,
  width: number,
  height: number,
  dstToSrc: Homography,
  outW: number,
  outH: number,
  fill = 255,
): Uint8Array {
  const out = new Uint8Array(outW * outH * 3);
  const [h0, h1, h2, h3, h4, h5, h6, h7, h8] = dstToSrc;
  // The portrait's and the face crops' maps are affine: the same arithmetic without the division
  // by w = 1 gives the same pixels; with the row's terms hoisted and the channels written out,
  // about a third faster on a 360x480 portrait (by hand).
  const affine = h6 === 0 && h7 === 0 && h8 === 1;
  const xMax = width - 1;
  const yMax = height - 1;
  const stride = width * 3;
  for (let v = 0, o = 0; v < outH; v++) {
    const py = v + 0.5;
    const rowX = h1 * py;
    const rowY = h4 * py;
    const rowW = h7 * py;
    for (let u = 0; u < outW; u++, o += 3) {
      const px = u + 0.5;
      let sx: number;
      let sy: number;
      if (affine) {
        sx = h0 * px + rowX + h2 - 0.5;
        sy = h3 * px + rowY + h5 - 0.5;
      } else {
        const w = h6 * px + rowW + h8;
        sx = (h0 * px + rowX + h2) / w - 0.5;
        sy = (h3 * px + rowY + h5) / w - 0.5;
      }
      if (!(sx >= 0 && sy >= 0 && sx <= xMax && sy <= yMax)) {
        out[o] = out[o + 1] = out[o + 2] = fill;
        continue;
      }
      const x0 = sx | 0;
      const y0 = sy | 0;
      const fx = sx - x0;
      const fy = sy - y0;
      const gx = 1 - fx;
      const gy = 1 - fy;
      // The next column and row, or the same at the last one.
      const i00 = y0 * stride + x0 * 3;
      const i10 = x0 < xMax ? i00 + 3 : i00;
      const i01 = y0 < yMax ? i00 + stride : i00;
      const i11 = i10 + (i01 - i00);
      out[o] = ((rgb[i00]! * gx + rgb[i10]! * fx) * gy + (rgb[i01]! * gx + rgb[i11]! * fx) * fy + 0.5) | 0;
      out[o + 1] = ((rgb[i00 + 1]! * gx + rgb[i10 + 1]! * fx) * gy + (rgb[i01 + 1]! * gx + rgb[i11 + 1]! * fx) * fy + 0.5) | 0;
      out[o + 2] = ((rgb[i00 + 2]! * gx + rgb[i10 + 2]! * fx) * gy + (rgb[i01 + 2]! * gx + rgb[i11 + 2]! * fx) * fy + 0.5) | 0;
    }
  }
  return out;
}
