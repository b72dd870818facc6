/**
 * Fictitious Argentine DNI cards with known ground truth, for tests and measurement (never shipped).
 * Text is drawn by sharp's Pango renderer with the OCR-B file in ./fonts (the MRZ face, and good
 * enough for labels: nothing depends on system fonts). Barcodes come from bwip-js with
 * `binarytext: true`, so Ñ is written as the Latin-1 byte 0xD1 (the charset real cards are assumed
 * to use; no real sample was available). The portrait is a drawn placeholder, never a photo.
 */
import path from 'node:path';
import { packageRoot } from '../../server/version.js';
import bwipjs from 'bwip-js';
import sharp, { type OverlayOptions } from 'sharp';
import { formatDmy } from '../../server/engines/document/dates.js';
import { cuilCheckDigit, formatCuil } from '../../server/engines/document/pdf417/cuil.js';
import { DNI_2012_BACK_FINGERPRINT } from '../../server/engines/document/layout/dni-layout.js';
import { DNI_2012_BACK, DNI_2012_FRONT } from './standard-layout.js';
import { applyHomography, homographyFrom, warpPerspective } from '../../server/imaging/homography.js';
import { type DniPerson, back2009Payload, frontPayload } from './dni-person.js';
import { buildTd1 } from './td1-builder.js';
import { seededRandom as rng } from '../random.js';

// From the package root, so the generator also runs compiled (npm run eval:dni).
export const OCRB_FONT_FILE = path.join(packageRoot(), 'test', 'dni', 'fonts', 'OCRB.otf');
const OCRB_FAMILY = 'OCR B';

/** ISO/IEC 7810 ID-1. */
export const CARD_WIDTH_MM = 85.6;
export const CARD_HEIGHT_MM = 54;

/** Printed on every synthetic 2012+ back. */
export const PLACE_OF_BIRTH = 'CIUDAD FICTICIA';

export type CardSide = 'front-2012' | 'back-2012' | 'front-2009' | 'back-2009';

export interface Box {
  x: number;
  y: number;
  width: number;
  height: number;
}

export interface CardTruth {
  side: CardSide;
  person: DniPerson;
  /** PDF417 payload as text, and the exact bytes in the symbol (Latin-1). */
  payload?: string;
  payloadBytes?: Buffer;
  mrzLines?: [string, string, string];
  boxes: { pdf417?: Box; mrzZone?: Box; mrzLines?: Box[]; portrait?: Box };
}

export interface RenderedCard {
  image: Buffer; // PNG
  width: number;
  height: number;
  dpi: number;
  truth: CardTruth;
}

export interface RenderOptions {
  dpi?: number;
  /** A photo for the portrait (tests of the face match); a drawn placeholder otherwise. */
  portraitPhoto?: Buffer;
  /** PDF417 module width in mm (real cards: unmeasured; 0.254 mm reads well at >= 225 dpi). */
  moduleMm?: number;
}

export const escapeMarkup = (s: string): string => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

async function textLayer(
  text: string,
  pt: number,
  dpi: number,
  colour = '#000000',
): Promise<{ input: Buffer; width: number; height: number }> {
  const { data, info } = await sharp({
    text: {
      text: `<span foreground="${colour}">${escapeMarkup(text)}</span>`,
      fontfile: OCRB_FONT_FILE,
      font: `${OCRB_FAMILY} ${pt}`,
      dpi,
      rgba: true,
    },
  })
    .png()
    .toBuffer({ resolveWithObject: true });
  return { input: data, width: info.width, height: info.height };
}

/** Guilloche shape; the defaults are the fixed cards' (random layouts vary them). */
export interface Guilloche {
  lines: number;
  /** Wave period as a fraction of the width divided by 2π (w / 9 by default). */
  periodDiv: number;
  /** Wave amplitude as a fraction of the height (h / 40 by default). */
  amplitudeDiv: number;
  phase: number;
}

const GUILLOCHE: Guilloche = { lines: 14, periodDiv: 9, amplitudeDiv: 40, phase: 0 };

