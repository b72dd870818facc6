import { describe, expect, it } from 'vitest';
import { homographyFrom, warpPerspective } from '../../../imaging/homography.js';
import type { Point } from '../../../imaging/shapes.js';
import { CANONICAL_HEIGHT, CANONICAL_WIDTH, captureQuality, locateCard } from './locate-card.js';

/** A light card with dark stripes, photographed in perspective on a dark table. */
function photographCard(corners: Point[], width = 800, height = 600) {
  const cw = 856;
  const ch = 540;
  const card = new Uint8Array(cw * ch * 3).fill(235);
  for (let y = 60; y < ch - 60; y += 40)
    for (let x = 300; x < 800; x++) for (let c = 0; c < 3; c++) card[(y * cw + x) * 3 + c] = 40;
  const photoToCard = homographyFrom(corners, [
    [0, 0],
    [cw, 0],
    [cw, ch],
    [0, ch],
  ])!;
  return warpPerspective(card, cw, ch, photoToCard, width, height, 30);
}

describe('card localisation', () => {
  it('finds a tilted card in perspective and rectifies it', () => {
    const corners: Point[] = [
      [110, 95],
      [690, 120],
      [670, 505],
      [95, 470],
    ];
    const found = locateCard(photographCard(corners), 800, 600);
    expect(found.method).toBe('edges');
    found.corners.forEach((p, i) => {
      expect(Math.hypot(p[0] - corners[i]![0], p[1] - corners[i]![1])).toBeLessThan(8);
    });
    expect([found.width, found.height]).toEqual([CANONICAL_WIDTH, CANONICAL_HEIGHT]);
    // The rectified card is the card: its corners are light, not the dark table.
    const at = (x: number, y: number) => found.rgb[(y * found.width + x) * 3]!;
    expect(at(20, 20)).toBeGreaterThan(180);
    expect(at(CANONICAL_WIDTH - 20, CANONICAL_HEIGHT - 20)).toBeGreaterThan(180);
  });

  it('takes a frame without card edges as already cropped', () => {
    const flat = new Uint8Array(640 * 400 * 3).fill(200);
    expect(locateCard(flat, 640, 400).method).toBe('frame');
  });

  it('measures blur and glare', () => {
    const glare = new Uint8Array(640 * 400 * 3).fill(255);
    const q = captureQuality(locateCard(glare, 640, 400));
    expect(q.glare).toBeGreaterThan(0.9);
    expect(q.sharpness).toBeLessThan(1e-4);
  });
});
