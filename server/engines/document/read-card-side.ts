import sharp from 'sharp';
import { decodeRgb } from '../../imaging/index.js';
import { CANONICAL_HEIGHT, CANONICAL_WIDTH, captureQuality, locateCard, type CaptureQuality } from './card/locate-card.js';
import { MrzReader } from './mrz/read-mrz.js';
import { parseTd1, type Td1Result } from './mrz/td1-parser.js';
import { decodePdf417 } from './pdf417/decode-pdf417.js';
import { outsideMasks, TextLineDetector } from './text/detect-text-lines.js';
import { CardTextReader, type CardImage } from './text/read-card-text.js';
import { estimateSkew } from './skew.js';
import { readDniFields, type DniTextField, type DniTextFields } from './text/dni-text-fields.js';
import { groupWords, overlapShare, type TextBox, type TextLine, type TextWord } from './text/text-lines.js';
import { parseDniPayload, type DniPayload, type UnrecognisedPayload } from './pdf417/dni-payload.js';

export interface SideOptions {
  pdf417: boolean;
  mrz: boolean;
  /** OCR of the printed text, wherever it sits: every field's label and value on either side. */
  text: boolean;
  declaredSide?: 'front' | 'back' | undefined;
}

export interface SideReading {
  card: { method: 'edges' | 'frame'; edgeStrength: number; corners: [number, number][] };
  quality: CaptureQuality;
  /** The card rectified to the canonical 1011 x 638 (300 dpi), JPEG. */
  rectifiedJpeg: Uint8Array;
  pdf417: {
    payload: DniPayload | UnrecognisedPayload;
    decoder: string;
    step: string;
    ms: number;
    /** The symbol's box on the rectified card, when the decoder said where it was. */
    box: TextBox | null;
  } | null;
  mrz: { parsed: Td1Result; confidence: number[]; ms: number } | null;
  /** The printed fields found by their labels and patterns, and the lines they came from. */
  printed: { fields: DniTextFields; lines: TextLine[] } | null;
  timings: Record<string, number>;
}

/** The MRZ of a TD1 card fills its bottom 17 mm or so: read from 33 mm down, full width. */
const MRZ_ZONE_TOP = Math.round((33 / 54) * CANONICAL_HEIGHT);
/** Printed text may reach a little into that zone; the MRZ's first line starts lower (about 37 mm). */
const MRZ_MASK_MARGIN = Math.round((2.5 / 54) * CANONICAL_HEIGHT);

/**
 * Whether a side's lines include an MRZ's: two or more lines of print over half the card wide in the
 * MRZ zone (an MRZ gives three of 0.9 widths; a front's lowest print, at most one).
 */
function looksLikeMrzLines(boxes: readonly TextBox[]): boolean {
  const top = MRZ_ZONE_TOP + MRZ_MASK_MARGIN;
  return boxes.filter((b) => (b.y0 + b.y1) / 2 > top && b.x1 - b.x0 > CANONICAL_WIDTH / 2).length >= 2;
}

/** Whether a side gave anything to go on: a code, or a few printed fields. */
const readSomething = (r: SideReading): boolean =>
  r.pdf417 !== null || r.mrz !== null || Object.keys(r.printed?.fields ?? {}).length >= 3;

async function turned(image: Uint8Array, degrees: number): Promise<Uint8Array> {
  return new Uint8Array(await sharp(image).autoOrient().rotate(degrees).png({ compressionLevel: 1 }).toBuffer());
}

/** Fields of one or two characters, which sparse reading of a whole side misses most. */
const SHORT_VALUES: ReadonlySet<DniTextField> = new Set(['sex', 'sequence']);

/** Below this OCR confidence a word of a card's print is read again on its own. */
const DOUBTFUL_CONFIDENCE = 60;

