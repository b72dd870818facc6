import path from 'node:path';
import sharp from 'sharp';
import { PSM, type Worker } from 'tesseract.js';
import { defaultModelsDir } from '../../models-dir.js';
import { RecyclingPool } from '../ocr/recycling-pool.js';
import { createLocalWorker } from '../ocr/tesseract-worker.js';
import { estimateSkew } from '../skew.js';
import { TD1_LINE_LENGTH } from './td1-parser.js';

/**
 * OCR of a TD1 MRZ zone with tesseract.js and the OCR-B model `mrz.traineddata` (BSD-3, from
 * DoubangoTelecom/tesseractMRZ; `eng` misreads `<`). The input is a crop of the 3-line zone, roughly
 * deskewed (an axis-aligned crop of a skewed MRZ cuts into neighbouring lines). The whole zone is
 * read as one block (PSM 6); if that does not give three MRZ-length lines, the zone is cut into
 * three bands by its ink profile and each is read as a single line (PSM 7).
 * What comes back is text, not truth: validate it with the check digits (parseTd1).
 */

const MRZ_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789<';

export interface MrzOcrLine {
  /** Normalised to 30 characters (filler added or extra characters cut). */
  text: string;
  /** As the OCR returned it, spaces removed. */
  raw: string;
  /** Tesseract's mean confidence for the line, 0-100. */
  confidence: number;
}

export interface MrzOcrResult {
  /** Three lines, or null if three MRZ-like lines were not found. */
  lines: [MrzOcrLine, MrzOcrLine, MrzOcrLine] | null;
  mode: 'zone' | 'lines';
  /** Skew found and corrected before reading, degrees clockwise. */
  skewDegrees: number;
  ms: number;
}

export interface MrzReaderOptions {
  modelsDir?: string;
  /** Warm workers (default 2: one per core on the station). */
  poolSize?: number;
  /** Replace a worker after this many reads (default 200). */
  recycleAfter?: number;
  workerStartTimeoutMs?: number;
}

/** Pads with filler or cuts to 30 characters (OCR tends to drop or add a trailing `<`). */
export function normaliseMrzLine(s: string): string {
  const clean = s.toUpperCase().replace(/[^A-Z0-9<]/g, '');
  return clean.length >= TD1_LINE_LENGTH ? clean.slice(0, TD1_LINE_LENGTH) : clean + '<'.repeat(TD1_LINE_LENGTH - clean.length);
}

/** The three rows of ink in a greyscale zone crop (y ranges), from its horizontal projection. */
export function mrzLineBands(data: Uint8Array, width: number, height: number): [number, number][] {
  let min = 255;
  let max = 0;
  for (const v of data) {
    if (v < min) min = v;
    if (v > max) max = v;
  }
  const threshold = (min + max) / 2;
  const ink = new Array<number>(height).fill(0);
  for (let y = 0; y < height; y++) {
    let n = 0;
    for (let x = 0; x < width; x++) if ((data[y * width + x] ?? 255) < threshold) n++;
    ink[y] = n;
  }
  const rowOn = Math.max(2, Math.max(...ink) * 0.08);
  const runs: [number, number, number][] = []; // start, end, ink
  let start = -1;
  let sum = 0;
  for (let y = 0; y <= height; y++) {
    const on = y < height && (ink[y] ?? 0) > rowOn;
    if (on && start < 0) [start, sum] = [y, 0];
    if (on) sum += ink[y] ?? 0;
    if (!on && start >= 0) {
      runs.push([start, y, sum]);
      start = -1;
    }
  }
  return runs
    .sort((a, b) => b[2] - a[2])
    .slice(0, 3)
    .sort((a, b) => a[0] - b[0])
    .map(([s, e]) => [s, e]);
}

export class MrzReader {
  private readonly pool: RecyclingPool<Worker>;

  constructor(options: MrzReaderOptions = {}) {
    const langDir = path.join(options.modelsDir ?? defaultModelsDir(), 'tesseract');
    this.pool = new RecyclingPool<Worker>({
      size: options.poolSize ?? 2,
      recycleAfter: options.recycleAfter ?? 200,
      create: async () => {
        const w = await createLocalWorker({ langDir, lang: 'mrz', gzip: false, timeoutMs: options.workerStartTimeoutMs });
        await w.setParameters({
          tessedit_pageseg_mode: PSM.SINGLE_BLOCK,
          tessedit_char_whitelist: MRZ_ALPHABET,
          // Without it every call warns "Invalid resolution"; the model does not care about the exact value.
          user_defined_dpi: '300',
        });
        return w;
      },
      destroy: async (w) => {
        await w.terminate();
      },
    });
  }

  /** Resolves once the workers are up (call at startup; reads also wait for it). */
  ready(): Promise<void> {
    return this.pool.ready();
  }

  get recycledWorkers(): number {
    return this.pool.recycled;
  }

