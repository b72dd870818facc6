import { readFileSync } from 'node:fs';
import path from 'node:path';
import { setWasmPaths } from '@tensorflow/tfjs-backend-wasm';
import { beforeAll, describe, expect, it } from 'vitest';
import { decodeRgb, type RgbImage } from '../../../imaging/decode-image.js';
import { packageRoot } from '../../../version.js';
import { defaultModelsDir } from '../face-engine.js';
import type { Box } from '../types.js';
import { mirrorRowsInPlace } from '../../../imaging/pixels.js';
import { landmarksInBox, squareRegionInt32 } from './face-api-input.js';
import { loadFaceApiModule, tf, type FaceApi } from './model-loader.js';

let faceapi: FaceApi;
let frame: RgbImage;

beforeAll(async () => {
  setWasmPaths(`${path.join(defaultModelsDir(), 'tfjs-wasm')}${path.sep}`);
  await tf.setBackend('wasm');
  faceapi = loadFaceApiModule();
  await faceapi.nets.faceLandmark68Net.loadFromDisk(path.join(defaultModelsDir(), 'face-api'));
  frame = await decodeRgb(readFileSync(path.join(packageRoot(), 'test', 'fixtures', 'video', 'live-0.jpg')));
});

/** face-api on the box as a plain (unpadded) tensor: it pads the input itself and maps its points back. */
async function faceApiOwn(box: Box) {
  const data = new Int32Array(box.width * box.height * 3);
  for (let y = 0; y < box.height; y++) {
    const from = ((box.y + y) * frame.width + box.x) * 3;
    data.set(frame.rgb.subarray(from, from + box.width * 3), y * box.width * 3);
  }
  const t = tf.tensor3d(data, [box.height, box.width, 3], 'int32');
  try {
    return (await faceapi.nets.faceLandmark68Net.detectLandmarks(t)).positions.map((p) => [p.x + box.x, p.y + box.y]);
  } finally {
    t.dispose();
  }
}

describe('landmarksInBox', () => {
  // The face in live-0.jpg is about x 165-473, y 118-426 (640x480).
  it.each([
    ['square', { x: 165, y: 118, width: 308, height: 308 }],
    ['tall, odd padding', { x: 190, y: 110, width: 255, height: 320 }],
    ['wide, even padding', { x: 150, y: 150, width: 330, height: 270 }],
  ])('gives the points face-api gives when it pads the box itself (%s)', async (_name, box) => {
    const ours = await landmarksInBox(faceapi.nets.faceLandmark68Net, frame, box);
    const theirs = await faceApiOwn(box);
    expect(ours).toHaveLength(68);
    let worst = 0;
    ours.forEach((p, i) => (worst = Math.max(worst, Math.abs(p[0] - theirs[i]![0]!), Math.abs(p[1] - theirs[i]![1]!))));
    expect(worst).toBeLessThan(1e-3);
    // And in frame coordinates: the nose tip (point 30) where the engine finds it, about (279, 281).
    expect(Math.hypot(ours[30]![0] - 279, ours[30]![1] - 281)).toBeLessThan(15);
  });
});

