import { describe, expect, it } from 'vitest';
import { applyHomography, homographyFrom, warpPerspective, type Homography } from './homography.js';

/** The warp written pixel by pixel through applyHomography: what warpPerspective must equal. */
function reference(rgb: Uint8Array, width: number, height: number, h: Homography, outW: number, outH: number, fill: number) {
  const out = new Uint8Array(outW * outH * 3);
  for (let v = 0; v < outH; v++) {
    for (let u = 0; u < outW; u++) {
      const [x, y] = applyHomography(h, [u + 0.5, v + 0.5]);
      const sx = x - 0.5;
      const sy = y - 0.5;
      const o = (v * outW + u) * 3;
      if (sx < 0 || sy < 0 || sx > width - 1 || sy > height - 1) {
        out.fill(fill, o, o + 3);
        continue;
      }
      const x0 = Math.floor(sx);
      const y0 = Math.floor(sy);
      const x1 = Math.min(width - 1, x0 + 1);
      const y1 = Math.min(height - 1, y0 + 1);
      const fx = sx - x0;
      const fy = sy - y0;
      for (let c = 0; c < 3; c++) {
        const at = (px: number, py: number) => rgb[(py * width + px) * 3 + c]!;
        out[o + c] = Math.round(
          (at(x0, y0) * (1 - fx) + at(x1, y0) * fx) * (1 - fy) + (at(x0, y1) * (1 - fx) + at(x1, y1) * fx) * fy,
        );
      }
    }
  }
  return out;
}

describe('warpPerspective', () => {
  const width = 53;
  const height = 41;
  const rgb = Uint8Array.from({ length: width * height * 3 }, (_, i) => (i * 2654435761) >>> 24);

  it('equals the pixel-by-pixel warp for a rotation with scale and for a perspective map, edges and outside included', () => {
    const angle = 0.3;
    const rotation: Homography = [
      1.7 * Math.cos(angle),
      -1.7 * Math.sin(angle),
      20,
      1.7 * Math.sin(angle),
      1.7 * Math.cos(angle),
      -6,
      0,
      0,
      1,
    ];
    const perspective = homographyFrom(
      [
        [0, 0],
        [30, 0],
        [30, 40],
        [0, 40],
      ],
      [
        [-4, 3],
        [50, 1],
        [57, 44],
        [2, 38],
      ],
    )!;
    for (const h of [rotation, perspective]) {
      const got = warpPerspective(rgb, width, height, h, 30, 40, 200);
      expect(got).toEqual(reference(rgb, width, height, h, 30, 40, 200));
      expect(got.some((p) => p === 200)).toBe(true); // part of each output falls outside the source
    }
  });

  it('gives the same pixels on its affine path as on the general one (face crops and portraits stay as they were)', () => {
    let seed = 7;
    const next = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31) * 2 - 1;
    for (let i = 0; i < 50; i++) {
      const angle = next() * Math.PI;
      const scale = 0.3 + Math.abs(next()) * 2;
      const affine: Homography = [
        scale * Math.cos(angle),
        -scale * Math.sin(angle),
        next() * 40,
        scale * Math.sin(angle),
        scale * Math.cos(angle),
        next() * 30,
        0,
        0,
        1,
      ];
      // A last row that is not (0, 0, 1) takes the general path, and w still rounds to exactly 1.
      const general: Homography = [...affine.slice(0, 6), 1e-300, 0, 1] as Homography;
      expect(warpPerspective(rgb, width, height, affine, 37, 29, 200)).toEqual(
        warpPerspective(rgb, width, height, general, 37, 29, 200),
      );
    }
  });

  it('gives the source back through the identity, its last row and column included', () => {
    const identity: Homography = [1, 0, 0, 0, 1, 0, 0, 0, 1];
    expect(warpPerspective(rgb, width, height, identity, width, height)).toEqual(rgb);
  });
});
