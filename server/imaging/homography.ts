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
 * (bilinear); outside the source is `fill` (white by default).
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
  for (let v = 0; v < outH; v++) {
    for (let u = 0; u < outW; u++) {
      const [x, y] = applyHomography(dstToSrc, [u + 0.5, v + 0.5]);
      const sx = x - 0.5;
      const sy = y - 0.5;
      const o = (v * outW + u) * 3;
      if (sx < 0 || sy < 0 || sx > width - 1 || sy > height - 1) {
        out[o] = out[o + 1] = out[o + 2] = fill;
        continue;
      }
      const x0 = Math.floor(sx);
      const y0 = Math.floor(sy);
      const x1 = Math.min(width - 1, x0 + 1);
      const y1 = Math.min(height - 1, y0 + 1);
      const fx = sx - x0;
      const fy = sy - y0;
      for (let c = 0; c < 3; c++) {
        const p00 = rgb[(y0 * width + x0) * 3 + c]!;
        const p10 = rgb[(y0 * width + x1) * 3 + c]!;
        const p01 = rgb[(y1 * width + x0) * 3 + c]!;
        const p11 = rgb[(y1 * width + x1) * 3 + c]!;
        out[o + c] = Math.round((p00 * (1 - fx) + p10 * fx) * (1 - fy) + (p01 * (1 - fx) + p11 * fx) * fy);
      }
    }
  }
  return out;
}
