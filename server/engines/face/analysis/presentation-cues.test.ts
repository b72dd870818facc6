import { describe, expect, it } from 'vitest';
import type { Plane } from '../../../imaging/pixels.js';
import type { Box } from '../types.js';
import { framingCue, INNER_LINE_MIN } from './presentation-cues.js';

const W = 320;
const H = 240;
// A face box as Human gives it for a face 60 px wide, well inside the frame.
const FACE: Box = { x: 130, y: 60, width: 60, height: 70 };

/** A dark room (luma 40) with the given pixels painted bright (a lit screen, a face). */
function scene(bright: (x: number, y: number) => boolean): Plane {
  const data = new Uint8Array(W * H).fill(40);
  for (let y = 0; y < H; y++) for (let x = 0; x < W; x++) if (bright(x, y)) data[y * W + x] = 200;
  return { width: W, height: H, data };
}

/** A lit head and neck: the long curved outline a live person shows inside the face box's sides. */
const head = (x: number, y: number) => ((x - 158) / 22) ** 2 + ((y - 100) / 60) ** 2 <= 1;

describe('framingCue', () => {
  it('finds a phone whose right edge crosses the face box beside the face', () => {
    // The screen spans x 80..178: its left edge lies outside the box, its right edge at 0.8 of the box.
    const right = 130 + 0.8 * 60;
    const cue = framingCue(
      scene((x, y) => x >= 80 && x <= right && y >= 20),
      FACE,
    );
    expect(cue.sides.left).toBeGreaterThan(0.8);
    expect(cue.sides.right).toBeGreaterThanOrEqual(INNER_LINE_MIN);
    expect(cue.bezel).toBe(1);
  });

  it('does the same on the left side', () => {
    const left = 130 + 0.2 * 60;
    const cue = framingCue(
      scene((x, y) => x >= left && x <= 250 && y >= 20),
      FACE,
    );
    expect(cue.sides.left).toBeGreaterThanOrEqual(INNER_LINE_MIN);
    expect(cue.bezel).toBe(1);
  });

  it('does not take a head contour inside the box for a device edge', () => {
    // A real edge on the left (a door frame) and the head's own curved outline: one side only.
    const cue = framingCue(
      scene((x, y) => x < 60 || head(x, y)),
      FACE,
    );
    expect(cue.sides.left).toBeGreaterThan(0.8);
    expect(cue.sides.right).toBeLessThan(0.5);
    expect(cue.bezel).toBeLessThan(0.5);
  });

  it('counts a straight line inside the box only where it runs most of the band', () => {
    // The same screen edge as above, but only 1.1 face heights long (a collar, a hand, a chair back).
    const right = 130 + 0.8 * 60;
    const cue = framingCue(
      scene((x, y) => x >= 80 && x <= right && y >= 75 && y <= 152),
      FACE,
    );
    expect(cue.inner.right).toBeGreaterThan(0.5); // seen, but under the bar
    expect(cue.sides.right).toBeLessThan(INNER_LINE_MIN);
    expect(cue.bezel).toBeLessThan(0.5);
  });
});
