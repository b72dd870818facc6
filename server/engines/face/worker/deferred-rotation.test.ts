import { readFileSync } from 'node:fs';
import path from 'node:path';
import { setWasmPaths } from '@tensorflow/tfjs-backend-wasm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeRgb } from '../../../imaging/decode-image.js';
import { packageRoot } from '../../../version.js';
import { seededRandom } from '../../../../test/random.js';
import { defaultModelsDir } from '../face-engine.js';
import { deferRotations } from './deferred-rotation.js';
import { tf } from './model-loader.js';

beforeAll(async () => {
  setWasmPaths(`${path.join(defaultModelsDir(), 'tfjs-wasm')}${path.sep}`);
  await tf.setBackend('wasm');
});
afterAll(() => deferRotations()());

/** `run` on tfjs's own kernels, and with rotations deferred: the values of each. */
function both(run: () => tf.Tensor): { own: Float32Array; deferred: Float32Array } {
  deferRotations()();
  const a = run();
  const own = a.dataSync() as Float32Array;
  a.dispose();
  // Memory tfjs's run freed holds its answer: overwritten, so that a pixel left uncomputed shows.
  tf.fill([1, 480, 640, 3], -12345).dispose();
  deferRotations();
  const b = run();
  const deferred = b.dataSync() as Float32Array;
  b.dispose();
  return { own, deferred };
}

const differing = (a: Float32Array, b: Float32Array) => a.reduce((n, v, i) => n + (Object.is(v, b[i]) ? 0 : 1), 0);

describe('rotations deferred until read (deferRotations)', () => {
  const random = seededRandom(7);
  const image = () => tf.randomUniform([1, 480, 640, 3], 0, 255, 'float32', 11) as tf.Tensor4D;

  it('crops a rotated frame to the same pixels as tfjs, at any angle, centre and box, bilinear or nearest', () => {
    const frame = image();
    for (let i = 0; i < 40; i++) {
      const radians = (random() - 0.5) * 2 * Math.PI;
      const center: [number, number] = [random(), random()];
      // Boxes partly outside the frame too (their outside is the extrapolation value).
      const y1 = random() * 1.2 - 0.1;
      const x1 = random() * 1.2 - 0.1;
      const box = [y1, x1, y1 + 0.05 + random() * 0.6, x1 + 0.05 + random() * 0.6];
      const method = i % 4 === 3 ? 'nearest' : 'bilinear';
      const { own, deferred } = both(() =>
        tf.tidy(() =>
          tf.image.cropAndResize(tf.image.rotateWithOffset(frame, radians, 0, center), [box], [0], [192, 192], method),
        ),
      );
      expect(differing(own, deferred), `angle ${radians}, centre ${center}, box ${box}`).toBe(0);
    }
    frame.dispose();
  });

  it('crops as tfjs does with boxes wholly outside the frame, or not numbers', () => {
    const frame = image();
    for (const box of [
      [1.2, 1.3, 1.6, 1.9],
      [Number.NaN, 0.2, 0.6, 0.7],
    ]) {
      const { own, deferred } = both(() =>
        tf.tidy(() => tf.image.cropAndResize(tf.image.rotateWithOffset(frame, 0.3, 0, 0.5), [box], [0], [24, 24])),
      );
      expect(differing(own, deferred), `box ${box}`).toBe(0);
    }
    frame.dispose();
  });

  it('gives the whole rotated frame to a read, to any other kernel, and after its source is disposed', () => {
    const frame = image();
    const radians = 0.41;
    const read = both(() => {
      const rotated = tf.image.rotateWithOffset(frame, radians, [10, 20, 30], [0.3, 0.6]);
      // A crop computes part of it first; the read must still see all of it.
      tf.image.cropAndResize(rotated, [[0.2, 0.2, 0.5, 0.5]], [0], [32, 32]).dispose();
      return rotated;
    });
    expect(differing(read.own, read.deferred)).toBe(0);
    const added = both(() => tf.tidy(() => tf.add(tf.image.rotateWithOffset(frame, -radians, 0, 0.5), 1)));
    expect(differing(added.own, added.deferred)).toBe(0);
    const orphan = both(() => {
      const source = frame.clone() as tf.Tensor4D;
      const rotated = tf.image.rotateWithOffset(source, radians, 0, [0.5, 0.4]);
      source.dispose();
      // Memory the source freed, overwritten by another tensor.
      tf.fill([1, 480, 640, 3], 7).dispose();
      return rotated;
    });
    expect(differing(orphan.own, orphan.deferred)).toBe(0);
    frame.dispose();
  });

  it("gives Human's face crop of a tilted face unchanged, and leaves no tensor behind", async () => {
    const decoded = await decodeRgb(readFileSync(path.join(packageRoot(), 'test', 'fixtures', 'video', 'live-0.jpg')));
    const frame = tf.tidy(
      () => tf.cast(tf.tensor4d(decoded.rgb, [1, decoded.height, decoded.width, 3], 'int32'), 'float32') as tf.Tensor4D,
    );
    // As facemesh's correctFaceRotation does for this frame's face (about 20 degrees of roll).
    const face = { x: 165, y: 118, size: 308 };
    const centre: [number, number] = [(face.x + face.size / 2) / decoded.width, (face.y + face.size / 2) / decoded.height];
    const box = [
      face.y / decoded.height,
      face.x / decoded.width,
      (face.y + face.size) / decoded.height,
      (face.x + face.size) / decoded.width,
    ];
    const before = tf.memory().numTensors;
    const { own, deferred } = both(() =>
      tf.tidy(() =>
        tf.div(tf.image.cropAndResize(tf.image.rotateWithOffset(frame, -0.356, 0, centre), [box], [0], [192, 192]), 255),
      ),
    );
    expect(differing(own, deferred)).toBe(0);
    expect(tf.memory().numTensors).toBe(before);
    frame.dispose();
  });
});
