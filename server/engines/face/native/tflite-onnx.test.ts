import path from 'node:path';
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { NativeGraph } from '../../onnx/onnx-session.js';
import { packageRoot } from '../../../version.js';
import { defaultModelsDir } from '../face-engine.js';
import { MobileFaceNetTflite, mobileFaceNetInput, mirrored, splitEmbeddings } from '../tflite/expo-models.js';
import { readNetworkFile } from './network-files.js';

const crop = async (file: string, left: number, top: number, side: number) =>
  new Uint8Array(
    await sharp(path.join(packageRoot(), 'test', 'fixtures', file))
      .extract({ left, top, width: side, height: side })
      .resize(112, 112)
      .removeAlpha()
      .raw()
      .toBuffer(),
  );

// MobileFaceNet as installed (converted from its TFLite file) against the TFLite interpreter, which
// runs it where onnxruntime-node does not load: the stored descriptors must not depend on which ran.
describe("MobileFaceNet's ONNX file", () => {
  it('gives the TFLite interpreter’s embeddings on face crops of real photos', async () => {
    const tf = await import('@tensorflow/tfjs-core');
    const { setWasmPaths } = await import('@tensorflow/tfjs-backend-wasm');
    setWasmPaths(`${path.join(defaultModelsDir(), 'tfjs-wasm')}${path.sep}`);
    await tf.setBackend('wasm');
    const onnx = NativeGraph.create(readNetworkFile(defaultModelsDir(), 'mobilefacenet'));
    const interpreter = MobileFaceNetTflite.load(defaultModelsDir());
    const a = await crop('fr-obama.jpg', 60, 40, 260);
    const b = await crop('fr-kit_harington2.jpg', 40, 20, 200);
    for (const [x, y] of [
      [a, b],
      [mirrored(a), mirrored(b)],
    ] as const) {
      const native = splitEmbeddings(onnx.run(mobileFaceNetInput(x, y), [2, 112, 112, 3])[0]!.data);
      const reference = await interpreter.embedPair(x, y);
      native.forEach((e, i) => {
        let worst = 0;
        for (let k = 0; k < e.length; k++) worst = Math.max(worst, Math.abs(e[k]! - reference[i]![k]!));
        expect(e).toHaveLength(192);
        expect(worst).toBeLessThan(1e-5);
      });
    }
    interpreter.dispose();
  }, 60_000);
});
