import { describe, expect, it } from 'vitest';
import { bestHorizontalLine, bestVerticalLine, edgeMaps, LINE_SLOPES, type EdgeMaps } from './lines.js';
import type { Plane } from './pixels.js';

/** The search as first written, a closure read three times per step: bestLine must agree with it. */
function reference(
  map: Uint8Array,
  width: number,
  height: number,
  p0: number,
  p1: number,
  t0: number,
  t1: number,
  transposed: boolean,
) {
  const along = transposed ? width : height;
  const across = transposed ? height : width;
  const ts = Math.max(1, Math.floor(t0));
  const te = Math.min(along - 2, Math.ceil(t1));
  const span = te - ts;
  const centre = (ts + te) / 2;
  let best = { coverage: 0, position: (p0 + p1) / 2, slope: 0, centre };
  if (span < 8) return best;
  const at = (a: number, t: number) => (transposed ? map[a * width + t]! : map[t * width + a]!);
  for (let p = Math.max(1, Math.floor(p0)); p <= Math.min(across - 2, Math.ceil(p1)); p++) {
    for (const slope of LINE_SLOPES) {
      let hits = 0;
      for (let t = ts; t < te; t++) {
        const a = Math.round(p + slope * (t - centre));
        if (a < 1 || a >= across - 1) continue;
        if (at(a, t) || at(a - 1, t) || at(a + 1, t)) hits++;
      }
      if (hits / span > best.coverage) best = { coverage: hits / span, position: p, slope, centre };
    }
  }
  return best;
}

/** A grey frame with a dark rectangle's edges drawn (a tilted device border) and speckle. */
function frame(width: number, height: number, seed: number, speckle = 0.03): Plane {
  const data = new Uint8Array(width * height).fill(150);
  let s = seed;
  const rand = () => (s = (s * 1103515245 + 12345) >>> 0) / 2 ** 32;
  for (let y = 0; y < height; y++)
    for (let x = 0; x < width; x++) {
      const u = x - 0.08 * (y - height / 2);
      if (u > width * 0.2 && u < width * 0.75 && y > height * 0.15 && y < height * 0.9) data[y * width + x] = 40;
      if (rand() < speckle) data[y * width + x] = 255;
    }
  return { width, height, data };
}

describe('best line searches', () => {
  it('agree with the first implementation on every band, both orientations', () => {
    for (const [width, height, seed, speckle] of [
      [120, 90, 1, 0.03],
      [97, 133, 2, 0.03],
      [160, 60, 4, 0.3],
    ] as const) {
      const e: EdgeMaps = edgeMaps(frame(width, height, seed, speckle));
      for (const [p0, p1, t0, t1] of [
        [0, width / 3, 0, height],
        [width / 2, width, height / 4, (3 * height) / 4],
        [10, 14, 5, 12],
      ]) {
        expect(bestVerticalLine(e, p0!, p1!, t0!, t1!)).toEqual(reference(e.vertical, width, height, p0!, p1!, t0!, t1!, false));
      }
      for (const [p0, p1, t0, t1] of [
        [0, height / 3, 0, width],
        [height / 2, height, width / 4, width],
      ]) {
        expect(bestHorizontalLine(e, p0!, p1!, t0!, t1!)).toEqual(
          reference(e.horizontal, width, height, p0!, p1!, t0!, t1!, true),
        );
      }
    }
  });

  it('finds the tilted left edge of the rectangle', () => {
    const e = edgeMaps(frame(120, 90, 3));
    const line = bestVerticalLine(e, 10, 40, 20, 75);
    expect(line.coverage).toBeGreaterThan(0.9);
    expect(line.slope).toBeCloseTo(0.09, 1);
    expect(Math.abs(line.position - (24 + 0.08 * (line.centre - 45)))).toBeLessThan(3);
  });
});