/** A light guilloche so the background is not flat (OCR and binarisers should cope with it). */
export function backgroundSvg(w: number, h: number, tint: string, line: string, g: Guilloche = GUILLOCHE): Buffer {
  const paths: string[] = [];
  for (let k = 0; k < g.lines; k++) {
    let d = `M 0 ${((k + 0.5) * h) / g.lines}`;
    for (let x = 0; x <= w; x += w / 60)
      d += ` L ${x.toFixed(1)} ${(((k + 0.5) * h) / g.lines + Math.sin(x / (w / g.periodDiv) + k + g.phase) * (h / g.amplitudeDiv)).toFixed(1)}`;
    paths.push(`<path d="${d}" stroke="${line}" stroke-width="${Math.max(1, w / 700)}" fill="none"/>`);
  }
  return Buffer.from(
    `<svg xmlns="http://www.w3.org/2000/svg" width="${w}" height="${h}"><rect width="${w}" height="${h}" rx="${w / 25}" fill="${tint}"/>${paths.join('')}</svg>`,
  );
}

/** A grey placeholder with a drawn head and shoulders: no real photo goes on a synthetic card. */
export function portraitSvg(w: number, h: number): Buffer {
  return Buffer.from(
    `<svg xmlns="http://www.w3.org/2000/svg" width="${w}" height="${h}"><rect width="${w}" height="${h}" fill="#b8bcc0"/>` +
      `<ellipse cx="${w / 2}" cy="${h * 1.02}" rx="${w * 0.45}" ry="${h * 0.3}" fill="#7d838a"/>` +
      `<ellipse cx="${w / 2}" cy="${h * 0.42}" rx="${w * 0.24}" ry="${h * 0.22}" fill="#d9c2a7"/>` +
      `<ellipse cx="${w * 0.41}" cy="${h * 0.4}" rx="${w * 0.03}" ry="${h * 0.015}" fill="#333"/>` +
      `<ellipse cx="${w * 0.59}" cy="${h * 0.4}" rx="${w * 0.03}" ry="${h * 0.015}" fill="#333"/>` +
      `<path d="M ${w * 0.43} ${h * 0.52} Q ${w / 2} ${h * 0.56} ${w * 0.57} ${h * 0.52}" stroke="#8a4b3c" stroke-width="${w / 60}" fill="none"/></svg>`,
  );
}

/** Data columns, error-correction level and row height in modules (the fixed cards': 6, 4, 3). */
export interface Pdf417Shape {
  columns: number;
  eclevel: number;
  rowmult: number;
}

/** A PDF417 symbol of `payload` (Latin-1 bytes), resampled to the module size the card asks for. */
export async function pdf417Layer(
  payload: string,
  dpi: number,
  moduleMm: number,
  shape: Pdf417Shape = { columns: 6, eclevel: 4, rowmult: 3 },
): Promise<{ input: Buffer; width: number; height: number }> {
  const hiScale = 6;
  const png = await bwipjs.toBuffer({
    bcid: 'pdf417',
    text: payload,
    binarytext: true, // one byte per char code < 256: Ñ -> 0xD1 (default would be UTF-8)
    eclevel: shape.eclevel,
    columns: shape.columns,
    rowmult: shape.rowmult,
    scale: hiScale,
    paddingwidth: 2 * hiScale, // quiet zone, in pixels at this scale
    paddingheight: 2 * hiScale,
    backgroundcolor: 'FFFFFF',
  } as Parameters<typeof bwipjs.toBuffer>[0]);
  const meta = await sharp(png).metadata();
  const k = (moduleMm / 25.4) * dpi; // target pixels per module
  const width = Math.round(((meta.width ?? 0) / hiScale) * k);
  const height = Math.round(((meta.height ?? 0) / hiScale) * k);
  // Area averaging, as a camera sensor samples it (not nearest-neighbour crispness).
  const input = await sharp(png).resize(width, height, { kernel: 'lanczos3', fit: 'fill' }).png().toBuffer();
  return { input, width, height };
}

export class Canvas {
  readonly layers: OverlayOptions[] = [];
  readonly width: number;
  readonly height: number;
  constructor(readonly dpi: number) {
    this.width = Math.round((CARD_WIDTH_MM / 25.4) * dpi);
    this.height = Math.round((CARD_HEIGHT_MM / 25.4) * dpi);
  }
  px(mm: number): number {
    return Math.round((mm / 25.4) * this.dpi);
  }
  async text(text: string, xMm: number, yMm: number, pt: number, colour?: string): Promise<Box> {
    const t = await textLayer(text, pt, this.dpi, colour);
    const box = { x: this.px(xMm), y: this.px(yMm), width: t.width, height: t.height };
    this.layers.push({ input: t.input, left: box.x, top: box.y });
    return box;
  }
  image(input: Buffer, x: number, y: number, width: number, height: number): Box {
    this.layers.push({ input, left: x, top: y });
    return { x, y, width, height };
  }
  async render(tint: string, line: string): Promise<Buffer> {
    return sharp(backgroundSvg(this.width, this.height, tint, line))
      .flatten({ background: '#ffffff' })
      .composite(this.layers)
      .png()
      .toBuffer();
  }
}