/** Runs of doubtful words on a line (each a region around them), at most a handful per side. */
function doubtfulRuns(lines: readonly TextLine[]): TextBox[] {
  const out: TextBox[] = [];
  for (const line of lines) {
    let run: TextWord[] = [];
    const flush = () => {
      if (!run.length) return;
      const h = Math.max(...run.map((w) => w.box.y1 - w.box.y0));
      out.push({
        x0: Math.min(...run.map((w) => w.box.x0)) - h * 0.6,
        y0: Math.min(...run.map((w) => w.box.y0)) - h * 0.4,
        x1: Math.max(...run.map((w) => w.box.x1)) + h * 0.6,
        y1: Math.max(...run.map((w) => w.box.y1)) + h * 0.4,
      });
      run = [];
    };
    for (const w of line.words) {
      if (w.confidence < DOUBTFUL_CONFIDENCE && /[\p{L}\p{N}]/u.test(w.text) && w.box.y1 - w.box.y0 >= 6) run.push(w);
      else flush();
    }
    flush();
  }
  return out.slice(0, 8);
}

/** Under this residual skew (degrees) a rectified side is read as it is. */
const LEVEL_FROM = 0.75;

/**
 * The rectified side with its lines of print levelled: edges found on a shrunk frame leave a degree
 * or so of skew, enough for the detector's upright boxes to take a line's end with the next line's.
 */
async function levelled(card: CardImage): Promise<CardImage> {
  const raw = { raw: { width: card.width, height: card.height, channels: 3 as const } };
  const small = await sharp(card.rgb, raw).greyscale().resize({ width: 320 }).raw().toBuffer({ resolveWithObject: true });
  const skew = estimateSkew(new Uint8Array(small.data), small.info.width, small.info.height);
  if (Math.abs(skew) < LEVEL_FROM) return card;
  const turned = await sharp(card.rgb, raw).rotate(-skew, { background: '#ffffff' }).raw().toBuffer({ resolveWithObject: true });
  const left = Math.floor((turned.info.width - card.width) / 2);
  const top = Math.floor((turned.info.height - card.height) / 2);
  const rgb = await sharp(turned.data, { raw: { width: turned.info.width, height: turned.info.height, channels: 3 } })
    .extract({ left, top, width: card.width, height: card.height })
    .raw()
    .toBuffer();
  return { rgb: new Uint8Array(rgb), width: card.width, height: card.height };
}

/** The symbol's corners as a box, with its quiet zone: a tenth of its size around it. */
function symbolBox(corners: readonly [number, number][]): TextBox {
  const xs = corners.map((c) => c[0]);
  const ys = corners.map((c) => c[1]);
  const [x0, x1, y0, y1] = [Math.min(...xs), Math.max(...xs), Math.min(...ys), Math.max(...ys)];
  const mx = (x1 - x0) * 0.05 + 4;
  const my = (y1 - y0) * 0.1 + 4;
  return { x0: x0 - mx, y0: y0 - my, x1: x1 + mx, y1: y1 + my };
}

/**
 * Reads one side of a DNI: finds and rectifies the card, measures blur and glare, decodes any
 * PDF417 and reads any MRZ. Sides are not assumed: the front of a 2012+ card and the back of a
 * 2009 one both carry a PDF417; the back of a 2012+ card carries the MRZ.
 */
export class CardSideReader {
  private readonly mrz: MrzReader;
  private readonly text: CardTextReader;
  private detecting: Promise<TextLineDetector> | undefined;

  constructor(private readonly modelsDir: string) {
    this.mrz = new MrzReader({ modelsDir, poolSize: 1 });
    // Two: a card's front and back are read at once, one per core.
    this.text = new CardTextReader({ modelsDir, poolSize: 2 });
  }

  async ready(): Promise<void> {
    await Promise.all([this.mrz.ready(), this.text.ready(), this.detector()]);
  }

  private detector(): Promise<TextLineDetector> {
    return (this.detecting ??= TextLineDetector.load(this.modelsDir));
  }

