import type { Point } from '../types.js';

/**
 * Human's face mesh (MediaPipe's 468 points) at the 68 points of the iBUG/dlib scheme that
 * face-api's landmarks follow: jaw 0-16, brows 17-26, nose 27-35, eyes 36-47, lips 48-67, each
 * the mesh vertex at the same place on the face.
 */
const MESH_INDEX_OF_68: readonly number[] = [
  // jaw, from the subject's right ear to the left
  162, 234, 93, 58, 172, 136, 149, 148, 152, 377, 378, 365, 397, 288, 323, 454, 389,
  // brows, right then left, outer to inner and inner to outer
  71, 63, 105, 66, 107, 336, 296, 334, 293, 301,
  // nose: bridge to tip, then the base from right to left
  168, 197, 5, 4, 75, 97, 2, 326, 305,
  // right eye, left eye: outer corner, upper lid, inner corner, lower lid
  33, 160, 158, 133, 153, 144, 362, 385, 387, 263, 373, 380,
  // outer lip contour from the right corner, then the inner
  61, 39, 37, 0, 267, 269, 291, 405, 314, 17, 84, 181, 78, 82, 13, 312, 308, 317, 14, 87,
];

/** The mesh's 68 iBUG points, or null when there is no full mesh (the mesh model did not run). */
export function meshAs68(mesh: readonly Point[]): Point[] | null {
  if (mesh.length < 468) return null;
  return MESH_INDEX_OF_68.map((i) => mesh[i]!);
}