describe('squareRegionInt32', () => {
  const width = 9;
  const rgb = Uint8Array.from({ length: width * 7 * 3 }, (_, i) => 1 + ((i * 37) % 255)); // no zero pixel

  /** The pixel at (x, y) of the square, or null where it is padding. */
  const at = (r: ReturnType<typeof squareRegionInt32>, x: number, y: number) => {
    const o = (y * r.side + x) * 3;
    return r.data[o] === 0 ? null : [r.data[o], r.data[o + 1], r.data[o + 2]];
  };

  it('copies a square box pixel for pixel, at the image edge too', () => {
    const box = { x: 5, y: 3, width: 4, height: 4 };
    const r = squareRegionInt32(rgb, width, box);
    expect(r.side).toBe(4);
    for (let y = 0; y < 4; y++)
      for (let x = 0; x < 4; x++) {
        const s = ((box.y + y) * width + box.x + x) * 3;
        expect(at(r, x, y)).toEqual([rgb[s], rgb[s + 1], rgb[s + 2]]);
      }
  });

  it('pads the short side as face-api does: round(d / 2) zeros after, the rest before', () => {
    // Tall box, d = 3: 1 column before, 2 after.
    const tall = squareRegionInt32(rgb, width, { x: 2, y: 1, width: 3, height: 6 });
    expect(tall.side).toBe(6);
    for (let y = 0; y < 6; y++) {
      expect(at(tall, 0, y)).toBeNull();
      const s = ((1 + y) * width + 2) * 3;
      expect(at(tall, 1, y)).toEqual([rgb[s], rgb[s + 1], rgb[s + 2]]);
      expect(at(tall, 3, y)).not.toBeNull();
      expect([at(tall, 4, y), at(tall, 5, y)]).toEqual([null, null]);
    }
    // Wide box, d = 4: 2 rows before, 2 after.
    const wide = squareRegionInt32(rgb, width, { x: 0, y: 2, width: 6, height: 2 });
    expect(wide.side).toBe(6);
    expect([0, 1, 4, 5].map((y) => at(wide, 3, y))).toEqual([null, null, null, null]);
    expect(at(wide, 0, 2)).toEqual([rgb[2 * width * 3], rgb[2 * width * 3 + 1], rgb[2 * width * 3 + 2]]);
  });

  it('keeps a box that reaches past the image in place: its pixels where they are, zeros beyond the edges', () => {
    // 5x5 from (-2, 4): two columns before the left edge, two rows below the bottom (height 7).
    const box = { x: -2, y: 4, width: 5, height: 5 };
    const r = squareRegionInt32(rgb, width, box);
    expect(r.side).toBe(5);
    for (let y = 0; y < 5; y++)
      for (let x = 0; x < 5; x++) {
        const [sx, sy] = [box.x + x, box.y + y];
        const s = (sy * width + sx) * 3;
        expect(at(r, x, y)).toEqual(sx < 0 || sy >= 7 ? null : [rgb[s], rgb[s + 1], rgb[s + 2]]);
      }
    const dirty = new Int32Array(10_000).fill(7);
    expect([...squareRegionInt32(rgb, width, box, (n) => dirty.subarray(0, n)).data]).toEqual([...r.data]);
    // Wholly outside: all zeros.
    expect(squareRegionInt32(rgb, width, { x: 20, y: 0, width: 3, height: 3 }).data.every((v) => v === 0)).toBe(true);
  });

  it('writes into a reused buffer what it writes into a fresh one, padding cleared of an earlier crop', () => {
    const dirty = new Int32Array(10_000).fill(7);
    for (const box of [
      { x: 2, y: 1, width: 3, height: 6 },
      { x: 0, y: 2, width: 6, height: 2 },
      { x: 5, y: 3, width: 4, height: 4 },
    ]) {
      const reused = squareRegionInt32(rgb, width, box, (n) => dirty.subarray(0, n));
      expect(reused.data.buffer).toBe(dirty.buffer);
      expect([...reused.data]).toEqual([...squareRegionInt32(rgb, width, box).data]);
    }
  });

  it('mirrors a region as tf.reverse would, rows of odd and even width, the middle pixel kept', async () => {
    for (const box of [
      { x: 2, y: 1, width: 3, height: 6 },
      { x: 1, y: 2, width: 5, height: 5 },
      { x: 0, y: 0, width: 4, height: 2 },
    ]) {
      const { data, side } = squareRegionInt32(rgb, width, box);
      const expected = tf.reverse(tf.tensor3d(data, [side, side, 3], 'int32'), 1);
      const mirrored = Int32Array.from(data);
      mirrorRowsInPlace(mirrored, side);
      expect([...mirrored]).toEqual([...((await expected.data()) as Int32Array)]);
      expect([...mirrored]).not.toEqual([...data]);
      expected.dispose();
    }
  });
});