  /**
   * The side as captured, and turned where it reads as nothing: a portrait-shaped photo of a
   * landscape card a quarter turn first; a side from which nothing was read, upside down.
   */
  async read(image: Uint8Array, options: SideOptions): Promise<SideReading> {
    const meta = await sharp(image).metadata();
    const [w, h] = (meta.orientation ?? 1) >= 5 ? [meta.height ?? 0, meta.width ?? 0] : [meta.width ?? 0, meta.height ?? 0];
    const upright = h > w * 1.15 ? await turned(image, 90) : image;
    const first = await this.readAsIs(upright, options);
    if (readSomething(first)) return first;
    const flipped = await this.readAsIs(await turned(upright, 180), options);
    return readSomething(flipped) ? { ...flipped, timings: { ...first.timings, turned: 180, ...flipped.timings } } : first;
  }

  private async readAsIs(image: Uint8Array, options: SideOptions): Promise<SideReading> {
    const timings: Record<string, number> = {};
    let t = performance.now();
    const lap = (name: string) => {
      const now = performance.now();
      timings[name] = Math.round(now - t);
      t = now;
    };
    const decoded = await decodeRgb(image);
    const card = locateCard(decoded.rgb, decoded.width, decoded.height);
    const quality = captureQuality(card);
    lap('locate');
    const rectified = sharp(card.rgb, { raw: { width: card.width, height: card.height, channels: 3 } });
    const rectifiedJpeg = new Uint8Array(await rectified.clone().jpeg({ quality: 90 }).toBuffer());
    const grey = await rectified.clone().greyscale().raw().toBuffer();
    lap('rectify');

    const readPdf417 = async (): Promise<SideReading['pdf417']> => {
      const input = {
        data: new Uint8Array(grey.buffer, grey.byteOffset, grey.byteLength),
        width: CANONICAL_WIDTH,
        height: CANONICAL_HEIGHT,
        channels: 1 as const,
      };
      // The rectified card first; the frame as captured when the card was not found cleanly.
      const onCard = await decodePdf417(input, { modelsDir: this.modelsDir, timeBudgetMs: 1500 });
      const found =
        onCard ?? (card.method === 'edges' ? null : await decodePdf417(image, { modelsDir: this.modelsDir, timeBudgetMs: 800 }));
      lap('pdf417');
      if (!found) return null;
      return {
        payload: parseDniPayload(found.bytes),
        decoder: found.decoder,
        step: found.step,
        ms: found.ms,
        box: onCard?.corners ? symbolBox(onCard.corners) : null,
      };
    };
    const readMrz = async (): Promise<SideReading['mrz']> => {
      const zone = await rectified
        .clone()
        .extract({ left: 0, top: MRZ_ZONE_TOP, width: CANONICAL_WIDTH, height: CANONICAL_HEIGHT - MRZ_ZONE_TOP })
        .png()
        .toBuffer();
      const read = await this.mrz.read(new Uint8Array(zone));
      lap('mrz');
      if (!read.lines) return null;
      const parsed = parseTd1(read.lines.map((l) => l.text));
      // Three lines of text are an MRZ only if they look like one: a TD1 document code and a check digit
      // that holds, or two that hold (one holds by chance in a tenth of the text read off a front).
      const holding = Object.values(parsed.checks).filter((c) => c.valid).length;
      const looksLikeMrz = holding >= 2 || (holding === 1 && /^[IAC]/.test(parsed.lines[0]));
      return looksLikeMrz ? { parsed, confidence: read.lines.map((l) => l.confidence), ms: read.ms } : null;
    };

    let pdf417: SideReading['pdf417'] = null;
    let mrz: SideReading['mrz'] = null;
    let levelledPage: Promise<CardImage> | undefined;
    const pageOf = () => (levelledPage ??= levelled(card));
    /** The lines found on a declared front before its MRZ was looked for. */
    let frontLines: TextBox[] | null = null;
    if (options.declaredSide === 'back' && options.mrz) {
      // A 2012+ back carries the MRZ and no barcode: look for the MRZ first (its absence costs ~0.2 s,
      // a barcode search up to 1.5 s).
      mrz = await readMrz();
      if (!mrz?.parsed.valid && options.pdf417) {
        pdf417 = await readPdf417();
        // A front sent as the back: what looked like an MRZ was its print.
        if (pdf417?.payload.layout === 'front-2012') mrz = null;
      }
    } else {
      if (options.pdf417) pdf417 = await readPdf417();
      const layout = pdf417?.payload.layout;
      if (options.mrz && layout !== 'front-2012' && layout !== 'back-2009') {
        if (options.declaredSide === 'front' && options.text) {
          // A front carries no MRZ: it is read only where the detector sees one's long lines (a back
          // sent as the front), which spares a 2009 front ~0.45 s of MRZ OCR.
          const [detector, page] = await Promise.all([this.detector(), pageOf()]);
          frontLines = await detector.detect(page, pdf417?.box ? [pdf417.box] : []);
          lap('detect');
          if (looksLikeMrzLines(frontLines)) mrz = await readMrz();
        } else mrz = await readMrz();
      }
    }

    let printed: SideReading['printed'] = null;
    if (options.text) {
      // What the machine-readable zones hold is read already: left out, it costs OCR no time.
      const masks: TextBox[] = [];
      if (mrz) masks.push({ x0: 0, y0: MRZ_ZONE_TOP + MRZ_MASK_MARGIN, x1: CANONICAL_WIDTH, y1: CANONICAL_HEIGHT });
      if (pdf417?.box) masks.push(pdf417.box);
      // Lines found by the detector, each read at one height: small labels and large values alike.
      const [detector, page] = await Promise.all([this.detector(), pageOf()]);
      const boxes = frontLines ? outsideMasks(frontLines, masks) : await detector.detect(page, masks);
      let lines = groupWords(await this.text.readLines(page, boxes));
      // Words read with little confidence (small print beside large, a faint label): read again
      // alone, enlarged, and kept where the second reading is the surer.
      const doubtful = doubtfulRuns(lines);
      if (doubtful.length) {
        const again = await this.text.readRegions(page, doubtful, 3);
        const known = lines.flatMap((l) => l.words);
        const replaced = new Set<TextWord>();
        const better: TextWord[] = [];
        const mean = (ws: TextWord[]) => ws.reduce((a, w) => a + w.confidence, 0) / Math.max(1, ws.length);
        for (const box of doubtful) {
          const old = known.filter((k) => overlapShare(box, k.box) > 0.5);
          const fresh = again.filter(
            (w) =>
              overlapShare(box, w.box) > 0.5 &&
              // Not a word the first reading has whole beside the region, nor one already taken.
              !known.some((k) => !old.includes(k) && overlapShare(k.box, w.box) > 0.3) &&
              !better.some((b) => overlapShare(b.box, w.box) > 0.5),
          );
          if (fresh.length && mean(fresh) > mean(old) + 10) {
            for (const w of old) replaced.add(w);
            better.push(...fresh);
          }
        }
        if (better.length) lines = groupWords([...known.filter((w) => !replaced.has(w)), ...better]);
      }
      const side =
        mrz || pdf417?.payload.layout === 'back-2009' ? 'back' : pdf417?.payload.layout === 'front-2012' ? 'front' : null;
      let read = readDniFields(lines, side);
      // A value its label was read without (an isolated letter, a faint word): its region read again, closer.
      const again = read.unread.filter((u) => SHORT_VALUES.has(u.field) || read.unread.length <= 3);
      if (again.length) {
        const words = await this.text.readRegions(
          page,
          again.map((u) => u.region),
        );
        const known = lines.flatMap((l) => l.words);
        const fresh = words.filter((w) => !known.some((k) => overlapShare(k.box, w.box) > 0.5));
        if (fresh.length) {
          lines = groupWords([...known, ...fresh]);
          read = readDniFields(lines, side);
        }
      }
      printed = { fields: read.fields, lines };
      lap('ocr');
    }
    return {
      card: { method: card.method, edgeStrength: card.edgeStrength, corners: card.corners.map((p) => [p[0], p[1]]) },
      quality,
      rectifiedJpeg,
      pdf417,
      mrz,
      printed,
      timings,
    };
  }

  async close(): Promise<void> {
    await Promise.all([this.mrz.close(), this.text.close(), this.detecting?.then((d) => d.close())]);
  }
}
