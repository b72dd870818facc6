import { describe, expect, it } from 'vitest';
import { regionStats, type Plane } from '../../../imaging/pixels.js';
import { claheClipFor, claheMapping, tileMap } from './clahe.js';

/** A dark, flat frame: values 20-60 in soft blobs, with a little noise. */
function darkPlane(width: number, height: number): Plane {
  const data = new Uint8Array(width * height);
  for (let y = 0; y < height; y++)
    for (let x = 0; x < width; x++)
      data[y * width + x] = Math.round(40 + 15 * Math.sin(x / 9) * Math.cos(y / 7) + ((x * 7 + y * 13) % 11) - 5);
  return { width, height, data };
}

/** CLAHE written per pixel, as first shipped: claheMapping must give the same bytes. */
function reference(plane: Plane, clipLimit: number, tiles = 8): Uint8Array {
  const { width, height, data } = plane;
  const tw = Math.ceil(width / tiles);
  const th = Math.ceil(height / tiles);
  const maps: Uint8Array[] = [];
  for (let ty = 0; ty < tiles; ty++)
    for (let tx = 0; tx < tiles; tx++) {
      const hist = new Uint32Array(256);
      let n = 0;
      for (let y = ty * th; y < Math.min(height, ty * th + th); y++)
        for (let x = tx * tw; x < Math.min(width, tx * tw + tw); x++, n++) hist[data[y * width + x]!]!++;
      maps.push(tileMap(hist, n, clipLimit));
    }
  const tileMaps = (t: number) => maps[t]!;
  const out = new Uint8Array(data.length);
  for (let y = 0; y < height; y++) {
    const fy = Math.min(tiles - 1, Math.max(0, (y + 0.5) / th - 0.5));
    const ty0 = Math.floor(fy);
    const ty1 = Math.min(tiles - 1, ty0 + 1);
    const wy = fy - ty0;
    for (let x = 0; x < width; x++) {
      const fx = Math.min(tiles - 1, Math.max(0, (x + 0.5) / tw - 0.5));
      const tx0 = Math.floor(fx);
      const tx1 = Math.min(tiles - 1, tx0 + 1);
      const wx = fx - tx0;
      const v = data[y * width + x]!;
      const top = tileMaps(ty0 * tiles + tx0)[v]! * (1 - wx) + tileMaps(ty0 * tiles + tx1)[v]! * wx;
      const bottom = tileMaps(ty1 * tiles + tx0)[v]! * (1 - wx) + tileMaps(ty1 * tiles + tx1)[v]! * wx;
      out[y * width + x] = Math.round(top * (1 - wy) + bottom * wy);
    }
  }
  return out;
}

describe('claheMapping', () => {
  it('spreads a dark, flat frame: more contrast, and brighter', () => {
    const plane = darkPlane(160, 120);
    const clip = claheClipFor(regionStats(plane, { x: 0, y: 0, width: 160, height: 120 }), 4, 10);
    expect(clip).toBeGreaterThan(4);
    const out = claheMapping(plane, clip);
    const before = regionStats(plane, { x: 0, y: 0, width: 160, height: 120 });
    const after = regionStats({ ...plane, data: out }, { x: 0, y: 0, width: 160, height: 120 });
    expect(after.std).toBeGreaterThan(2 * before.std);
    expect(after.mean).toBeGreaterThan(before.mean);
  });

  it('gives the bytes of the per-pixel formula, on sizes that are not a multiple of the tiles', () => {
    for (const [width, height] of [
      [83, 61],
      [8, 8],
      [130, 9],
      [5, 3],
    ] as const) {
      const plane = darkPlane(width, height);
      for (const clip of [2, 6.5]) expect(claheMapping(plane, clip)).toEqual(reference(plane, clip));
    }
  });
});
