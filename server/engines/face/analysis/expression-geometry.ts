import type { Point } from '../types.js';
import { centroid, distance } from './geometry.js';

/** What the 68 points (iBUG places) say of an expression, in the face's own upright frame. */
export interface ExpressionGeometry {
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
  // Height (down positive, as in the image) in the face's frame, in eye-centre distances.
  const down = (p: Point) => ((p[0] - rightEye[0]) * sin + (p[1] - rightEye[1]) * cos) / iod;
  const eyes = (down(rightEye) + down(leftEye)) / 2;
  const brows = points68.slice(17, 27).reduce((s, p) => s + down(p), 0) / 10;
  return { browHeight: eyes - brows };
}
