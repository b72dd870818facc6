import type { Box } from '../types.js';

/**
 * Samples a rotated rectangle of packed RGB into an upright outW x outH image (bilinear), so a
 * tilted head comes out with level eyes. `box` is the rectangle before rotation by `angle`
 * (radians) about its centre; outside the frame is filled with a neutral grey.
 */
export function warpRotated(
  rgb: Uint8Array,
  width: number,
  height: number,
  box: Box,
  angle: number,
  outW: number,
  outH: number,
): Uint8Array {
  const out = new Uint8Array(outW * outH * 3);
  const cx = box.x + box.width / 2;
  const cy = box.y + box.height / 2;
  const cos = Math.cos(angle);
  const sin = Math.sin(angle);
  const sx = box.width / outW;
  const sy = box.height / outH;
  for (let v = 0; v < outH; v++) {
    for (let u = 0; u < outW; u++) {
      const dx = (u + 0.5) * sx - box.width / 2;
      const dy = (v + 0.5) * sy - box.height / 2;
      const x = cx + dx * cos - dy * sin - 0.5;
      const y = cy + dx * sin + dy * cos - 0.5;
      const o = (v * outW + u) * 3;
      if (x < 0 || y < 0 || x > width - 1 || y > height - 1) {
        out[o] = out[o + 1] = out[o + 2] = 200;
        continue;
      }
      const x0 = Math.floor(x);
      const y0 = Math.floor(y);
      const x1 = Math.min(width - 1, x0 + 1);
      const y1 = Math.min(height - 1, y0 + 1);
      const fx = x - x0;
      const fy = y - y0;
      for (let c = 0; c < 3; c++) {
        const a = rgb[(y0 * width + x0) * 3 + c]!;
        const b = rgb[(y0 * width + x1) * 3 + c]!;
        const d = rgb[(y1 * width + x0) * 3 + c]!;
        const e = rgb[(y1 * width + x1) * 3 + c]!;
        out[o + c] = Math.round((a * (1 - fx) + b * fx) * (1 - fy) + (d * (1 - fx) + e * fx) * fy);
      }
    }
  }
  return out;
}
