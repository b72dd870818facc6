import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cosine, normalize } from '../../../matching/similarity.js';
import { packageRoot } from '../../../version.js';
import { MATCHING_ANALYSIS } from '../analyze-options.js';
import { defaultModelsDir, FaceEngine } from '../face-engine.js';
import { EMBEDDING_DIM } from '../face-model.js';
import { fuseDescriptors, IDENTIFICATION_DIM, identificationView } from '../fused-descriptor.js';
import type { MajorFace } from '../types.js';
import { ARCFACE_TEMPLATE_112, meshFivePoints, similarity } from './align.js';
import { halfToFloat, TfliteExecutor } from './executor.js';
import { EXPO_MODELS_DIR, mirrored } from './expo-models.js';
import { readTflite } from './model.js';

const modelFile = (name: string) => path.join(defaultModelsDir(), EXPO_MODELS_DIR, name);
const photo = (name: string) => readFileSync(path.join(packageRoot(), 'test', 'fixtures', name));

describe('TFLite reader', () => {
  it('reads MobileFaceNet: a batch of two 112x112 RGB crops in, two 192-d embeddings out, float ops only', () => {
    const m = readTflite(readFileSync(modelFile('MobileFaceNet.tflite')));
    expect(m.tensors[m.inputs[0]!]).toMatchObject({ name: 'input', shape: [2, 112, 112, 3], type: 'float32' });
    expect(m.tensors[m.outputs[0]!]).toMatchObject({ name: 'embeddings', shape: [2, 192], type: 'float32' });
    expect(new Set(m.operators.map((o) => o.op))).toEqual(
      new Set(['CONV_2D', 'DEPTHWISE_CONV_2D', 'RELU', 'ABS', 'SUB', 'MUL', 'ADD', 'RESHAPE']),
    );
    const conv = m.operators[0]!;
    expect(m.tensors[conv.inputs[1]!]!.shape).toEqual([64, 3, 3, 3]);
    expect(m.tensors[conv.inputs[1]!]!.data!.length).toBe(64 * 27 * 4);
  });

  it('runs PReLU fused into the convolutions with the same result as the five ops the converter wrote', async () => {
    const tf = await import('@tensorflow/tfjs-core');
    const { setWasmPaths } = await import('@tensorflow/tfjs-backend-wasm');
    setWasmPaths(`${path.join(defaultModelsDir(), 'tfjs-wasm')}${path.sep}`);
    await tf.setBackend('wasm');
    const model = readTflite(readFileSync(modelFile('MobileFaceNet.tflite')));
    const fused = new TfliteExecutor(model);
    const plain = new TfliteExecutor(model, { fuse: false });
    const input = new Float32Array(2 * 112 * 112 * 3).map((_, i) => Math.sin(i * 0.37) * 0.9);
    const [a] = await fused.run([input]);
    const [b] = await plain.run([input]);
    expect(a!.length).toBe(384);
    expect(fused.operatorNames).not.toContain('ABS');
    expect(fused.operatorNames.filter((o) => o.endsWith('+PRELU')).length).toBe(33);
    let worst = 0;
    for (let i = 0; i < a!.length; i++) worst = Math.max(worst, Math.abs(a![i]! - b![i]!) / (Math.abs(b![i]!) + 1e-3));
    expect(worst).toBeLessThan(1e-3);
    fused.dispose();
    plain.dispose();
  });

  it('widens half floats', () => {
    expect(Array.from(halfToFloat(Uint16Array.from([0x3c00, 0xc000, 0x3555, 0x0001, 0x7c00, 0])))).toEqual([
      1,
      -2,
      expect.closeTo(0.33325, 5),
      2 ** -24,
      Infinity,
      0,
    ]);
  });

  it('fits the similarity that maps the ArcFace template onto rotated, scaled, shifted points', () => {
    const angle = 0.3;
    const scale = 2.5;
    const moved = ARCFACE_TEMPLATE_112.map(([x, y]) => [
      scale * (Math.cos(angle) * x - Math.sin(angle) * y) + 40,
      scale * (Math.sin(angle) * x + Math.cos(angle) * y) - 7,
    ]) as [number, number][];
    const h = similarity(ARCFACE_TEMPLATE_112, moved);
    expect(h[0]).toBeCloseTo(scale * Math.cos(angle), 6);
    expect(h[3]).toBeCloseTo(scale * Math.sin(angle), 6);
    expect(h[2]).toBeCloseTo(40, 6);
    expect(h[5]).toBeCloseTo(-7, 6);
  });

  it("mirrors a crop left to right, each pixel's three channels together", () => {
    const crop = new Uint8Array(4 * 4 * 3).map((_, i) => i);
    const flipped = mirrored(crop, 4);
    // Row 1, column 0 lands in row 1, column 3, its channels in order.
    expect([...flipped.subarray((1 * 4 + 3) * 3, (1 * 4 + 3) * 3 + 3)]).toEqual([12, 13, 14]);
    expect([...mirrored(flipped, 4)]).toEqual([...crop]);
  });

  it('takes the five points from the face mesh, image left first, iris centres when present', () => {
    const mesh: [number, number][] = Array.from({ length: 468 }, () => [0, 0]);
    // A subject whose right eye (mesh 33/133) is on the image's right: the points must be reordered.
    mesh[33] = [90, 40];
    mesh[133] = [70, 40];
    mesh[362] = [40, 42];
    mesh[263] = [20, 42];
    mesh[1] = [55, 60];
    mesh[61] = [75, 80];
    mesh[291] = [35, 80];
    expect(meshFivePoints(mesh, null)).toEqual([
      [30, 42],
      [80, 40],
      [55, 60],
      [35, 80],
      [75, 80],
    ]);
    expect(
      meshFivePoints(mesh, [
        [81, 39],
        [31, 41],
      ]),
    ).toEqual([
      [31, 41],
      [81, 39],
      [55, 60],
      [35, 80],
      [75, 80],
    ]);
    expect(meshFivePoints(mesh.slice(0, 100), null)).toBeNull();
  });
});

