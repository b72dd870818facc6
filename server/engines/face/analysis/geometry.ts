import type { Box, Point } from '../types.js';

export const distance = (p: Point, q: Point): number => Math.hypot(p[0] - q[0], p[1] - q[1]);

export function centroid(points: readonly Point[]): Point {
  let x = 0;
  let y = 0;
  for (const p of points) {
    x += p[0];
    y += p[1];
  }
  return [x / points.length, y / points.length];
}

export function boundingBox(points: readonly Point[]): Box {
  const xs = points.map((p) => p[0]);
  const ys = points.map((p) => p[1]);
  const x = Math.min(...xs);
  const y = Math.min(...ys);
  return { x, y, width: Math.max(...xs) - x, height: Math.max(...ys) - y };
}

/**
 * The square crop face-api's recognition network was trained on (dlib's alignment): side from
 * the mean eye-mouth distance, centred at (0.5, 0.43) of the eyes-and-mouth centroid. The
 * 128-d descriptor is only as good as this crop.
 */
export function dlibAlignmentBox(landmarks68: readonly Point[]): Box {
  const rightEye = centroid(landmarks68.slice(36, 42));
  const leftEye = centroid(landmarks68.slice(42, 48));
  const mouth = centroid(landmarks68.slice(48, 68));
  const size = Math.floor((distance(mouth, rightEye) + distance(mouth, leftEye)) / 2 / 0.45);
  const c = centroid([rightEye, leftEye, mouth]);
  return { x: Math.floor(c[0] - 0.5 * size), y: Math.floor(c[1] - 0.43 * size), width: size, height: size };
}

/**
 * dlib's crop turned with the eyes' line, as dlib cuts its face chips: the same square as
 * dlibAlignmentBox in the face's own frame (its centre 0.07 of the side below the eyes-and-mouth
 * centroid, along the face), and the roll that levels the eyes. eval:face measures the ResNet on it.
 */
export function dlibChipPlacement(landmarks68: readonly Point[]): { box: Box; roll: number } {
  const rightEye = centroid(landmarks68.slice(36, 42));
  const leftEye = centroid(landmarks68.slice(42, 48));
  const mouth = centroid(landmarks68.slice(48, 68));
  const size = (distance(mouth, rightEye) + distance(mouth, leftEye)) / 2 / 0.45;
  const c = centroid([rightEye, leftEye, mouth]);
  const roll = Math.atan2(leftEye[1] - rightEye[1], leftEye[0] - rightEye[0]);
  const cx = c[0] - 0.07 * size * Math.sin(roll);
  const cy = c[1] + 0.07 * size * Math.cos(roll);
  return { box: { x: cx - size / 2, y: cy - size / 2, width: size, height: size }, roll };
}

/** Lid gap over eye width, from four mesh points: upper and lower lid, two corners. */
export function openness(upper: Point, lower: Point, cornerA: Point, cornerB: Point): number {
  const width = distance(cornerA, cornerB);
  return width > 0 ? distance(upper, lower) / width : 0;
}

export const toDegrees = (radians: number): number => (radians * 180) / Math.PI;

/** Expands a box about its centre. */
export function grow(box: Box, factor: number): Box {
  const dw = (box.width * (factor - 1)) / 2;
  const dh = (box.height * (factor - 1)) / 2;
  return { x: box.x - dw, y: box.y - dh, width: box.width + 2 * dw, height: box.height + 2 * dh };
}

export function area(box: Box): number {
  return box.width * box.height;
}

/**
 * The ICAO / ISO 19794-5 token portrait geometry: width 4 IOD, height 4/3 of the width, eyes
 * level, centred horizontally, eye line at 45 % of the height from the top. `scaleH` widens
 * the crop (more headroom and shoulders: the vendor's parameter). `box` is before rotation by
 * `angle` about its centre.
 */
export function tokenPortraitBox(rightEye: Point, leftEye: Point, scaleH: number): { box: Box; angle: number } {
  const iod = distance(rightEye, leftEye);
  const mid: Point = [(rightEye[0] + leftEye[0]) / 2, (rightEye[1] + leftEye[1]) / 2];
  const width = 4 * iod * (1 + scaleH / 2);
  const height = (width * 4) / 3;
  const angle = Math.atan2(leftEye[1] - rightEye[1], leftEye[0] - rightEye[0]);
  // The centre sits 5 % of the height below the eye line, along the face's own vertical axis.
  const cx = mid[0] - Math.sin(angle) * 0.05 * height;
  const cy = mid[1] + Math.cos(angle) * 0.05 * height;
  return { box: { x: cx - width / 2, y: cy - height / 2, width, height }, angle };
}