export const dniDotted = (n: string): string => n.replace(/\B(?=(\d{3})+(?!\d))/g, '.');

/** 2012+ card front: labels and values, placeholder portrait, and the layout-A PDF417 bottom right. */
export async function renderFront2012(person: DniPerson, options: RenderOptions = {}): Promise<RenderedCard> {
  const c = new Canvas(options.dpi ?? 300);
  await c.text('REPÚBLICA ARGENTINA - MERCOSUR', 4, 2.5, 7, '#1b3a6b');
  await c.text('REGISTRO NACIONAL DE LAS PERSONAS', 4, 6, 4.5, '#1b3a6b');
  const pw = c.px(22);
  const ph = c.px(28);
  const portraitImage = options.portraitPhoto
    ? await sharp(options.portraitPhoto).rotate().resize(pw, ph, { fit: 'cover', position: 'top' }).png().toBuffer()
    : await sharp(portraitSvg(pw, ph)).png().toBuffer();
  const portrait = c.image(portraitImage, c.px(4), c.px(10), pw, ph);
  const col = (x: number, y: number, label: string, value: string): Promise<unknown> =>
    Promise.all([c.text(label, x, y, 3.5, '#4a5a70'), c.text(value, x, y + 1.8, 6)]);
  // Values at the standard layout's places (standard-layout.ts).
  const at = DNI_2012_FRONT.labels;
  await col(at.surname.x, at.surname.y, 'Apellido / Surname', person.surname);
  await col(at.givenNames.x, at.givenNames.y, 'Nombre / Name', person.givenNames);
  await col(at.sex.x, at.sex.y, 'Sexo / Sex', person.sex);
  await col(at.nationality.x, at.nationality.y, 'Nacionalidad / Nationality', person.nationality);
  await col(at.sequence.x, at.sequence.y, 'Ejemplar', person.ejemplar);
  await col(at.dateOfBirth.x, at.dateOfBirth.y, 'Fecha de nacimiento / Date of birth', formatDmy(person.birthDate));
  await col(at.issuingDate.x, at.issuingDate.y, 'Fecha de emisión / Date of issue', formatDmy(person.issueDate));
  await col(at.expirationDate.x, at.expirationDate.y, 'Fecha de vencimiento', formatDmy(person.expiryDate));
  await c.text('Documento / Document', 4, 39.5, 3.5, '#4a5a70');
  const f = DNI_2012_FRONT.fields;
  await c.text(dniDotted(person.documentNumber), f.documentNumber.x, f.documentNumber.y, 9);
  await c.text(`Trámite N° ${person.tramite}`, f.order.x, f.order.y, 4.5);
  const payload = frontPayload(person);
  const sym = await pdf417Layer(payload, c.dpi, options.moduleMm ?? 0.254);
  const pdf417 = c.image(sym.input, c.width - sym.width - c.px(3), c.height - sym.height - c.px(2.5), sym.width, sym.height);
  const image = await c.render('#e3ecf3', '#cbdbe8');
  return {
    image,
    width: c.width,
    height: c.height,
    dpi: c.dpi,
    truth: { side: 'front-2012', person, payload, payloadBytes: Buffer.from(payload, 'latin1'), boxes: { pdf417, portrait } },
  };
}

/** MRZ for a person as the 2012+ back carries it: IDARG + DNI, ARG nationality, names transliterated. */
export function mrzFor(person: DniPerson): [string, string, string] {
  return buildTd1({
    documentCode: 'ID',
    issuingState: 'ARG',
    documentNumber: person.documentNumber,
    optionalData1: '',
    birthDate: person.birthDate,
    sex: person.sex,
    expiryDate: person.expiryDate,
    nationality: 'ARG',
    optionalData2: '',
    surname: person.surname,
    givenNames: person.givenNames,
  });
}

