import path from 'node:path';
import sharp from 'sharp';
import { PSM, type Page, type Worker } from 'tesseract.js';
import { defaultModelsDir } from '../../models-dir.js';
import { RecyclingPool } from '../ocr/recycling-pool.js';
import { createLocalWorker } from '../ocr/tesseract-worker.js';
import { rowBelow, type TextBox, type TextWord } from './text-lines.js';

function wordsOf(data: Page): TextWord[] {
  const found: TextWord[] = [];
  for (const block of data.blocks ?? [])
    for (const paragraph of block.paragraphs)
      for (const line of paragraph.lines)
        for (const word of line.words) {
          // Long dashes as the card's own dash; what tesseract is sure of next to nothing is a guilloche's noise.
          const text = word.text.trim().replace(/[–—]/g, '-');
          const confidence = Math.round(word.confidence);
          const mark = !/[\p{L}\p{N}]/u.test(text);
          const separator = /^[-,]$/.test(text);
          const noise = /^[|¦]+$/.test(text) || (!separator && confidence < (mark ? 2 * NOISE : NOISE));
          if (text && !noise) found.push({ text, confidence, box: { ...word.bbox } });
        }
  return found;
}

/** Under this confidence a word read is noise (a guilloche's or hologram's pattern), not print. */
const NOISE = 20;

/** Paper between the regions stacked for one reading, enlarged pixels. */
const MOSAIC_MARGIN = 24;

/** Room added above a detected line, as a share of its height. */
const ACCENT_ROOM = 0.2;

/** Height each detected line is scaled to before reading, pixels (its box, margins included). */
const LINE_HEIGHT = 48;

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

/**
 * A word's box kept to its line's rows: a detected line's band is grown past its ink into the
 * lines above and below, and a word OCR stretched over a neighbour's strokes or its own accents
 * would look taller than its line or on another row to the field assignment.
 */
function withinCore(box: TextBox, core: TextBox): TextBox {
  const [y0, y1] = [Math.max(box.y0, core.y0), Math.min(box.y1, core.y1)];
  return y1 - y0 >= OWN_LINE_SHARE * (core.y1 - core.y0) ? { ...box, y0, y1 } : box;
}

/** A word sharing less of its line's height than this is a neighbour's fragment (or a mark): its box is left as read. */
const OWN_LINE_SHARE = 0.3;

/**
 * The lines below a line that its band reaches into: a detected box is grown back by about its
 * height on every side, and tesseract reads a close neighbour's tops in the band as a second row,
 * losing words of the first.
 */
function linesBelow(box: TextBox, boxes: readonly TextBox[]): TextBox[] {
  return boxes.filter((other) => other !== box && rowBelow(box, other) > 0 && other.y0 < box.y1);
}

/**
 * The row between from and to whose pixels in [x0, x1) are least dark below the paper, summed: the
 * gap between two lines, where a faint label's strokes still count as ink.
 */
function palestRow(grey: Uint8Array, width: number, x0: number, x1: number, from: number, to: number, paper: number): number {
  const [c0, c1] = [Math.max(0, Math.floor(x0)), Math.min(width, Math.ceil(x1))];
  let [best, least] = [(from + to) / 2, Infinity];
  const last = Math.min(Math.ceil(to), grey.length / width);
  for (let y = Math.max(0, Math.floor(from)); y < last; y++) {
    let dark = 0;
    for (let x = c0; x < c1; x++) dark += Math.max(0, paper - grey[y * width + x]!);
    if (dark < least) [best, least] = [y, dark];
  }
  return best;
}

/** A region of a grey page, copied, with the boxes given painted over in the paper's grey. */
function cropPainted(
  grey: Uint8Array,
  pageWidth: number,
  at: { left: number; top: number; w: number; h: number },
  paint: readonly TextBox[],
  paper: number,
): Uint8Array {
  const { left, top, w, h } = at;
  const out = new Uint8Array(w * h);
  for (let r = 0; r < h; r++) out.set(grey.subarray((top + r) * pageWidth + left, (top + r) * pageWidth + left + w), r * w);
  for (const b of paint) {
    const [c0, c1] = [Math.max(0, Math.floor(b.x0) - left), Math.min(w, Math.ceil(b.x1) - left)];
    for (let r = Math.max(0, Math.floor(b.y0) - top); r < Math.min(h, Math.ceil(b.y1) - top) && c0 < c1; r++)
      out.fill(paper, r * w + c0, r * w + c1);
  }
  return out;
}

/** A rectified card side, packed RGB. */
export interface CardImage {
  rgb: Uint8Array;
  width: number;
  height: number;
}

