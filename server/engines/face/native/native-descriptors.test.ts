import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeOnnxModel } from '../../onnx/onnx-writer.js';
import { NativeGraph } from '../../onnx/onnx-session.js';
import { cosine, normalize } from '../../../matching/similarity.js';
import { packageRoot } from '../../../version.js';
import { FULL_ANALYSIS, MATCHING_ANALYSIS } from '../analyze-options.js';
import { defaultModelsDir, FaceEngine } from '../face-engine.js';
import { IDENTIFICATION_DIM } from '../fused-descriptor.js';
import { EXPO_MODELS_DIR } from '../tflite/expo-models.js';
import { readTflite } from '../tflite/model.js';
import type { MajorFace } from '../types.js';
import { tfliteToOnnx } from './tflite-onnx.js';

const photo = (name: string) => new Uint8Array(readFileSync(path.join(packageRoot(), 'test', 'fixtures', name)));

describe('ONNX writer', () => {
  it('writes a graph onnxruntime runs: int64 shapes (negative too), float constants, attributes', () => {
    const model = NativeGraph.create(
      encodeOnnxModel({
        nodes: [
          { op: 'Reshape', inputs: ['input', 'shape'], outputs: ['flat'] },
          { op: 'Add', inputs: ['flat', 'offset'], outputs: ['sum'] },
          { op: 'LeakyRelu', inputs: ['sum'], outputs: ['output'], attributes: { alpha: 0.5 } },
        ],
        initializers: [
          { name: 'shape', dims: [2], values: [-1, 4] },
          { name: 'offset', dims: [4], values: Float32Array.of(1, -10, 0.5, 0) },
        ],
        inputs: [{ name: 'input', dims: ['batch', 2, 2] }],
        outputs: [{ name: 'output', dims: ['batch', 4] }],
      }),
    );
    const [out] = model.run(Float32Array.of(1, 2, 3, 4, 5, 6, 7, 8), [2, 2, 2]);
    expect(out!.dims).toEqual([2, 4]);
    expect(Array.from(out!.data)).toEqual([2, -4, 3.5, 4, 6, -2, 7.5, 8]);
  });

  it('refuses a TFLite network it would not convert exactly, saying why', () => {
    const tflite = (name: string) => readTflite(readFileSync(path.join(defaultModelsDir(), EXPO_MODELS_DIR, name)));
    const m = tflite('MobileFaceNet.tflite');
    expect(() => tfliteToOnnx({ ...m, outputs: [...m.outputs, m.outputs[0]!] })).toThrow(/one input and one output/);
    const squeezed = { ...m, operators: m.operators.map((o) => (o.op === 'RESHAPE' ? { ...o, op: 'SQUEEZE' } : o)) };
    expect(() => tfliteToOnnx(squeezed)).toThrow(/op SQUEEZE not supported/);
  });
});

