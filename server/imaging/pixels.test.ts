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
  /** A strip of 10x10 swatches, left to right, as packed RGB with its luma. */
  function strip(swatches: readonly (readonly [number, number, number])[]) {
    const width = 10 * swatches.length;
    const rgb = new Uint8Array(width * 10 * 3);
    for (let y = 0; y < 10; y++) for (let x = 0; x < width; x++) rgb.set(swatches[Math.floor(x / 10)]!, (y * width + x) * 3);
    const luma = lumaOf(rgb, width, 10);
    const box = (i: number) => ({ x: 10 * i, y: 0, width: 10, height: 10 });
    const { cr, red } = chromaMean(rgb, width, 10, box(0));
    const skin = { luma: regionStats(luma, box(0)).mean, cr, red };
    return (i: number) => hairShare(luma, rgb, box(i), skin);
  }

  it('counts dark hair whole, a shadow and brown hair half, and neither skin nor red lips', () => {
    const share = strip([
      [205, 160, 135], // skin
      [40, 34, 33], // black hair
      [103, 80, 68], // the skin in shadow: half its light, the same red share
      [70, 50, 40], // dark brown hair, as red as the skin
      [170, 70, 80], // lips
    ]);
    expect(share(0)).toBe(0);
    expect(share(1)).toBe(1);
    expect(share(2)).toBe(0.5);
    expect(share(3)).toBe(0.5);
    expect(share(4)).toBe(0);
  });

  it('counts darkness whole where the skin has no colour (a grey frame)', () => {
    const share = strip([
      [170, 170, 170],
      [60, 60, 60],
    ]);
    expect(share(0)).toBe(0);
    expect(share(1)).toBe(1);
  });
});
