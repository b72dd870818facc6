import type { Point } from '../types.js';
import { centroid, distance } from './geometry.js';

/** What the 68 points (iBUG places) say of an expression, in the face's own upright frame. */
export interface ExpressionGeometry {
  /** Mouth corners' height above the lips' centre (between the inner lips), over the mouth's width: a smile raises them. */
  cornerLift: number;
  /** Mouth corners' depth below the nose's base, in eye-centre distances: a smile draws them up and out. */
  cornerDepth: number;
  /** Mouth width (outer corners) over the face's width at the mouth (jaw points 3 and 13): a smile widens the mouth. */
  mouthWidth: number;
  /** Nose base to chin over the eye-centre distance: the jaw drops as the mouth opens. */
  jawDrop: number;
  /** Brows above the eye centres over the eye-centre distance: raised in surprise, drawn down in a frown. */
  browHeight: number;
}

/**
 * Measured after levelling the eyes' line and dividing by a length of the face itself, so that the
 * head's roll and the face's size in the frame cancel out.
 */
export function expressionGeometry(points68: readonly Point[]): ExpressionGeometry {
  const rightEye = centroid(points68.slice(36, 42));
  const leftEye = centroid(points68.slice(42, 48));
  const iod = Math.max(1e-6, distance(rightEye, leftEye));
  const roll = Math.atan2(leftEye[1] - rightEye[1], leftEye[0] - rightEye[0]);
  const cos = Math.cos(-roll);
  const sin = Math.sin(-roll);
  // Height (down positive, as in the image) and position across, in the face's frame, in eye-centre distances.
  const down = (p: Point) => ((p[0] - rightEye[0]) * sin + (p[1] - rightEye[1]) * cos) / iod;
  const across = (p: Point) => ((p[0] - rightEye[0]) * cos - (p[1] - rightEye[1]) * sin) / iod;
  const mouthWidth = distance(points68[48]!, points68[54]!) / iod;
  const faceWidth = Math.max(1e-6, Math.abs(across(points68[13]!) - across(points68[3]!)));
  const corners = (down(points68[48]!) + down(points68[54]!)) / 2;
  const lips = (down(points68[62]!) + down(points68[66]!)) / 2;
  const eyes = (down(rightEye) + down(leftEye)) / 2;
  const brows = points68.slice(17, 27).reduce((s, p) => s + down(p), 0) / 10;
  return {
    cornerLift: (lips - corners) / Math.max(1e-6, mouthWidth),
    cornerDepth: corners - down(points68[33]!),
    mouthWidth: mouthWidth / faceWidth,
    jawDrop: down(points68[8]!) - down(points68[33]!),
    browHeight: eyes - brows,
  };
}
