import path from 'node:path';
import sharp from 'sharp';
import { PSM, type Page, type Worker } from 'tesseract.js';
import { defaultModelsDir } from '../../models-dir.js';
import { RecyclingPool } from '../ocr/recycling-pool.js';
import { createLocalWorker } from '../ocr/tesseract-worker.js';
import { groupWords, type TextBox, type TextLine, type TextWord } from './text-lines.js';

function wordsOf(data: Page): TextWord[] {
  const found: TextWord[] = [];
  for (const block of data.blocks ?? [])
    for (const paragraph of block.paragraphs)
      for (const line of paragraph.lines)
        for (const word of line.words) {
          const text = word.text.trim();
          if (text) found.push({ text, confidence: Math.round(word.confidence), box: { ...word.bbox } });
        }
  return found;
}

/** The grey most of the side is: its paper, as the brightest third of the histogram's bulk. */
function paperGrey(grey: Uint8Array): number {
  const counts = new Uint32Array(256);
  for (const v of grey) counts[v]!++;
  let seen = 0;
  for (let v = 0; v < 256; v++) {
    seen += counts[v]!;
    if (seen >= grey.length * 0.7) return v;
  }
  return 255;
}

/** A rectified card side, packed RGB. */
export interface CardImage {
  rgb: Uint8Array;
  width: number;
  height: number;
}

/**
 * Every line of printed text on a card side, wherever it sits: tesseract's `spa` model finds and
 * reads sparse text over the whole side (page segmentation 11), no field boxes assumed. Regions
 * already read by other means (the MRZ, the barcode) are painted out first, so they cost no time
 * and give no stray lines.
 */
export class CardTextReader {
  private readonly pool: RecyclingPool<Worker>;

  constructor(options: { modelsDir?: string; poolSize?: number } = {}) {
    const langDir = path.join(options.modelsDir ?? defaultModelsDir(), 'tesseract');
    this.pool = new RecyclingPool<Worker>({
      size: options.poolSize ?? 1,
      recycleAfter: 200,
      create: async () => {
        const w = await createLocalWorker({ langDir, lang: 'spa', gzip: true });
        await w.setParameters({ user_defined_dpi: '300' });
        return w;
      },
      destroy: async (w) => {
        await w.terminate();
      },
    });
  }

  ready(): Promise<void> {
    return this.pool.ready();
  }

  /** The side's words, grouped into lines. */
  async read(card: CardImage, masks: readonly TextBox[] = []): Promise<TextLine[]> {
    return groupWords(await this.words(card, masks));
  }

  /**
   * The words in a few regions of the side, each read as a block enlarged (twice by default): an isolated
   * letter (a sex, an ejemplar) that the sparse reading of the whole side can miss.
   */
  async readRegions(card: CardImage, regions: readonly TextBox[], enlarge = 2): Promise<TextWord[]> {
    const base = sharp(card.rgb, { raw: { width: card.width, height: card.height, channels: 3 } });
    const out: TextWord[] = [];
    for (const r of regions) {
      const left = Math.max(0, Math.round(r.x0));
      const top = Math.max(0, Math.round(r.y0));
      const width = Math.min(card.width, Math.round(r.x1)) - left;
      const height = Math.min(card.height, Math.round(r.y1)) - top;
      if (width < 8 || height < 8) continue;
      const region = await base.clone().extract({ left, top, width, height }).greyscale().raw().toBuffer();
      const paper = paperGrey(region);
      // Resized and framed in two pipelines: sharp resizes after extending within one.
      const enlarged = await sharp(region, { raw: { width, height, channels: 1 } })
        .resize({ width: width * enlarge })
        .png({ compressionLevel: 1 })
        .toBuffer();
      const crop = await sharp(enlarged)
        .extend({ top: 16, bottom: 16, left: 16, right: 16, background: { r: paper, g: paper, b: paper } })
        .png({ compressionLevel: 1 })
        .toBuffer();
      const words = await this.pool.run(async (w) => {
        await w.setParameters({ tessedit_pageseg_mode: PSM.SINGLE_BLOCK });
        return wordsOf((await w.recognize(crop, {}, { blocks: true, text: false })).data);
      });
      for (const word of words) {
        const b = word.box;
        out.push({
          ...word,
          box: {
            x0: left + (b.x0 - 16) / enlarge,
            y0: top + (b.y0 - 16) / enlarge,
            x1: left + (b.x1 - 16) / enlarge,
            y1: top + (b.y1 - 16) / enlarge,
          },
        });
      }
    }
    return out;
  }

  private async words(card: CardImage, masks: readonly TextBox[]): Promise<TextWord[]> {
    const grey = await sharp(card.rgb, { raw: { width: card.width, height: card.height, channels: 3 } })
      .greyscale()
      .raw()
      .toBuffer();
    // Painted in the card's own background grey: pure white beside a tinted card makes tesseract's
    // global threshold take the whole card for ink, and it then reads nothing.
    const paper = paperGrey(grey);
    for (const m of masks) {
      const x0 = Math.max(0, Math.round(m.x0));
      const x1 = Math.min(card.width, Math.round(m.x1));
      for (let y = Math.max(0, Math.round(m.y0)); y < Math.min(card.height, Math.round(m.y1)); y++)
        grey.fill(paper, y * card.width + x0, y * card.width + Math.max(x0, x1));
    }
    const image = await sharp(grey, { raw: { width: card.width, height: card.height, channels: 1 } })
      .png({ compressionLevel: 1 })
      .toBuffer();
    return this.pool.run(async (w) => {
      await w.setParameters({ tessedit_pageseg_mode: PSM.SPARSE_TEXT });
      return wordsOf((await w.recognize(image, {}, { blocks: true, text: false })).data);
    });
  }

  close(): Promise<void> {
    return this.pool.close();
  }
}
