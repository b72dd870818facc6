// The OCR candidate without a detector: tesseract `spa` finds and reads sparse text over the whole
// rectified side (page segmentation 11), as `npm run eval:dni -- --compare-ocr` compares it.
import path from 'node:path';
import { PSM, type Worker } from 'tesseract.js';
import sharp from 'sharp';
import { createLocalWorker, type CardImage, type TextWord } from '../../server/engines/document/index.js';

export class SparseTesseract {
  private constructor(private readonly worker: Worker) {}

  static async load(modelsDir: string): Promise<SparseTesseract> {
    const worker = await createLocalWorker({ langDir: path.join(modelsDir, 'tesseract'), lang: 'spa', gzip: true });
    await worker.setParameters({ user_defined_dpi: '300', tessedit_pageseg_mode: PSM.SPARSE_TEXT });
    return new SparseTesseract(worker);
  }

  async read(card: CardImage): Promise<TextWord[]> {
    const png = await sharp(card.rgb, { raw: { width: card.width, height: card.height, channels: 3 } })
      .greyscale()
      .png({ compressionLevel: 1 })
      .toBuffer();
    const { data } = await this.worker.recognize(png, {}, { blocks: true, text: false });
    return (data.blocks ?? []).flatMap((b) =>
      b.paragraphs.flatMap((p) =>
        p.lines.flatMap((l) =>
          l.words
            .filter((w) => w.text.trim())
            .map((w) => ({ text: w.text.trim(), confidence: Math.round(w.confidence), box: { ...w.bbox } })),
        ),
      ),
    );
  }

  async close(): Promise<void> {
    await this.worker.terminate();
  }
}
