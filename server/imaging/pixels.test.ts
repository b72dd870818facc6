import { describe, expect, it } from 'vitest';
import { chromaMean, darkLineDepth, hairShare, regionStats, lumaOf, type Plane } from './pixels.js';

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
