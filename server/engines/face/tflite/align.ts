import type { Homography, Point } from '../../../imaging/index.js';
import { centroid } from '../analysis/geometry.js';

/**
 * InsightFace's 112x112 template (eyes, nose tip, mouth corners, image left first): the crop
 * MobileFaceNet-style models are trained on (MS1M/ArcFace alignment).
 */
export const ARCFACE_TEMPLATE_112: readonly Point[] = [
  [38.2946, 51.6963],
  [73.5318, 51.5014],
  [56.0252, 71.7366],
  [41.5493, 92.3655],
  [70.7299, 92.2041],
];

/** The five template points from face-api's 68 landmarks (dlib layout), image left first. */
export function fivePoints(landmarks68: readonly Point[]): Point[] {
  return [
    centroid(landmarks68.slice(36, 42)),
    centroid(landmarks68.slice(42, 48)),
    landmarks68[30]!,
    landmarks68[48]!,
    landmarks68[54]!,
  ];
}

/**
 * Least-squares similarity (rotation, uniform scale, shift) taking `from` onto `to`, as a
 * homography for warpPerspective: here from the output crop's template to the frame's points.
 */
export function similarity(from: readonly Point[], to: readonly Point[]): Homography {
  const cf = centroid(from);
  const ct = centroid(to);
  let norm = 0;
  let dot = 0;
  let cross = 0;
  from.forEach((p, i) => {
    const q = to[i]!;
    const px = p[0] - cf[0];
    const py = p[1] - cf[1];
    const qx = q[0] - ct[0];
    const qy = q[1] - ct[1];
    norm += px * px + py * py;
    dot += px * qx + py * qy;
    cross += px * qy - py * qx;
  });
  const a = dot / norm;
  const b = cross / norm;
  return [a, -b, ct[0] - a * cf[0] + b * cf[1], b, a, ct[1] - b * cf[0] - a * cf[1], 0, 0, 1];
}

/**
 * The five template points from Human's face mesh (MediaPipe's 468-point topology): iris centres
 * when the iris model ran, else the middle of each eye's corners; nose tip (1); mouth corners (61,
 * 291). Image left first. Null without a full mesh.
 */
export function meshFivePoints(mesh: readonly Point[], irises: readonly [Point, Point] | null): Point[] | null {
  if (mesh.length < 468) return null;
  const eyes = irises ? [irises[0], irises[1]] : [centroid([mesh[33]!, mesh[133]!]), centroid([mesh[362]!, mesh[263]!])];
  const byX = (a: Point, b: Point) => a[0] - b[0];
  eyes.sort(byX);
  const mouth = [mesh[61]!, mesh[291]!].sort(byX);
  return [eyes[0]!, eyes[1]!, mesh[1]!, mouth[0]!, mouth[1]!];
}