/**
 * The printed text of a card side read by tesseract's `spa` model, in the regions given (the lines
 * a detector found, words to read again): each stacked into one image, read in one call.
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

  /**
   * The words in a few regions of the side, enlarged (twice by default): an isolated letter (a sex,
   * an ejemplar) or small print that a first reading misses or misreads. A word the region's edge
   * cut through is only part of one, and is dropped.
   */
  readRegions(card: CardImage, regions: readonly TextBox[], enlarge = 2): Promise<TextWord[]> {
    return this.readScaled(
      card,
      regions.map((box) => ({ box, scale: enlarge })),
      true,
    );
  }

  /**
   * The words of text lines found by a detector, each line scaled to one height: small labels and
   * large values alike at the size tesseract reads best.
   */
  readLines(card: CardImage, boxes: readonly TextBox[], lineHeight = LINE_HEIGHT): Promise<TextWord[]> {
    return this.readScaled(
      card,
      boxes.map((box) => {
        // The detector's box is the line's ink core: capital accents (Á, Ó, Ñ's tilde) stand above it.
        const h = box.y1 - box.y0;
        const tall = { ...box, y0: box.y0 - h * ACCENT_ROOM };
        return { box: tall, scale: lineHeight / (tall.y1 - tall.y0), core: box, below: linesBelow(box, boxes) };
      }),
      false,
    );
  }

  /** Regions cut out, each scaled by its own factor, stacked into one image and read at once. */
  private async readScaled(
    card: CardImage,
    regions: readonly { box: TextBox; scale: number; core?: TextBox; below?: readonly TextBox[] }[],
    dropCut: boolean,
  ): Promise<TextWord[]> {
    const grey = await sharp(card.rgb, { raw: { width: card.width, height: card.height, channels: 3 } })
      .greyscale()
      .raw()
      .toBuffer();
    const paper = paperGrey(grey);
    const bands: {
      left: number;
      top: number;
      scale: number;
      core: TextBox | undefined;
      y: number;
      width: number;
      height: number;
      image: Buffer;
    }[] = [];
    let y = MOSAIC_MARGIN;
    for (const { box, scale, core, below } of regions) {
      const left = Math.max(0, Math.floor(box.x0));
      const top = Math.max(0, Math.floor(box.y0));
      const w = Math.min(card.width, Math.ceil(box.x1)) - left;
      const h = Math.min(card.height, Math.ceil(box.y1)) - top;
      if (w < 4 || h < 4 || !(scale > 0)) continue;
      const [width, height] = [Math.max(8, Math.round(w * scale)), Math.max(8, Math.round(h * scale))];
      // A line below is painted out from the gap between the two down, never above this line's middle.
      const middle = ((core ?? box).y0 + (core ?? box).y1) / 2;
      const theirs = (below ?? []).map((o) => {
        const gap = palestRow(grey, card.width, Math.max(o.x0, box.x0), Math.min(o.x1, box.x1), o.y0, box.y1, paper);
        return { ...o, y0: Math.max(gap, middle) };
      });
      const cut = cropPainted(grey, card.width, { left, top, w, h }, theirs, paper);
      const image = await sharp(cut, { raw: { width: w, height: h, channels: 1 } })
        .resize({ width, height, fit: 'fill' })
        .png({ compressionLevel: 1 })
        .toBuffer();
      bands.push({ left, top, scale, core, y, width, height, image });
      y += height + MOSAIC_MARGIN;
    }
    if (!bands.length) return [];
    const mosaic = await sharp({
      create: {
        width: Math.max(...bands.map((b) => b.width)) + 2 * MOSAIC_MARGIN,
        height: y,
        channels: 3,
        background: { r: paper, g: paper, b: paper },
      },
    })
      .composite(bands.map((b) => ({ input: b.image, left: MOSAIC_MARGIN, top: b.y })))
      .greyscale()
      .png({ compressionLevel: 1 })
      .toBuffer();
    const words = await this.pool.run(async (w) => {
      await w.setParameters({ tessedit_pageseg_mode: PSM.SINGLE_BLOCK });
      return wordsOf((await w.recognize(mosaic, {}, { blocks: true, text: false })).data);
    });
    const out: TextWord[] = [];
    for (const word of words) {
      const b = word.box;
      const middle = (b.y0 + b.y1) / 2;
      const band = bands.find((x) => middle >= x.y - MOSAIC_MARGIN / 2 && middle < x.y + x.height + MOSAIC_MARGIN / 2);
      if (!band) continue;
      const [x0, x1] = [b.x0 - MOSAIC_MARGIN, b.x1 - MOSAIC_MARGIN];
      if (dropCut && (x0 <= 1 || x1 >= band.width - 1)) continue;
      const box = {
        x0: band.left + x0 / band.scale,
        y0: band.top + Math.max(0, b.y0 - band.y) / band.scale,
        x1: band.left + x1 / band.scale,
        y1: band.top + Math.min(band.height, b.y1 - band.y) / band.scale,
      };
      out.push({ ...word, box: band.core ? withinCore(box, band.core) : box });
    }
    return out;
  }

  close(): Promise<void> {
    return this.pool.close();
  }
}