  /**
   * Reads the MRZ in an image of the zone (PNG/JPEG bytes). `mode: 'lines'` skips the whole-zone
   * read and goes straight to the per-line one (for tests and measurement).
   */
  async read(image: Uint8Array, options: { mode?: 'auto' | 'lines' } = {}): Promise<MrzOcrResult> {
    const t0 = performance.now();
    const grey = await prepare(image);
    const zone =
      options.mode === 'lines'
        ? []
        : await this.pool.run(async (w) => {
            await w.setParameters({ tessedit_pageseg_mode: PSM.SINGLE_BLOCK });
            const { data } = await w.recognize(grey.png, {}, { text: true, blocks: true });
            const lines = (data.blocks ?? []).flatMap((b) => b.paragraphs.flatMap((p) => p.lines));
            return lines.map((l) => ({ raw: l.text.replace(/\s+/g, ''), confidence: l.confidence }));
          });
    const candidates = zone.filter((l) => l.raw.length >= 24);
    if (candidates.length >= 3) {
      // The three consecutive lines closest to 30 characters (noise above/below is short).
      let best = 0;
      let bestScore = Infinity;
      for (let i = 0; i + 3 <= candidates.length; i++) {
        const score = candidates.slice(i, i + 3).reduce((s, l) => s + Math.abs(l.raw.length - TD1_LINE_LENGTH), 0);
        if (score < bestScore) [best, bestScore] = [i, score];
      }
      const three = candidates.slice(best, best + 3).map((l) => ({ ...l, text: normaliseMrzLine(l.raw) }));
      return {
        lines: three as [MrzOcrLine, MrzOcrLine, MrzOcrLine],
        mode: 'zone',
        skewDegrees: grey.skew,
        ms: Math.round(performance.now() - t0),
      };
    }
    const bands = mrzLineBands(grey.data, grey.width, grey.height);
    if (bands.length < 3) return { lines: null, mode: 'lines', skewDegrees: grey.skew, ms: Math.round(performance.now() - t0) };
    const crops = await Promise.all(
      bands.map(([y0, y1]) => {
        const pad = Math.round((y1 - y0) * 0.35);
        const top = Math.max(0, y0 - pad);
        return sharp(grey.png)
          .extract({ left: 0, top, width: grey.width, height: Math.min(grey.height, y1 + pad) - top })
          .png()
          .toBuffer();
      }),
    );
    const lines = await this.pool.run(async (w) => {
      await w.setParameters({ tessedit_pageseg_mode: PSM.SINGLE_LINE });
      const out: MrzOcrLine[] = [];
      for (const crop of crops) {
        const { data } = await w.recognize(crop);
        const raw = data.text.replace(/\s+/g, '');
        out.push({ raw, text: normaliseMrzLine(raw), confidence: data.confidence });
      }
      await w.setParameters({ tessedit_pageseg_mode: PSM.SINGLE_BLOCK });
      return out;
    });
    const ok = lines.every((l) => l.raw.length >= 20);
    return {
      lines: ok ? (lines as [MrzOcrLine, MrzOcrLine, MrzOcrLine]) : null,
      mode: 'lines',
      skewDegrees: grey.skew,
      ms: Math.round(performance.now() - t0),
    };
  }

  close(): Promise<void> {
    return this.pool.close();
  }
}

/**
 * Greyscale, levelled (deskewed), contrast-stretched, scaled so a character is ~30 px wide (the
 * model reads 10-40 px pitches; tiny crops lose `<` vs `K`), with a white margin (tesseract
 * dislikes ink at the border).
 */
async function prepare(
  image: Uint8Array,
): Promise<{ png: Buffer; data: Uint8Array; width: number; height: number; skew: number }> {
  const small = await sharp(image).rotate().greyscale().resize({ width: 320 }).raw().toBuffer({ resolveWithObject: true });
  const skew = estimateSkew(
    new Uint8Array(small.data.buffer, small.data.byteOffset, small.data.length),
    small.info.width,
    small.info.height,
  );
  let base = sharp(image).rotate().greyscale();
  if (Math.abs(skew) >= 0.75) {
    // Rotating by -skew levels the lines; the new corners are white like the card margin.
    base = sharp(await base.rotate(-skew, { background: '#ffffff' }).png().toBuffer());
  }
  const meta = await base.clone().metadata();
  const width = meta.width ?? 0;
  const target = width < 600 || width > 1600 ? 960 : width;
  const s = base
    .resize({ width: target, kernel: 'cubic' })
    .normalise()
    .extend({ top: 16, bottom: 16, left: 16, right: 16, background: '#ffffff' })
    .toColourspace('b-w');
  const { data, info } = await s.raw().toBuffer({ resolveWithObject: true });
  const png = await sharp(data, { raw: { width: info.width, height: info.height, channels: 1 } })
    .png()
    .toBuffer();
  return { png, data: new Uint8Array(data.buffer, data.byteOffset, data.length), width: info.width, height: info.height, skew };
}
