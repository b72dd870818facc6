import sharp from 'sharp';
import { decodeRgb } from '../../imaging/decode-image.js';
import { CANONICAL_HEIGHT, CANONICAL_WIDTH, captureQuality, locateCard, type CaptureQuality } from './card/locate-card.js';
import { DNI_2012_BACK, DNI_2012_FRONT, type FrontField } from './layout/dni-layout.js';
import { MrzReader } from './mrz/read-mrz.js';
import { PrintedFieldReader, type PrintedField } from './ocr/read-printed-fields.js';
import { parseTd1, type Td1Result } from './mrz/td1-parser.js';
import { decodePdf417 } from './pdf417/decode-pdf417.js';
import { parseDniPayload, type DniPayload, type UnrecognisedPayload } from './pdf417/dni-payload.js';

export interface SideOptions {
  pdf417: boolean;
  mrz: boolean;
  /** OCR of the printed text: the back's address and place of birth; the front's fields when its barcode fails. */
  text: boolean;
  declaredSide?: 'front' | 'back' | undefined;
}

export interface SideReading {
  card: { method: 'edges' | 'frame'; edgeStrength: number; corners: [number, number][] };
  quality: CaptureQuality;
  /** The card rectified to the canonical 1011 x 638 (300 dpi), JPEG. */
  rectifiedJpeg: Uint8Array;
  pdf417: { payload: DniPayload | UnrecognisedPayload; decoder: string; step: string; ms: number } | null;
  mrz: { parsed: Td1Result; confidence: number[]; ms: number } | null;
  printed: { side: 'front' | 'back'; fields: Record<string, PrintedField> } | null;
  timings: Record<string, number>;
}

const LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZÑÁÉÍÓÚÜ '-";
const DATE = '0123456789/';
const FRONT_WHITELISTS: Partial<Record<FrontField, string>> = {
  surname: LETTERS,
  givenNames: LETTERS,
  sex: 'MFX',
  sequence: 'ABCDEFGHIJKLMNOPQRSTUVWXYZ',
  dateOfBirth: DATE,
  issuingDate: DATE,
  expirationDate: DATE,
  documentNumber: '0123456789.',
  order: 'TrámiteN°0123456789 ',
};

/** The MRZ of a TD1 card fills its bottom 17 mm or so: read from 33 mm down, full width. */
const MRZ_ZONE_TOP = Math.round((33 / 54) * CANONICAL_HEIGHT);

/**
 * Reads one side of a DNI: finds and rectifies the card, measures blur and glare, decodes any
 * PDF417 and reads any MRZ. Sides are not assumed: the front of a 2012+ card and the back of a
 * 2009 one both carry a PDF417; the back of a 2012+ card carries the MRZ.
 */
export class CardSideReader {
  private readonly mrz: MrzReader;
  private readonly text: PrintedFieldReader;

  constructor(private readonly modelsDir: string) {
    this.mrz = new MrzReader({ modelsDir, poolSize: 1 });
    this.text = new PrintedFieldReader({ modelsDir, poolSize: 1 });
  }

  async ready(): Promise<void> {
    await Promise.all([this.mrz.ready(), this.text.ready()]);
  }

  async read(image: Uint8Array, options: SideOptions): Promise<SideReading> {
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
      const found =
        (await decodePdf417(input, { modelsDir: this.modelsDir, timeBudgetMs: 1500 })) ??
        (card.method === 'edges' ? null : await decodePdf417(image, { modelsDir: this.modelsDir, timeBudgetMs: 800 }));
      lap('pdf417');
      return found ? { payload: parseDniPayload(found.bytes), decoder: found.decoder, step: found.step, ms: found.ms } : null;
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
      // Three lines of text are an MRZ only if they look like one: an ID document code or a check digit that holds.
      const looksLikeMrz = parsed.lines[0].startsWith('I') || Object.values(parsed.checks).some((c) => c.valid);
      return looksLikeMrz ? { parsed, confidence: read.lines.map((l) => l.confidence), ms: read.ms } : null;
    };

    let pdf417: SideReading['pdf417'] = null;
    let mrz: SideReading['mrz'] = null;
    let backText: Promise<Record<string, PrintedField>> | null = null;
    if (options.declaredSide === 'back' && options.mrz) {
      // A 2012+ back carries the MRZ and no barcode: look for the MRZ first (its absence costs ~0.2 s, a
      // barcode search up to 1.5 s), reading the back's printed text meanwhile on the other worker.
      if (options.text) {
        backText = this.text.read(card, DNI_2012_BACK);
        backText.catch(() => undefined);
      }
      mrz = await readMrz();
      if (!mrz && options.pdf417) pdf417 = await readPdf417();
    } else {
      if (options.pdf417) pdf417 = await readPdf417();
      const layout = pdf417?.payload.layout;
      if (options.mrz && layout !== 'front-2012' && layout !== 'back-2009') mrz = await readMrz();
    }

    let printed: SideReading['printed'] = null;
    if (options.text) {
      if (mrz) {
        printed = { side: 'back', fields: await (backText ?? this.text.read(card, DNI_2012_BACK)) };
      } else if (
        options.declaredSide !== 'back' &&
        !(pdf417?.payload.layout === 'front-2012' && pdf417.payload.valid) &&
        pdf417?.payload.layout !== 'back-2009'
      ) {
        printed = { side: 'front', fields: await this.text.read(card, DNI_2012_FRONT.fields, FRONT_WHITELISTS) };
      } else if (pdf417?.payload.layout === 'front-2012') {
        // The 2012+ barcode has no expiry date: read the printed one (the MRZ, if captured, confirms it).
        const { expirationDate } = DNI_2012_FRONT.fields;
        printed = {
          side: 'front',
          fields: await this.text.read(card, { expirationDate }, { expirationDate: FRONT_WHITELISTS.expirationDate }),
        };
      }
      await backText?.catch(() => undefined); // never leave a read running into the next request
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
    await Promise.all([this.mrz.close(), this.text.close()]);
  }
}
