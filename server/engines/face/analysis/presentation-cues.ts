import { bestHorizontalLine, bestVerticalLine, edgeMaps, shrink, type Plane } from '../../../imaging/index.js';
import type { Box } from '../types.js';

export interface FramingCue {
  /** 0..1: the face sits inside a frame-like rectangle (a phone or tablet bezel, a print's edge). */
  bezel: number;
  /** Line coverage found on each side of the face. */
  sides: { left: number; right: number; top: number; bottom: number };
  /** The best line's coverage inside the box's outer part on each side, before INNER_LINE_MIN. */
  inner: { left: number; right: number };
}

/**
 * The coverage a vertical line inside the face box's outer fifth needs to count as a device's
 * edge: straight over most of the band, which a head's curved outline is not (`npm run eval:pad`
 * prints the highest inner coverage of the live and the replay sequences; docs/face-engine.md).
 */
export const INNER_LINE_MIN = 0.8;

/**
 * Looks for the straight edges of a device or a print around the face: a replayed or printed
 * face is enclosed by lines on opposite sides close to it, which a live head rarely is.
 */
export function framingCue(luma: Plane, face: Box): FramingCue {
  const factor = Math.max(1, Math.ceil(Math.max(luma.width, luma.height) / 320));
  const small = shrink(luma, factor);
  const e = edgeMaps(small);
  const fx = face.x / factor;
  const fy = face.y / factor;
  const fw = face.width / factor;
  const fh = face.height / factor;
  const rowsFrom = fy - 0.3 * fh;
  const rowsTo = fy + 1.6 * fh;
  const vertical = (from: number, to: number) => bestVerticalLine(e, fx + from * fw, fx + to * fw, rowsFrom, rowsTo).coverage;
  // Human's box is generous (forehead and hair): a device's edge can sit just inside it, and
  // deeper where the screen's face reaches its bezel. There only a line straight over most of
  // the band's 1.9 face heights counts: a head's own contours are curved and shorter.
  const inner = (coverage: number) => (coverage >= INNER_LINE_MIN ? coverage : 0);
  const innerLeft = vertical(0.12, 0.3);
  const innerRight = vertical(0.7, 0.88);
  const left = Math.max(vertical(-1.3, 0.12), inner(innerLeft));
  const right = Math.max(vertical(0.88, 2.3), inner(innerRight));
  const top = bestHorizontalLine(e, fy - 1.2 * fh, fy + 0.05 * fh, fx - 0.5 * fw, fx + 1.5 * fw).coverage;
  const bottom = bestHorizontalLine(e, fy + 1.1 * fh, fy + 2.4 * fh, fx - 0.5 * fw, fx + 1.5 * fw).coverage;
  // Opposite sides both lined: a frame. One strong side alone is common in rooms (doors, windows).
  const pair = Math.max(Math.min(left, right), Math.min(top, bottom));
  const bezel = Math.min(1, Math.max(0, (pair - 0.3) / 0.35));
  const r = (x: number) => Math.round(x * 100) / 100;
  return {
    bezel,
    sides: { left: r(left), right: r(right), top: r(top), bottom: r(bottom) },
    inner: { left: r(innerLeft), right: r(innerRight) },
  };
}
