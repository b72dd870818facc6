import type { Homography } from '../../../imaging/index.js';
import type { Box } from '../types.js';

/**
 * The (affine) map from an upright outW x outH image to the source rectangle `box` rotated by
 * `angle` (radians) about its centre, for `warpPerspective`: a tilted head comes out with level eyes.
 */
export function rotatedBoxToSource(box: Box, angle: number, outW: number, outH: number): Homography {
  const cos = Math.cos(angle);
  const sin = Math.sin(angle);
  const sx = box.width / outW;
  const sy = box.height / outH;
  const cx = box.x + box.width / 2;
  const cy = box.y + box.height / 2;
  return [
    sx * cos,
    -sy * sin,
    cx - (box.width / 2) * cos + (box.height / 2) * sin,
    sx * sin,
    sy * cos,
    cy - (box.width / 2) * sin - (box.height / 2) * cos,
    0,
    0,
    1,
  ];
}
