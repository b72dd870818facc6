import path from 'node:path';
import sharp from 'sharp';
import { PSM, type Worker } from 'tesseract.js';
import { defaultModelsDir } from '../../models-dir.js';
import type { FieldBox } from '../layout/dni-layout.js';
import { RecyclingPool } from './recycling-pool.js';
import { createLocalWorker } from './tesseract-worker.js';

export interface PrintedField {
  text: string;
  /** Tesseract's mean word confidence, 0-100. */
  confidence: number;
}

const MM_PER_CARD_WIDTH = 85.6;

/**
 * OCR of printed fields with the `spa` model: each field cropped from the rectified card by its
 * layout box, enlarged, read as one line (PSM 7) with the characters its kind allows.
 */
export class PrintedFieldReader {
  private readonly pool: RecyclingPool<Worker>;

  constructor(options: { modelsDir?: string; poolSize?: number } = {}) {
    const langDir = path.join(options.modelsDir ?? defaultModelsDir(), 'tesseract');
    this.pool = new RecyclingPool<Worker>({
      size: options.poolSize ?? 1,
      recycleAfter: 300,
      create: async () => {
        const w = await createLocalWorker({ langDir, lang: 'spa', gzip: true });
        await w.setParameters({ tessedit_pageseg_mode: PSM.SINGLE_LINE, user_defined_dpi: '300' });
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

  /** Reads the given fields of a rectified card (packed RGB at `width` pixels for 85.6 mm). */
  async read<K extends string>(
    card: { rgb: Uint8Array; width: number; height: number },
    fields: Record<K, FieldBox>,
    whitelists: Partial<Record<K, string>> = {},
  ): Promise<Record<K, PrintedField>> {
    const pxPerMm = card.width / MM_PER_CARD_WIDTH;
    const base = sharp(card.rgb, { raw: { width: card.width, height: card.height, channels: 3 } });
    const out = {} as Record<K, PrintedField>;
    for (const [name, box] of Object.entries(fields) as [K, FieldBox][]) {
      const left = Math.max(0, Math.round(box.x * pxPerMm));
      const top = Math.max(0, Math.round(box.y * pxPerMm));
      const width = Math.min(card.width - left, Math.round(box.width * pxPerMm));
      const height = Math.min(card.height - top, Math.round(box.height * pxPerMm));
      const crop = await base
        .clone()
        .extract({ left, top, width, height })
        .greyscale()
        .normalise()
        .resize({ height: Math.max(48, height * 2) })
        .extend({ top: 12, bottom: 12, left: 12, right: 12, background: '#ffffff' })
        .png()
        .toBuffer();
      out[name] = await this.pool.run(async (w) => {
        await w.setParameters({ tessedit_char_whitelist: whitelists[name] ?? '' });
        const { data } = await w.recognize(crop);
        return { text: data.text.replace(/\s+/g, ' ').trim(), confidence: Math.round(data.confidence) };
      });
    }
    return out;
  }

  close(): Promise<void> {
    return this.pool.close();
  }
}