/** 2012+ card back: address block, fingerprint box, and the TD1 MRZ in OCR-B at ~10 characters/inch. */
export async function renderBack2012(person: DniPerson, options: RenderOptions = {}): Promise<RenderedCard> {
  const c = new Canvas(options.dpi ?? 300);
  await c.text('DOMICILIO:', 4, 3, 4.5, '#4a5a70');
  const b = DNI_2012_BACK;
  await c.text(person.address, b.address.x, b.address.y, 5);
  await c.text(
    `LUGAR DE NACIMIENTO: ${person.placeOfBirth ?? PLACE_OF_BIRTH}`,
    b.placeOfBirth.x,
    b.placeOfBirth.y,
    4.5,
    '#4a5a70',
  );
  await c.text(
    `CUIL: ${person.cuilPrefix ? formatCuil(person.cuilPrefix, person.documentNumber, cuilCheckDigit(person.cuilPrefix, person.documentNumber) ?? 0) : '--'}`,
    b.cuil.x,
    b.cuil.y,
    4.5,
    '#4a5a70',
  );
  const box = DNI_2012_BACK_FINGERPRINT;
  const fp = c.px(box.width);
  c.image(
    await sharp(
      Buffer.from(
        `<svg xmlns="http://www.w3.org/2000/svg" width="${fp}" height="${fp}"><rect width="${fp}" height="${fp}" fill="#d8d8d8"/></svg>`,
      ),
    )
      .png()
      .toBuffer(),
    c.px(box.x),
    c.px(box.y),
    fp,
    fp,
  );
  const mrzLines = mrzFor(person);
  const lineBoxes: Box[] = [];
  // 10.2 pt OCR-B at the render dpi gives the ICAO pitch of 2.54 mm per character.
  for (let i = 0; i < 3; i++) lineBoxes.push(await c.text(mrzLines[i] ?? '', 4.7, 37.3 + i * 4.6, 10.2));
  const x0 = Math.min(...lineBoxes.map((b) => b.x));
  const y0 = Math.min(...lineBoxes.map((b) => b.y));
  const x1 = Math.max(...lineBoxes.map((b) => b.x + b.width));
  const y1 = Math.max(...lineBoxes.map((b) => b.y + b.height));
  const image = await c.render('#eef1f4', '#dde3ea');
  return {
    image,
    width: c.width,
    height: c.height,
    dpi: c.dpi,
    truth: {
      side: 'back-2012',
      person,
      mrzLines,
      boxes: { mrzZone: { x: x0, y: y0, width: x1 - x0, height: y1 - y0 }, mrzLines: lineBoxes },
    },
  };
}

/** 2009-2011 card back: address and the layout-B PDF417 (leading `@`, ~17 fields). */
export async function renderBack2009(person: DniPerson, options: RenderOptions = {}): Promise<RenderedCard> {
  const c = new Canvas(options.dpi ?? 300);
  await c.text('DOMICILIO:', 4, 3, 4.5, '#4a5a70');
  await c.text(person.address, 4, 5.5, 5);
  await c.text('FIRMA DEL IDENTIFICADO', 4, 10, 4.5, '#4a5a70');
  const payload = back2009Payload(person);
  const sym = await pdf417Layer(payload, c.dpi, options.moduleMm ?? 0.254);
  const pdf417 = c.image(
    sym.input,
    Math.round((c.width - sym.width) / 2),
    c.height - sym.height - c.px(3),
    sym.width,
    sym.height,
  );
  const image = await c.render('#f1eee6', '#e2ddd0');
  return {
    image,
    width: c.width,
    height: c.height,
    dpi: c.dpi,
    truth: { side: 'back-2009', person, payload, payloadBytes: Buffer.from(payload, 'latin1'), boxes: { pdf417 } },
  };
}

// ---------------------------------------------------------------------------------------------
// Photographic degradations

export interface Degradation {
  /**
   * True perspective (applied first): the card seen from below its top edge, which comes out
   * narrower by this fraction of the width on each side (0.05 = 5%), like a card tilted back.
   */
  perspective?: number;
  /** Degrees clockwise (sharp's sense); the new corners get `background`. */
  rotate?: number;
  /**
   * A cheap tilt: affine map (horizontal shear plus vertical foreshortening). `perspective` above is
   * the projective one (server/imaging/homography.ts; sharp has no projective warp).
   */
  tilt?: { shearX: number; scaleY: number };
  /** Output size factor (0.5 = half the pixels each way). */
  scale?: number;
  /** Gaussian blur sigma in output pixels. */
  blur?: number;
  /** A soft white glare ellipse over this fraction (0-1) of the card, centred at glareAt (fractions). */
  glare?: { size: number; at: [number, number]; opacity: number };
  /** Gaussian noise sigma in grey levels. */
  noise?: number;
  /** Encode as JPEG at this quality (else PNG). */
  jpegQuality?: number;
  /** What surrounds the card after rotation/tilt (default white, as on a light table). */
  background?: string;
  seed?: number;
}

