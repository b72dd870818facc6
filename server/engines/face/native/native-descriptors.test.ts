import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeOnnxModel } from '../../onnx/onnx-writer.js';
import { NativeModel } from '../../onnx/onnx-session.js';
import { cosine } from '../../../matching/similarity.js';
import { packageRoot } from '../../../version.js';
import { MATCHING_ANALYSIS } from '../analyze-options.js';
import { defaultModelsDir, FaceEngine } from '../face-engine.js';
import { FACEAPI_MODEL_ID } from '../face-model.js';
import { EXPO_MODELS_DIR } from '../tflite/expo-models.js';
import { readTflite } from '../tflite/model.js';
import type { MajorFace } from '../types.js';
import { tfliteToOnnx } from './tflite-onnx.js';

const photo = (name: string) => new Uint8Array(readFileSync(path.join(packageRoot(), 'test', 'fixtures', name)));

describe('ONNX writer', () => {
  it('writes a graph onnxruntime runs: int64 shapes (negative too), float constants, attributes', async () => {
    const model = await NativeModel.create(
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
    const out = await model.run(Float32Array.of(1, 2, 3, 4, 5, 6, 7, 8), [2, 2, 2]);
    expect(Array.from(out)).toEqual([2, -4, 3.5, 4, 6, -2, 7.5, 8]);
    await model.dispose();
  });

  it('refuses a TFLite network it would not convert exactly, saying why', () => {
    const tflite = (name: string) => readTflite(readFileSync(path.join(defaultModelsDir(), EXPO_MODELS_DIR, name)));
    expect(() => tfliteToOnnx(tflite('FaceAntiSpoofing.tflite'))).toThrow(/one input and one output/);
    const m = tflite('MobileFaceNet.tflite');
    const squeezed = { ...m, operators: m.operators.map((o) => (o.op === 'RESHAPE' ? { ...o, op: 'SQUEEZE' } : o)) };
    expect(() => tfliteToOnnx(squeezed)).toThrow(/op SQUEEZE not supported/);
  });
});

// The station's recognition networks on onnxruntime give the descriptors they give on WASM, on
// real photos through the whole pipeline: the gallery's samples stay comparable across runtimes.
describe('recognition networks on onnxruntime', () => {
  const engines: Partial<Record<'native' | 'wasm', FaceEngine>> = {};
  const runtimes: string[] = [];
  beforeAll(async () => {
    for (const runtime of ['native', 'wasm'] as const) {
      engines[runtime] = FaceEngine.start({
        modelsDir: defaultModelsDir(),
        workers: 1,
        warmUp: false,
        descriptorRuntime: runtime,
        onEvent: (event, detail) =>
          event === 'worker-ready' && runtimes.push((detail as { descriptors: { runtime: string } }).descriptors.runtime),
      });
    }
    await Promise.all(Object.values(engines).map((e) => e.ready()));
  }, 120_000);
  afterAll(async () => {
    await Promise.all(Object.values(engines).map((e) => e.close()));
  });

  it('reports where they run', () => {
    expect(runtimes.sort()).toEqual(['native', 'wasm']);
  });

  it.each(['fr-obama.jpg', 'fr-kit_harington2.jpg', 'human-stock-emotions-a-1.jpg'])(
    'MobileFaceNet and the ResNet agree with WASM on %s',
    async (file) => {
      const major = async (runtime: 'native' | 'wasm') =>
        (await engines[runtime]!.analyzeImage(photo(file), { ...MATCHING_ANALYSIS, alternatives: true })).major as MajorFace & {
          alternativeEmbeddings: Record<string, Float32Array>;
        };
      const [native, wasm] = [await major('native'), await major('wasm')];
      expect(native.embedding!.length).toBe(wasm.embedding!.length);
      expect(cosine(native.embedding!, wasm.embedding!)).toBeGreaterThan(0.99999);
      const [a, b] = [native.alternativeEmbeddings[FACEAPI_MODEL_ID]!, wasm.alternativeEmbeddings[FACEAPI_MODEL_ID]!];
      expect(a.length).toBe(128);
      let worst = 0;
      for (let i = 0; i < a.length; i++) worst = Math.max(worst, Math.abs(a[i]! - b[i]!));
      expect(worst).toBeLessThan(1e-4);
    },
    60_000,
  );
});
