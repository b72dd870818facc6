import { describe, expect, it } from 'vitest';
import { cardOutline, documentGuidance, type DocumentFrameMetrics } from './document-guidance.js';
import { greyFromRgba, motion, regionStats, sharpness, type GreyPlane } from './frame-stats.js';

const good: DocumentFrameMetrics = { brightness: 0.55, contrast: 0.25, clipped: 0.01, sharpness: 400, motion: 1 };

describe('documentGuidance', () => {
  it('is ok for a steady, sharp, well-lit card', () => {
    expect(documentGuidance(good)).toBe('ok');
  });
  it('names each fault', () => {
    expect(documentGuidance({ ...good, brightness: 0.05 })).toBe('too-dark');
    expect(documentGuidance({ ...good, clipped: 0.7 })).toBe('too-bright');
    expect(documentGuidance({ ...good, contrast: 0.01 })).toBe('no-card');
    expect(documentGuidance({ ...good, motion: 20 })).toBe('moving');
    expect(documentGuidance({ ...good, sharpness: 5 })).toBe('blurry');
  });
  it('draws an ID-1 outline centred within 80 % of the frame', () => {
    const box = cardOutline(640, 480);
    expect(box.width / box.height).toBeCloseTo(85.6 / 54, 5);
    expect(box.width).toBeCloseTo(512);
    expect(box.x + box.width / 2).toBeCloseTo(320);
    const tall = cardOutline(400, 200);
    expect(tall.height).toBeCloseTo(160);
  });
});

function plane(width: number, height: number, f: (x: number, y: number) => number): GreyPlane {
  const data = new Uint8Array(width * height);
  for (let y = 0; y < height; y++) for (let x = 0; x < width; x++) data[y * width + x] = f(x, y);
  return { width, height, data };
}

describe('frame measures', () => {
  it('reads luma from RGBA with BT.601 weights', () => {
    const rgba = new Uint8ClampedArray([255, 255, 255, 255, 255, 0, 0, 255, 0, 255, 0, 255, 0, 0, 0, 255]);
    expect([...greyFromRgba(rgba, 4, 1).data]).toEqual([255, 76, 149, 0]);
  });
  it('measures brightness, contrast and saturated share in a region', () => {
    const half = plane(10, 10, (x) => (x < 5 ? 0 : 255));
    expect(regionStats(half)).toEqual({ brightness: 0.5, contrast: 0.5, clipped: 0.5 });
    expect(regionStats(half, { x: 0, y: 0, width: 5, height: 10 }).brightness).toBe(0);
  });
  it('finds a checkerboard sharp, a flat field not sharp', () => {
    const checker = plane(20, 20, (x, y) => ((x + y) % 2 ? 200 : 50));
    const flat = plane(20, 20, () => 128);
    expect(sharpness(checker)).toBeGreaterThan(1000);
    expect(sharpness(flat)).toBe(0);
  });
  it('measures motion as the mean absolute change', () => {
    const a = plane(4, 4, () => 100);
    const b = plane(4, 4, () => 110);
    expect(motion(a, b)).toBe(10);
    expect(
      motion(
        a,
        plane(2, 2, () => 100),
      ),
    ).toBe(255);
  });
});