describe('the stored descriptor on real photos', () => {
  let engine: FaceEngine;
  const faces = new Map<string, MajorFace>();
  beforeAll(async () => {
    engine = FaceEngine.start({ modelsDir: defaultModelsDir(), workers: 1, taskTimeoutMs: 120_000 });
    await engine.ready();
    for (const name of ['fr-obama.jpg', 'fr-obama2.jpg', 'fr-kit_harington2.jpg', 'fr-rose_leslie1.jpg']) {
      const analysis = await engine.analyzeImage(photo(name), MATCHING_ANALYSIS);
      faces.set(name, analysis.major!);
    }
  }, 300_000);
  afterAll(() => engine.close());

  const fused = (name: string) => faces.get(name)!.embedding!;
  const mfn = (name: string) => identificationView(fused(name));
  const resNet = (name: string) => normalize(fused(name).subarray(IDENTIFICATION_DIM));

  it('stores a unit 320-d vector whose MobileFaceNet part separates the same person from other people', () => {
    for (const name of faces.keys()) {
      expect(fused(name)).toHaveLength(EMBEDDING_DIM);
      expect(Math.hypot(...fused(name))).toBeCloseTo(1, 4);
      expect(mfn(name)).toHaveLength(192);
    }
    const same = cosine(mfn('fr-obama.jpg'), mfn('fr-obama2.jpg'));
    expect(same).toBeGreaterThan(0.5);
    for (const other of ['fr-kit_harington2.jpg', 'fr-rose_leslie1.jpg']) {
      expect(cosine(mfn('fr-obama.jpg'), mfn(other))).toBeLessThan(same - 0.3);
    }
  });

  it("is the fusion of its two parts, and the ResNet's part separates people as well", () => {
    for (const name of faces.keys()) {
      expect(resNet(name)).toHaveLength(128);
      expect(cosine(fused(name), fuseDescriptors(mfn(name), resNet(name)))).toBeCloseTo(1, 5);
    }
    const same = cosine(fused('fr-obama.jpg'), fused('fr-obama2.jpg'));
    const sameResNet = cosine(resNet('fr-obama.jpg'), resNet('fr-obama2.jpg'));
    for (const other of ['fr-kit_harington2.jpg', 'fr-rose_leslie1.jpg']) {
      expect(cosine(fused('fr-obama.jpg'), fused(other))).toBeLessThan(same - 0.1);
      expect(cosine(resNet('fr-obama.jpg'), resNet(other))).toBeLessThan(sameResNet - 0.05);
    }
  });
});
