import { describe, expect, it } from 'vitest';
import { chromaMean, darkLineDepth, hairShare, squareRegionInt32, regionStats, lumaOf, type Plane } from './pixels.js';

/** A 100x100 plane of skin-like grey with a smooth vertical shading, optionally a dark bar. */
function plane(bar?: { y: number; angle: number; darkness: number }): Plane {
  const data = new Uint8Array(100 * 100);
  for (let y = 0; y < 100; y++) {
    for (let x = 0; x < 100; x++) {
      let v = 150 + 0.6 * (y - 50); // shading: no thin line anywhere
      if (bar) {
        // distance from the line through (50, bar.y) at bar.angle
        const d = -(x - 50) * Math.sin(bar.angle) + (y - bar.y) * Math.cos(bar.angle);
        if (Math.abs(d) < 1.5) v -= bar.darkness;
      }
      data[y * 100 + x] = Math.max(0, Math.min(255, Math.round(v)));
    }
  }
  return { width: 100, height: 100, data };
}

describe('darkLineDepth', () => {
  const band = { a0: -25, a1: 25, b0: -20, b1: 20 };

  it('finds a thin dark line and its depth, and none in smooth shading', () => {
    expect(darkLineDepth(plane(), [50, 50], 0, band, 3)).toBeLessThan(0.01);
    expect(darkLineDepth(plane({ y: 58, angle: 0, darkness: 40 }), [50, 50], 0, band, 3)).toBeGreaterThan(0.12);
  });

  it('follows a rolled head: a tilted line is found in the tilted frame, smeared in the upright one', () => {
    const tilted = plane({ y: 50, angle: 0.3, darkness: 40 });
    const along = darkLineDepth(tilted, [50, 50], 0.3, band, 3);
    const upright = darkLineDepth(tilted, [50, 50], 0, band, 3);
    expect(along).toBeGreaterThan(0.12);
    expect(upright).toBeLessThan(along / 2);
  });
});

describe('hairShare', () => {
  /** A 30x10 RGB strip of three 10x10 swatches: skin, dark brown hair, lips. */
  const swatches: [number, number, number][] = [
    [205, 160, 135],
    [70, 50, 40],
    [170, 70, 80],
  ];
  const rgb = new Uint8Array(30 * 10 * 3);
  for (let y = 0; y < 10; y++) for (let x = 0; x < 30; x++) rgb.set(swatches[Math.floor(x / 10)]!, (y * 30 + x) * 3);
  const box = (i: number) => ({ x: 10 * i, y: 0, width: 10, height: 10 });
  const luma = lumaOf(rgb, 30, 10);
  const skin = { luma: regionStats(luma, box(0)).mean, cr: chromaMean(rgb, 30, 10, box(0)).cr };

  it('counts hair as hair, and neither skin nor red lips', () => {
    expect(hairShare(luma, rgb, box(0), skin)).toBe(0);
    expect(hairShare(luma, rgb, box(1), skin)).toBe(1);
    expect(hairShare(luma, rgb, box(2), skin)).toBe(0);
  });
});

describe('squareRegionInt32', () => {
  const width = 9;
  const rgb = Uint8Array.from({ length: width * 7 * 3 }, (_, i) => 1 + ((i * 37) % 255)); // no zero pixel

  /** The pixel at (x, y) of the square, or null where it is padding. */
  const at = (r: ReturnType<typeof squareRegionInt32>, x: number, y: number) => {
    const o = (y * r.side + x) * 3;
    return r.data[o] === 0 ? null : [r.data[o], r.data[o + 1], r.data[o + 2]];
  };

  it('copies a square box pixel for pixel, at the image edge too', () => {
    const box = { x: 5, y: 3, width: 4, height: 4 };
    const r = squareRegionInt32(rgb, width, box);
    expect(r).toMatchObject({ side: 4, left: 0, top: 0 });
    for (let y = 0; y < 4; y++)
      for (let x = 0; x < 4; x++) {
        const s = ((box.y + y) * width + box.x + x) * 3;
        expect(at(r, x, y)).toEqual([rgb[s], rgb[s + 1], rgb[s + 2]]);
      }
  });

  it('pads the short side as face-api does: round(d / 2) zeros after, the rest before', () => {
    // Tall box, d = 3: 1 column before, 2 after.
    const tall = squareRegionInt32(rgb, width, { x: 2, y: 1, width: 3, height: 6 });
    expect(tall).toMatchObject({ side: 6, left: 1, top: 0 });
    for (let y = 0; y < 6; y++) {
      expect(at(tall, 0, y)).toBeNull();
      const s = ((1 + y) * width + 2) * 3;
      expect(at(tall, 1, y)).toEqual([rgb[s], rgb[s + 1], rgb[s + 2]]);
      expect(at(tall, 3, y)).not.toBeNull();
      expect([at(tall, 4, y), at(tall, 5, y)]).toEqual([null, null]);
    }
    // Wide box, d = 4: 2 rows before, 2 after.
    const wide = squareRegionInt32(rgb, width, { x: 0, y: 2, width: 6, height: 2 });
    expect(wide).toMatchObject({ side: 6, left: 0, top: 2 });
    expect([0, 1, 4, 5].map((y) => at(wide, 3, y))).toEqual([null, null, null, null]);
    expect(at(wide, 0, 2)).toEqual([rgb[2 * width * 3], rgb[2 * width * 3 + 1], rgb[2 * width * 3 + 2]]);
  });
});