type Affine = [number, number, number, number, number, number]; // x' = a x + b y + c, y' = d x + e y + f

const compose = (m2: Affine, m1: Affine): Affine => [
  m2[0] * m1[0] + m2[1] * m1[3],
  m2[0] * m1[1] + m2[1] * m1[4],
  m2[0] * m1[2] + m2[1] * m1[5] + m2[2],
  m2[3] * m1[0] + m2[4] * m1[3],
  m2[3] * m1[1] + m2[4] * m1[4],
  m2[3] * m1[2] + m2[4] * m1[5] + m2[5],
];

type PointMap = (x: number, y: number) => readonly [number, number];

const affineMap =
  (m: Affine): PointMap =>
  (x, y) => [m[0] * x + m[1] * y + m[2], m[3] * x + m[4] * y + m[5]];

/** Maps a box through a point transform; returns its axis-aligned bounding box, clamped to the image. */
export function mapBox(box: Box, map: PointMap, width: number, height: number): Box {
  const pts = [
    [box.x, box.y],
    [box.x + box.width, box.y],
    [box.x, box.y + box.height],
    [box.x + box.width, box.y + box.height],
  ].map(([x = 0, y = 0]) => map(x, y));
  const x0 = Math.max(0, Math.floor(Math.min(...pts.map((p) => p[0]))));
  const y0 = Math.max(0, Math.floor(Math.min(...pts.map((p) => p[1]))));
  const x1 = Math.min(width, Math.ceil(Math.max(...pts.map((p) => p[0]))));
  const y1 = Math.min(height, Math.ceil(Math.max(...pts.map((p) => p[1]))));
  return { x: x0, y: y0, width: x1 - x0, height: y1 - y0 };
}

export interface DegradedCard {
  image: Buffer;
  width: number;
  height: number;
  /** The truth boxes mapped into the degraded image (bounding boxes after rotation/tilt/scale). */
  boxes: CardTruth['boxes'];
  /** Maps any other box of the card (a random card's truth.text) the same way. */
  mapped: (box: Box) => Box;
}