// The station's networks on onnxruntime give what they give on WASM, on real photos through the
// whole pipeline: the same face, points and pose, and descriptors the gallery's samples match.
describe('face networks on onnxruntime', () => {
  const engines: Partial<Record<'native' | 'wasm', FaceEngine>> = {};
  const runtimes: string[] = [];
  const analyses: string[] = [];
  const borrows: boolean[] = [];
  beforeAll(async () => {
    for (const runtime of ['native', 'wasm'] as const) {
      engines[runtime] = FaceEngine.start({
        modelsDir: defaultModelsDir(),
        workers: 1,
        warmUp: false,
        networkRuntime: runtime,
        onEvent: (event, detail) => {
          if (event !== 'worker-ready') return;
          const ready = detail as {
            descriptors: { runtime: string; borrowsIdleCores: boolean };
            analysis: { runtime: string };
          };
          runtimes.push(ready.descriptors.runtime);
          borrows.push(ready.descriptors.borrowsIdleCores);
          analyses.push(ready.analysis.runtime);
        },
      });
    }
    await Promise.all(Object.values(engines).map((e) => e.ready()));
  }, 120_000);
  afterAll(async () => {
    await Promise.all(Object.values(engines).map((e) => e.close()));
  });

  it('reports where they run', () => {
    expect(runtimes.sort()).toEqual(['native', 'wasm']);
    expect(analyses.sort()).toEqual(['native', 'wasm']);
    // One worker each: there is no other worker whose core could be borrowed.
    expect(borrows).toEqual([false, false]);
  });

  it.each(['fr-obama.jpg', 'human-stock-emotions-a-1.jpg', 'fr-two_people.jpg'])(
    'the same faces, points, pose, age, gender, emotion and presentation scores as on WASM in %s',
    async (file) => {
      const analyze = (runtime: 'native' | 'wasm') => engines[runtime]!.analyzeImage(photo(file), FULL_ANALYSIS);
      const [native, wasm] = [await analyze('native'), await analyze('wasm')];
      expect(native.faces.length).toBe(wasm.faces.length);
      native.faces.forEach((f, i) => {
        const w = wasm.faces[i]!;
        for (const k of ['x', 'y', 'width', 'height'] as const) expect(Math.abs(f.box[k] - w.box[k])).toBeLessThanOrEqual(1);
        expect(f.score).toBeCloseTo(w.score, 3);
      });
      const [a, b] = [native.major, wasm.major];
      expect(a == null).toBe(b == null);
      if (!a || !b) return;
      for (const k of ['leftEye', 'rightEye', 'noseTip'] as const) {
        expect(Math.abs(a[k][0] - b[k][0])).toBeLessThan(0.5);
        expect(Math.abs(a[k][1] - b[k][1])).toBeLessThan(0.5);
      }
      for (const k of ['yaw', 'pitch', 'roll'] as const) expect(Math.abs(a[k] - b[k])).toBeLessThan(0.5);
      for (const k of ['leftEyeOpenness', 'rightEyeOpenness', 'mouthOpenness'] as const) expect(a[k]).toBeCloseTo(b[k], 3);
      for (let i = 0; i < 68; i++)
        expect(Math.hypot(a.landmarks68[i]![0] - b.landmarks68[i]![0], a.landmarks68[i]![1] - b.landmarks68[i]![1])).toBeLessThan(
          0.05,
        );
      expect(a.age!).toBeCloseTo(b.age!, 2);
      expect(a.gender!.type).toBe(b.gender!.type);
      expect(a.gender!.score).toBeCloseTo(b.gender!.score, 3);
      for (const [k, v] of Object.entries(b.emotion!)) expect(a.emotion![k]).toBeCloseTo(v, 3);
      expect(a.real!).toBeCloseTo(b.real!, 3);
      expect(a.live!).toBeCloseTo(b.live!, 3);
    },
    60_000,
  );

  it.each(['fr-obama.jpg', 'fr-kit_harington2.jpg', 'human-stock-emotions-a-1.jpg'])(
    'MobileFaceNet and the ResNet agree with WASM on %s',
    async (file) => {
      const major = async (runtime: 'native' | 'wasm') =>
        (await engines[runtime]!.analyzeImage(photo(file), MATCHING_ANALYSIS)).major!;
      const [native, wasm] = [await major('native'), await major('wasm')];
      expect(native.embedding!.length).toBe(wasm.embedding!.length);
      expect(cosine(native.embedding!, wasm.embedding!)).toBeGreaterThan(0.99999);
      // The ResNet's part alone, whose values are the smaller: a difference there is not hidden by MobileFaceNet's.
      const resNet = (face: MajorFace) => normalize(face.embedding!.subarray(IDENTIFICATION_DIM));
      const [a, b] = [resNet(native), resNet(wasm)];
      expect(a.length).toBe(128);
      let worst = 0;
      for (let i = 0; i < a.length; i++) worst = Math.max(worst, Math.abs(a[i]! - b[i]!));
      expect(worst).toBeLessThan(1e-4);
    },
    60_000,
  );
});