export async function degrade(card: RenderedCard, d: Degradation): Promise<DegradedCard> {
  const background = d.background ?? '#ffffff';
  let m: Affine = [1, 0, 0, 0, 1, 0];
  let w = card.width;
  let h = card.height;
  let img = card.image;
  let before: PointMap = (x, y) => [x, y]; // the projective part, applied before the affine chain
  if (d.perspective) {
    const k = d.perspective * w;
    const src: [number, number][] = [
      [0, 0],
      [w, 0],
      [w, h],
      [0, h],
    ];
    const dst: [number, number][] = [
      [k, 0],
      [w - k, 0],
      [w, h],
      [0, h],
    ];
    const back = homographyFrom(dst, src);
    const fwd = homographyFrom(src, dst);
    if (!back || !fwd) throw new Error('perspectiva degenerada');
    const { data } = await sharp(img).removeAlpha().raw().toBuffer({ resolveWithObject: true });
    const warped = warpPerspective(new Uint8Array(data.buffer, data.byteOffset, data.length), w, h, back, w, h, 255);
    img = await sharp(warped, { raw: { width: w, height: h, channels: 3 } })
      .png()
      .toBuffer();
    before = (x, y) => applyHomography(fwd, [x, y]);
  }
  if (d.rotate) {
    const t = (d.rotate * Math.PI) / 180;
    const [cos, sin] = [Math.cos(t), Math.sin(t)];
    img = await sharp(img).rotate(d.rotate, { background }).png().toBuffer();
    const meta = await sharp(img).metadata();
    const [nw, nh] = [meta.width ?? w, meta.height ?? h];
    // about the centre, y down: (x, y) -> (x cos - y sin, x sin + y cos)
    const r: Affine = [cos, -sin, nw / 2 - cos * (w / 2) + sin * (h / 2), sin, cos, nh / 2 - sin * (w / 2) - cos * (h / 2)];
    m = compose(r, m);
    [w, h] = [nw, nh];
  }
  if (d.tilt) {
    const { shearX, scaleY } = d.tilt;
    img = await sharp(img)
      .affine(
        [
          [1, shearX],
          [0, scaleY],
        ],
        { background },
      )
      .png()
      .toBuffer();
    const meta = await sharp(img).metadata();
    const a: Affine = [1, shearX, shearX < 0 ? -shearX * h : 0, 0, scaleY, 0];
    m = compose(a, m);
    [w, h] = [meta.width ?? w, meta.height ?? h];
  }
  let s = sharp(img);
  if (d.scale && d.scale !== 1) {
    const nw = Math.round(w * d.scale);
    const nh = Math.round(h * d.scale);
    s = s.resize(nw, nh, { fit: 'fill' });
    m = compose([nw / w, 0, 0, 0, nh / h, 0], m);
    [w, h] = [nw, nh];
  }
  if (d.blur) s = s.blur(d.blur);
  if (d.glare) {
    const { size, at, opacity } = d.glare;
    const rx = (w * size) / 2;
    const ry = (h * size) / 2;
    const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${w}" height="${h}"><defs><radialGradient id="g"><stop offset="0" stop-color="#fff" stop-opacity="${opacity}"/><stop offset="0.6" stop-color="#fff" stop-opacity="${opacity * 0.8}"/><stop offset="1" stop-color="#fff" stop-opacity="0"/></radialGradient></defs><ellipse cx="${w * at[0]}" cy="${h * at[1]}" rx="${rx}" ry="${ry}" fill="url(#g)"/></svg>`;
    s = sharp(await s.png().toBuffer()).composite([{ input: Buffer.from(svg) }]);
  }
  if (d.noise) {
    const { data, info } = await s.removeAlpha().raw().toBuffer({ resolveWithObject: true });
    const rand = rng(d.seed ?? 1);
    for (let i = 0; i < data.length; i += info.channels) {
      // Box-Muller; one luminance offset per pixel, as sensor noise mostly is.
      const n = Math.sqrt(-2 * Math.log(rand() || 1e-9)) * Math.cos(2 * Math.PI * rand()) * d.noise;
      for (let ch = 0; ch < info.channels; ch++) data[i + ch] = Math.max(0, Math.min(255, (data[i + ch] ?? 0) + n));
    }
    s = sharp(data, { raw: { width: info.width, height: info.height, channels: info.channels } });
  }
  const image = d.jpegQuality ? await s.jpeg({ quality: d.jpegQuality }).toBuffer() : await s.png().toBuffer();
  const b = card.truth.boxes;
  const affine = affineMap(m);
  const all: PointMap = (x, y) => {
    const [px, py] = before(x, y);
    return affine(px, py);
  };
  const map = (x: Box | undefined): Box | undefined => (x ? mapBox(x, all, w, h) : undefined);
  return {
    image,
    width: w,
    height: h,
    boxes: {
      pdf417: map(b.pdf417),
      mrzZone: map(b.mrzZone),
      mrzLines: b.mrzLines?.map((x) => mapBox(x, all, w, h)),
      portrait: map(b.portrait),
    },
    mapped: (x) => mapBox(x, all, w, h),
  };
}

/** Named degradations used by the tests and the evaluation (mild = what a steady handheld shot gives). */
export const DEGRADATIONS: Record<string, Degradation> = {
  clean: {},
  rotate2: { rotate: 2 },
  rotate6: { rotate: -6 },
  tilt: { tilt: { shearX: 0.06, scaleY: 0.94 } },
  perspective: { perspective: 0.05 },
  blur1: { blur: 1 },
  jpeg60: { jpegQuality: 60 },
  noise8: { noise: 8, seed: 7 },
  down66: { scale: 0.66 },
  glare: { glare: { size: 0.45, at: [0.3, 0.35], opacity: 0.85 } },
  /** Glare over the lower middle: washes out the MRZ (a rescan case, not a reading case). */
  glareLow: { glare: { size: 0.5, at: [0.55, 0.8], opacity: 0.9 } },
  mild: { rotate: 1, blur: 0.7, noise: 4, jpegQuality: 80, seed: 3 },
};
