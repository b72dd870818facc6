/**
 * Synthetic DNI cards with seeded random layouts: fonts, label wording and placement, positions,
 * sizes, colours, date style, background and hologram all vary by seed, the way printers and design
 * revisions vary real cards, so a reader can be measured on layouts it was never tuned on.
 *
 * Seeds come in two splits (CARD_SEEDS): tuning (1..N) and validation (10001..10000+N), whose cards
 * draw from disjoint font pools. Every reader decision (thresholds, label lists, heuristics) is taken
 * looking at tuning seeds only; validation seeds are only measured, so that their figure says how the
 * reader does on cards it has never seen. The barcode always carries the real person's payload and the
 * MRZ is always mrzFor(person); truth.text says which label and value was printed where.
 */
import sharp from 'sharp';
import { type DateParts, formatDmy } from '../../server/engines/document/dates.js';
import { cuilCheckDigit, formatCuil } from '../../server/engines/document/pdf417/cuil.js';
import { type BackgroundSpec, type Hologram, hologramBox, hologramSvg, cornerMask, renderBackground } from './card-background.js';
import { type FontFamily, fontPool, type Split, TextEngine, type TextRun, type TextStyle } from './card-text.js';
import { type DniPerson, back2009Payload, frontPayload } from './dni-person.js';
import { Draw, randomPerson, type Tamper, tamperedValues } from './random-person.js';
import {
  type Box,
  Canvas,
  type CardTruth,
  dniDotted,
  mrzFor,
  pdf417Layer,
  type Pdf417Shape,
  portraitSvg,
  type RenderedCard,
  type RenderOptions,
} from './synthetic-card.js';

export { fontPool, randomPerson, type Split, type Tamper, tamperedValues };

// ---------------------------------------------------------------------------------------------
// Seeds

export const VALIDATION_OFFSET = 10_000;

/** Which split a seed belongs to: validation seeds are those above 10000. */
export const splitOf = (seed: number): Split => (seed > VALIDATION_OFFSET ? 'validation' : 'tuning');

export function cardSeeds(n = 40): Record<Split, number[]> {
  const first = Array.from({ length: n }, (_, i) => i + 1);
  return { tuning: first, validation: first.map((s) => s + VALIDATION_OFFSET) };
}

export const CARD_SEEDS = cardSeeds();

// ---------------------------------------------------------------------------------------------
// Layout

export type FieldName =
  | 'header'
  | 'surname'
  | 'givenNames'
  | 'sex'
  | 'nationality'
  | 'ejemplar'
  | 'dateOfBirth'
  | 'dateOfIssue'
  | 'dateOfExpiry'
  | 'documentNumber'
  | 'tramite'
  | 'address'
  | 'placeOfBirth'
  | 'cuil'
  | 'signature';

export type LabelPlacement = 'above' | 'beside' | 'beside-colon';

/** Everything a seed decides about a card's design; one layout serves all four sides. */
export interface CardLayout {
  seed: number;
  split: Split;
  fonts: { label: FontFamily; value: FontFamily; header: FontFamily };
  /** Nominal sizes in points; a card that does not fit scales them down together (truth has the result). */
  pt: { label: number; value: number; number: number; header: number };
  bold: { label: boolean; value: boolean; number: boolean; header: boolean };
  colour: { label: string; value: string; header: string };
  labels: {
    placement: LabelPlacement;
    upper: boolean;
    slash: ' / ' | '/';
    /** Fields whose label drops the English half. */
    spanishOnly: FieldName[];
    documento2009: 'DOCUMENTO' | 'D.N.I.';
  };
  gapMm: { label: number; row: number; cell: number; beside: number };
  header: { lines2012: string[]; lines2009: string[]; align: 'left' | 'centre' | 'column'; topMm: number };
  portrait: { side: 'left' | 'right'; marginMm: number; gapTopMm: number; widthMm: number };
  column: { gapMm: number; marginMm: number };
  /** Sex, nationality and ejemplar on one line, or ejemplar moved beside the birth date. */
  sexRow: 'one-line' | 'split';
  /** Emission and expiry dates on one line or one under the other. */
  issueRow: 'one-line' | 'split';
  barcode: {
    /** Front 2012: bottom corner on the text side, bottom corner under the portrait, or bottom centre. */
    place: 'text-side' | 'portrait-side' | 'bottom';
    back2009: 'left' | 'centre' | 'right';
    shape: Pdf417Shape;
    /** Printed straight on the background (multiplied) rather than on a white patch. */
    onBackground: boolean;
    marginMm: number;
    shiftMm: number;
  };
  dates: 'numeric' | 'months';
  dottedNumber: boolean;
  background: BackgroundSpec;
  /** Fronts only. */
  hologram: Hologram | null;
  back: {
    fingerprintSide: 'left' | 'right';
    fingerprintMm: number;
    /** Top of the back's text block and of the thumbprint box. */
    topMm: number;
    mrzDxMm: number;
    mrzDyMm: number;
    signature2009: boolean;
  };
}

const LABEL_COLOURS = ['#4a5a70', '#2f3f5a', '#1b3a6b', '#555b66', '#3a4a5c', '#24406e', '#5a5a66', '#2d4a3e'];
const VALUE_COLOURS = ['#000000', '#111111', '#1a1a2e', '#0d1b3a', '#202428', '#14213d', '#2b2b2b'];
const HEADER_COLOURS = ['#1b3a6b', '#24406e', '#0f2c59', '#2a4d7a', '#3b3b6d', '#1d3557'];

function hsl(h: number, s: number, l: number): string {
  const f = (n: number): string => {
    const k = (n + h / 30) % 12;
    const c = l - s * Math.min(l, 1 - l) * Math.max(-1, Math.min(k - 3, 9 - k, 1));
    return Math.round(c * 255)
      .toString(16)
      .padStart(2, '0');
  };
  return `#${f(0)}${f(8)}${f(4)}`;
}

/** Light tints of the hues real cards use (blue-green mostly, some beige, green or pink). */
function randomBackground(r: Draw): BackgroundSpec {
  const hue = r.pick([r.float(180, 230), r.float(180, 230), r.float(30, 55), r.float(90, 150), r.float(310, 350)]);
  const [s, l] = [r.float(0.2, 0.45), r.float(0.9, 0.95)];
  const kind = r.pick(['guilloche', 'guilloche', 'gradient', 'noise'] as const);
  const line = hsl(hue, s, l - r.float(0.05, 0.1));
  return {
    tint: hsl(hue, s, l),
    tint2: kind === 'gradient' ? hsl(hue + r.float(-40, 40), s, r.float(0.9, 0.97)) : hsl(hue, s, l),
    gradientAngle: r.float(0, 180),
    line,
    guilloche:
      kind === 'guilloche' || r.chance(0.4)
        ? { lines: r.int(8, 24), periodDiv: r.float(5, 14), amplitudeDiv: r.float(25, 70), phase: r.float(0, 6.3) }
        : null,
    noise: kind === 'noise' || r.chance(0.15) ? r.float(0.05, 0.14) : 0,
    noiseSeed: r.int(1, 1e9),
    watermark: r.chance(0.5)
      ? r.chance(0.5)
        ? {
            kind: 'text',
            text: r.pick(['ARGENTINA', 'REPÚBLICA ARGENTINA', 'RENAPER', 'MERCOSUR']),
            xMm: r.float(25, 60),
            yMm: r.float(15, 40),
            sizeMm: r.float(5, 10),
            rotate: r.float(-25, 25),
            opacity: r.float(0.3, 0.6),
          }
        : {
            kind: 'emblem',
            text: '',
            xMm: r.float(15, 70),
            yMm: r.float(15, 40),
            sizeMm: r.float(18, 34),
            rotate: 0,
            opacity: r.float(0.35, 0.7),
          }
      : null,
  };
}

function randomHologram(r: Draw, portraitLeft: boolean): Hologram | null {
  if (!r.chance(0.45)) return null;
  const band = r.chance(0.4);
  return {
    shape: band ? 'band' : 'ellipse',
    // Over the text column, where it hurts a reader most.
    xMm: portraitLeft ? r.float(35, 75) : r.float(10, 50),
    yMm: r.float(14, 40),
    rxMm: band ? r.float(12, 28) : r.float(7, 16),
    ryMm: band ? r.float(2.5, 5) : r.float(4, 9),
    rotate: r.float(-35, 35),
    opacity: r.float(0.15, 0.35),
    hue: r.float(0, 360),
  };
}

const BILINGUAL: FieldName[] = [
  'surname',
  'givenNames',
  'sex',
  'nationality',
  'dateOfBirth',
  'dateOfIssue',
  'dateOfExpiry',
  'documentNumber',
];

/** The design for `seed`; the split must be the seed's own (see splitOf), so pools never mix. */
export function randomLayout(seed: number, split: Split): CardLayout {
  if (splitOf(seed) !== split) throw new Error(`la semilla ${seed} es de ${splitOf(seed)}, no de ${split}`);
  const r = new Draw(seed * 2654435761 + 11);
  const pool = fontPool(split);
  const value = r.pick(pool);
  const label = r.chance(0.6) ? value : r.pick(pool);
  const portraitLeft = r.chance(0.7);
  const allSpanish = r.chance(0.1);
  return {
    seed,
    split,
    fonts: { label, value, header: r.chance(0.5) ? value : r.pick(pool) },
    pt: {
      label: r.chance(0.8) ? r.float(3.5, 5) : r.float(5, 6),
      value: r.chance(0.8) ? r.float(5.5, 8.5) : r.float(8.5, 10),
      number: r.float(9, 14),
      header: r.float(6, 8),
    },
    bold: { label: r.chance(0.25), value: r.chance(0.6), number: r.chance(0.8), header: r.chance(0.8) },
    colour: { label: r.pick(LABEL_COLOURS), value: r.pick(VALUE_COLOURS), header: r.pick(HEADER_COLOURS) },
    labels: {
      placement: r.pick(['above', 'above', 'above', 'beside', 'beside-colon'] as const),
      upper: r.chance(0.4),
      slash: r.chance(0.3) ? '/' : ' / ',
      spanishOnly: BILINGUAL.filter(() => allSpanish || r.chance(0.2)),
      documento2009: r.chance(0.5) ? 'DOCUMENTO' : 'D.N.I.',
    },
    gapMm: { label: r.float(0.15, 0.9), row: r.float(0.5, 1.8), cell: r.float(1.5, 4), beside: r.float(0.8, 2.2) },
    header: {
      lines2012: [
        r.pick(['REPÚBLICA ARGENTINA - MERCOSUR', 'REPÚBLICA ARGENTINA', 'MERCOSUR - REPÚBLICA ARGENTINA']),
        ...r.some(
          ['REGISTRO NACIONAL DE LAS PERSONAS', 'MINISTERIO DEL INTERIOR', 'DOCUMENTO NACIONAL DE IDENTIDAD'],
          r.int(1, 2),
        ),
      ],
      lines2009: [
        'REPÚBLICA ARGENTINA',
        ...r.some(
          ['MINISTERIO DEL INTERIOR', 'REGISTRO NACIONAL DE LAS PERSONAS', 'DOCUMENTO NACIONAL DE IDENTIDAD'],
          r.int(1, 2),
        ),
      ],
      align: r.pick(['left', 'centre', 'column'] as const),
      topMm: r.float(1.8, 3.5),
    },
    portrait: {
      side: portraitLeft ? 'left' : 'right',
      marginMm: r.float(3, 6),
      gapTopMm: r.float(0.8, 2.5),
      widthMm: r.float(19, 24),
    },
    column: { gapMm: r.float(2, 5.5), marginMm: r.float(2.8, 4.5) },
    sexRow: r.chance(0.6) ? 'one-line' : 'split',
    issueRow: r.chance(0.6) ? 'one-line' : 'split',
    barcode: {
      place: r.pick(['text-side', 'text-side', 'portrait-side', 'bottom'] as const),
      back2009: r.pick(['left', 'centre', 'right'] as const),
      // Rows three modules high only with wide symbols, so that the front's stays under ~15 mm.
      shape: r.chance(0.6)
        ? { columns: r.int(5, 7), eclevel: r.int(2, 4), rowmult: 2 }
        : {
            ...r.pick([
              { columns: 7, eclevel: 2 },
              { columns: 7, eclevel: 3 },
              { columns: 6, eclevel: 2 },
            ]),
            rowmult: 3,
          },
      onBackground: r.chance(0.4),
      marginMm: r.float(2, 3.5),
      shiftMm: r.float(-4, 4),
    },
    dates: r.chance(0.55) ? 'months' : 'numeric',
    dottedNumber: r.chance(0.8),
    background: randomBackground(r),
    hologram: randomHologram(r, portraitLeft),
    back: {
      fingerprintSide: r.chance(0.6) ? 'right' : 'left',
      fingerprintMm: r.float(12, 17),
      topMm: r.float(3, 7),
      mrzDxMm: r.float(-0.5, 0.8),
      mrzDyMm: r.float(-1, 0.5),
      signature2009: r.chance(0.6),
    },
  };
}

// ---------------------------------------------------------------------------------------------
// Printed texts

const MONTHS = [
  ['ENE', 'JAN'],
  ['FEB', 'FEB'],
  ['MAR', 'MAR'],
  ['ABR', 'APR'],
  ['MAY', 'MAY'],
  ['JUN', 'JUN'],
  ['JUL', 'JUL'],
  ['AGO', 'AUG'],
  ['SEP', 'SEP'],
  ['OCT', 'OCT'],
  ['NOV', 'NOV'],
  ['DIC', 'DEC'],
] as const;

/** `15/03/2015`, or the card's own `15 MAR/ MAR 2015` (Spanish month / English month). */
export function printedDate(d: DateParts, style: CardLayout['dates']): string {
  if (style === 'numeric') return formatDmy(d);
  const [es, en] = MONTHS[d.month - 1] ?? ['?', '?'];
  return `${String(d.day).padStart(2, '0')} ${es}/ ${en} ${d.year}`;
}

const LABELS_2012: Partial<Record<FieldName, [string, string | null]>> = {
  surname: ['Apellido', 'Surname'],
  givenNames: ['Nombre', 'Name'],
  sex: ['Sexo', 'Sex'],
  nationality: ['Nacionalidad', 'Nationality'],
  ejemplar: ['Ejemplar', null],
  dateOfBirth: ['Fecha de nacimiento', 'Date of birth'],
  dateOfIssue: ['Fecha de emisión', 'Date of issue'],
  dateOfExpiry: ['Fecha de vencimiento', 'Date of expiry'],
  documentNumber: ['Documento', 'Document'],
  tramite: ['Trámite N°', null],
};

const LABELS_SPANISH: Partial<Record<FieldName, string>> = {
  surname: 'APELLIDO',
  givenNames: 'NOMBRES',
  sex: 'SEXO',
  nationality: 'NACIONALIDAD',
  ejemplar: 'EJEMPLAR',
  dateOfBirth: 'FECHA DE NACIMIENTO',
  dateOfIssue: 'FECHA DE EMISIÓN',
  address: 'DOMICILIO',
  placeOfBirth: 'LUGAR DE NACIMIENTO',
  cuil: 'CUIL',
  signature: 'FIRMA DEL IDENTIFICADO',
};

/** "Apellido", "Apellido / Surname", "APELLIDO/SURNAME"... as the layout says. */
function label2012(L: CardLayout, f: FieldName): string {
  const [es, en] = LABELS_2012[f] ?? [f, null];
  const text = en && !L.labels.spanishOnly.includes(f) ? `${es}${L.labels.slash}${en}` : es;
  return L.labels.upper ? text.toUpperCase() : text;
}

/** The 2009 front and both backs: Spanish only, upper case or with a capital first letter. */
function labelSpanish(L: CardLayout, f: FieldName): string {
  const text = f === 'documentNumber' ? L.labels.documento2009 : (LABELS_SPANISH[f] ?? f);
  if (L.labels.upper || text === 'CUIL' || text === 'D.N.I.') return text;
  return text.charAt(0) + text.slice(1).toLowerCase();
}

/** The values a front prints: the person's, except where a forger replaced them. */
function printedPerson(p: DniPerson, tamper: Partial<Tamper> | undefined): DniPerson {
  return {
    ...p,
    surname: tamper?.surname ?? p.surname,
    givenNames: tamper?.givenNames ?? p.givenNames,
    documentNumber: tamper?.documentNumber ?? p.documentNumber,
    birthDate: tamper?.dateOfBirth ?? p.birthDate,
  };
}

const cuilText = (p: DniPerson): string | null => {
  if (!p.cuilPrefix) return null;
  const digit = cuilCheckDigit(p.cuilPrefix, p.documentNumber);
  return digit === null ? null : formatCuil(p.cuilPrefix, p.documentNumber, digit);
};

// ---------------------------------------------------------------------------------------------
// Flow layout: rows of cells, each a label and a value, measured with the real fonts

interface Cell {
  field: FieldName;
  label: string | null;
  value: string;
  /** The big document number, or a small value set like its label (the trámite). */
  number?: boolean;
  small?: boolean;
  maxLines?: number;
  share?: number;
  placement?: LabelPlacement;
}

interface Styles {
  label: TextStyle;
  value: TextStyle;
  number: TextStyle;
  small: TextStyle;
  labelGap: number;
  besideGap: number;
  rowGap: number;
  cellGap: number;
  placement: LabelPlacement;
}

interface Placed {
  field: FieldName;
  kind: 'label' | 'value';
  lines: TextRun[];
  x: number;
  baselines: number[];
}

interface Flow {
  placed: Placed[];
  bottom: number;
}

const last = (xs: number[]): number => xs[xs.length - 1] ?? 0;

const valueStyle = (cell: Cell, st: Styles): TextStyle => (cell.number ? st.number : cell.small ? st.small : st.value);

async function layBeside(t: TextEngine, cell: Cell, x: number, y: number, width: number, st: Styles, colon: boolean) {
  const vs = valueStyle(cell, st);
  const [lm, vm] = await Promise.all([t.metrics(st.label), t.metrics(vs)]);
  const lr = await t.run(colon ? `${cell.label}:` : (cell.label ?? ''), st.label);
  if (lr.width > width * 0.6) return null;
  const vx = x + lr.width + st.besideGap;
  const runs = await t.wrap(cell.value, vs, x + width - vx, cell.maxLines ?? 1);
  if (!runs) return null;
  const b = y + Math.max(lm.ascent, vm.ascent);
  const baselines = runs.map((_, i) => b + i * (vm.ascent + vm.descent));
  const placed: Placed[] = [
    { field: cell.field, kind: 'label', lines: [lr], x, baselines: [b] },
    { field: cell.field, kind: 'value', lines: runs, x: vx, baselines },
  ];
  return { placed, bottom: last(baselines) + Math.max(vm.descent, lm.descent) };
}

async function layAbove(t: TextEngine, cell: Cell, x: number, y: number, width: number, st: Styles) {
  const vs = valueStyle(cell, st);
  const [lm, vm] = await Promise.all([t.metrics(st.label), t.metrics(vs)]);
  const labels = cell.label ? await t.wrap(cell.label, st.label, width, 2) : [];
  if (!labels) return null;
  const runs = await t.wrap(cell.value, vs, width, cell.maxLines ?? 1);
  if (!runs) return null;
  const lb = labels.map((_, i) => y + lm.ascent + i * (lm.ascent + lm.descent));
  const top = labels.length ? last(lb) + lm.descent + st.labelGap : y;
  const vb = runs.map((_, i) => top + vm.ascent + i * (vm.ascent + vm.descent));
  const placed: Placed[] = [{ field: cell.field, kind: 'value', lines: runs, x, baselines: vb }];
  if (labels.length) placed.unshift({ field: cell.field, kind: 'label', lines: labels, x, baselines: lb });
  return { placed, bottom: last(vb) + vm.descent };
}

function layCell(t: TextEngine, cell: Cell, x: number, y: number, width: number, st: Styles, placement: LabelPlacement) {
  return cell.label && placement !== 'above'
    ? layBeside(t, cell, x, y, width, st, placement === 'beside-colon')
    : layAbove(t, cell, x, y, width, st);
}

/** One row of cells side by side; a row whose labels do not fit beside falls back to above. */
async function layRow(t: TextEngine, row: Cell[], x: number, y: number, width: number, st: Styles): Promise<Flow | null> {
  const shares = row.map((c) => c.share ?? 1);
  const total = shares.reduce((a, b) => a + b, 0);
  const room = width - st.cellGap * (row.length - 1);
  for (const fallback of [false, true]) {
    const placed: Placed[] = [];
    let [cx, bottom] = [x, y];
    for (const [i, cell] of row.entries()) {
      const w = (room * (shares[i] ?? 1)) / total;
      const r = await layCell(t, cell, cx, y, w, st, fallback ? 'above' : (cell.placement ?? st.placement));
      if (!r) break;
      placed.push(...r.placed);
      bottom = Math.max(bottom, r.bottom);
      cx += w + st.cellGap;
    }
    if (placed.filter((p) => p.kind === 'value').length === row.length) return { placed, bottom };
  }
  return null;
}

/** Rows top to bottom from `y`; null when a value cannot fit its width or the rows pass `bottom`. */
async function layColumn(t: TextEngine, rows: Cell[][], x: number, y: number, width: number, bottom: number, st: Styles) {
  const placed: Placed[] = [];
  let top = y;
  let end = y;
  for (const row of rows) {
    const r = await layRow(t, row, x, top, width, st);
    if (!r || r.bottom > bottom) return null;
    placed.push(...r.placed);
    end = r.bottom;
    top = r.bottom + st.rowGap;
  }
  return { placed, bottom: end };
}

// ---------------------------------------------------------------------------------------------
// Drawing

/**
 * One printed label or value. Header lines are field 'header', kind 'label'; the 2009 back's
 * "FIRMA DEL IDENTIFICADO" is field 'signature', kind 'label', with no value. The watermark is
 * background, not listed.
 */
export interface PrintedText {
  field: FieldName;
  kind: 'label' | 'value';
  /** As printed; a wrapped value's lines joined by one space. */
  text: string;
  /** Ink bounding box in card pixels (the union of the lines'). */
  box: Box;
  lines: { text: string; box: Box }[];
}

export interface RandomCardTruth extends CardTruth {
  layout: CardLayout;
  text: PrintedText[];
  /** The printed values a forger changed (fronts rendered with `tamper`). */
  tampered?: Partial<Tamper>;
  /** Other things drawn, for checks and for reading failures against. */
  decor: { hologram?: Box; fingerprint?: Box; signature?: Box };
  /** How far the layout had to shrink (scale of the nominal sizes) and merge rows (see ATTEMPTS). */
  fit: { scale: number; level: number };
}

export interface RandomRenderedCard extends RenderedCard {
  truth: RandomCardTruth;
}

export interface RandomRenderOptions extends RenderOptions {
  /** Fronts only: printed values replaced, the barcode keeping the real person's payload. */
  tamper?: Partial<Tamper>;
}

const union = (boxes: Box[]): Box => {
  const x0 = Math.min(...boxes.map((b) => b.x));
  const y0 = Math.min(...boxes.map((b) => b.y));
  const x1 = Math.max(...boxes.map((b) => b.x + b.width));
  const y1 = Math.max(...boxes.map((b) => b.y + b.height));
  return { x: x0, y: y0, width: x1 - x0, height: y1 - y0 };
};

/** A card being drawn: the canvas, its text engine and what has been printed where. */
class Sheet {
  readonly c: Canvas;
  readonly t: TextEngine;
  readonly text: PrintedText[] = [];
  readonly decor: RandomCardTruth['decor'] = {};
  constructor(
    readonly L: CardLayout,
    options: RenderOptions,
    readonly fit: RandomCardTruth['fit'],
  ) {
    this.c = new Canvas(options.dpi ?? 300);
    this.t = new TextEngine(this.c.dpi);
  }
  px(mm: number): number {
    return this.c.px(mm);
  }
  /** Sizes at `scale`, never below legible print; `beside` forces labels onto the value's line. */
  styles(scale: number, beside = false): Styles {
    const { L } = this;
    const style = (font: FontFamily, bold: boolean, pt: number, colour: string): TextStyle => ({ font, bold, pt, colour });
    const label = Math.max(3.2, L.pt.label * scale);
    return {
      label: style(L.fonts.label, L.bold.label, label, L.colour.label),
      value: style(L.fonts.value, L.bold.value, Math.max(5, L.pt.value * scale), L.colour.value),
      number: style(L.fonts.value, L.bold.number, Math.max(7, L.pt.number * scale), L.colour.value),
      small: style(L.fonts.value, false, Math.min(label * 1.25, Math.max(4.5, L.pt.value * scale)), L.colour.value),
      labelGap: this.px(L.gapMm.label * scale),
      besideGap: this.px(L.gapMm.beside * scale),
      rowGap: this.px(L.gapMm.row * scale),
      cellGap: this.px(L.gapMm.cell * scale),
      placement: beside && L.labels.placement === 'above' ? 'beside' : L.labels.placement,
    };
  }
  draw(p: Placed): void {
    const lines = p.lines.map((run, i) => {
      const top = Math.round((p.baselines[i] ?? 0) - run.baseline);
      const left = Math.round(p.x);
      this.c.layers.push({ input: run.input, raw: { width: run.width, height: run.height, channels: 4 }, left, top });
      const box = { x: left + run.ink.x, y: top + run.ink.y, width: run.ink.width, height: run.ink.height };
      return { text: run.text, box };
    });
    const text = lines.map((l) => l.text).join(' ');
    this.text.push({ field: p.field, kind: p.kind, text, box: union(lines.map((l) => l.box)), lines });
  }
  /**
   * A block of rows ending at `bottom`, at the largest scale from nominal down to the card's that
   * fits `width` in at most 13 mm: the document number stays big on a card that had to shrink.
   */
  async block(rows: Cell[][], x: number, width: number, bottom: number, scale: number, level: number): Promise<Flow | null> {
    for (let k = 1; k >= scale - 1e-9; k = Math.max(scale, k - 0.08)) {
      const st = this.styles(k, level >= 3);
      const probe = await layColumn(this.t, rows, x, 0, width, this.px(13), st);
      if (probe) return layColumn(this.t, rows, x, bottom - probe.bottom, width, bottom, st);
      if (k === scale) break;
    }
    return null;
  }
  /** Header lines from `topMm`, aligned as the layout says; returns the bottom of the last line. */
  async header(lines: string[], columnX: number, scale: number): Promise<number> {
    const { L, t } = this;
    let y = this.px(L.header.topMm);
    for (const [i, text] of lines.entries()) {
      const style: TextStyle = {
        font: L.fonts.header,
        bold: L.bold.header,
        pt: L.pt.header * Math.max(0.8, scale) * (i === 0 ? 1 : 0.65),
        colour: L.colour.header,
      };
      const [run, m] = await Promise.all([t.run(text, style), t.metrics(style)]);
      const x =
        L.header.align === 'centre'
          ? (this.c.width - run.width) / 2
          : L.header.align === 'column'
            ? Math.min(columnX, this.c.width - this.px(3) - run.width)
            : this.px(L.portrait.marginMm);
      this.draw({ field: 'header', kind: 'label', lines: [run], x, baselines: [y + m.ascent] });
      y += m.ascent + m.descent + this.px(0.3);
    }
    return y;
  }
  barcode(sym: { input: Buffer; width: number; height: number }, x: number, y: number): Box {
    const box = this.c.image(sym.input, x, y, sym.width, sym.height);
    if (this.L.barcode.onBackground) {
      const layer = this.c.layers[this.c.layers.length - 1];
      if (layer) layer.blend = 'multiply';
    }
    return box;
  }
  async portrait(options: RenderOptions, x: number, y: number, w: number, h: number): Promise<Box> {
    const img = options.portraitPhoto
      ? await sharp(options.portraitPhoto).rotate().resize(w, h, { fit: 'cover', position: 'top' }).png().toBuffer()
      : await sharp(portraitSvg(w, h)).png().toBuffer();
    return this.c.image(img, x, y, w, h);
  }
  async finish(
    truth: Omit<RandomCardTruth, 'layout' | 'text' | 'decor' | 'fit'>,
    hologram: boolean,
  ): Promise<RandomRenderedCard> {
    const { c, L } = this;
    const bg = await renderBackground(c.width, c.height, L.background, (mm) => this.px(mm), this.t, L.fonts.header);
    const layers = [...c.layers];
    if (hologram && L.hologram) {
      layers.push({ input: hologramSvg(L.hologram, (mm) => this.px(mm), c.width, c.height) });
      this.decor.hologram = hologramBox(L.hologram, (mm) => this.px(mm), c.width, c.height);
    }
    // Rounded corners on white, as today's cards: opaque RGB like theirs.
    layers.push({ input: cornerMask(c.width, c.height), blend: 'dest-in' });
    const raw = { width: c.width, height: c.height, channels: 4 } as const;
    const composed = await sharp(bg, { raw }).composite(layers).raw().toBuffer();
    // Level 2 of 9: a noisy background makes the default level cost ~100 ms a card for 20 % fewer bytes.
    const image = await sharp(composed, { raw }).flatten({ background: '#ffffff' }).png({ compressionLevel: 2 }).toBuffer();
    return {
      image,
      width: c.width,
      height: c.height,
      dpi: c.dpi,
      truth: { ...truth, layout: L, text: this.text, decor: this.decor, fit: this.fit },
    };
  }
}

/**
 * Compaction level and scale, in the order tried: the design as drawn, then smaller, then with rows
 * merged (a printer fitting long names in), then smaller still, and last with labels moved beside
 * their values (level 3 rows as level 2).
 */
const ATTEMPTS: [number, number][] = [
  [0, 1],
  [0, 0.92],
  [0, 0.84],
  [0, 0.76],
  [1, 0.92],
  [1, 0.84],
  [1, 0.76],
  [2, 0.92],
  [2, 0.84],
  [2, 0.76],
  [0, 0.68],
  [1, 0.68],
  [2, 0.68],
  [2, 0.6],
  [3, 0.84],
  [3, 0.68],
  [3, 0.52],
];

/** Tries the layout until everything fits (level: see frontRows2012; backs ignore it). */
async function fitted<T>(L: CardLayout, side: string, build: (scale: number, level: number) => Promise<T | null>): Promise<T> {
  for (const [level, scale] of ATTEMPTS) {
    const r = await build(scale, level);
    if (r) return r;
  }
  throw new Error(`semilla ${L.seed}: los datos no caben en ${side}`);
}

/** Where the text column runs, beside the portrait, given the portrait's final box. */
function columnSpan(s: Sheet, portrait: Box): [number, number] {
  const { L } = s;
  return L.portrait.side === 'left'
    ? [portrait.x + portrait.width + s.px(L.column.gapMm), s.c.width - s.px(L.column.marginMm)]
    : [s.px(L.column.marginMm), portrait.x - s.px(L.column.gapMm)];
}

const overlapsX = (a: [number, number], b: [number, number]): boolean => a[0] < b[1] && b[0] < a[1];

/**
 * Front rows in the real cards' order; the layout decides which share a line. Level 1 puts sex,
 * nationality and ejemplar on one line and both card dates on another; level 2 also the birth date.
 */
function frontRows2012(L: CardLayout, p: DniPerson, level: number): Cell[][] {
  const cell = (field: FieldName, value: string, extra: Partial<Cell> = {}): Cell => ({
    field,
    label: label2012(L, field),
    value,
    ...extra,
  });
  const sex = cell('sex', p.sex, { share: 0.7 });
  const nationality = cell('nationality', p.nationality, { share: 1.4 });
  const ejemplar = cell('ejemplar', p.ejemplar, { share: 0.9 });
  const birth = cell('dateOfBirth', printedDate(p.birthDate, L.dates), { share: 1.6 });
  const issue = cell('dateOfIssue', printedDate(p.issueDate, L.dates));
  const expiry = cell('dateOfExpiry', printedDate(p.expiryDate, L.dates));
  const names = [[cell('surname', p.surname, { maxLines: 2 })], [cell('givenNames', p.givenNames, { maxLines: 2 })]];
  if (level >= 2) return [...names, [sex, nationality, ejemplar], [{ ...birth, share: 1 }, issue, expiry]];
  const sexOneLine = L.sexRow === 'one-line' || level === 1;
  return [
    ...names,
    ...(sexOneLine
      ? [[sex, nationality, ejemplar], [birth]]
      : [
          [sex, nationality],
          [birth, ejemplar],
        ]),
    ...(L.issueRow === 'one-line' || level === 1 ? [[issue, expiry]] : [[issue], [expiry]]),
  ];
}

function numberText(L: CardLayout, n: string): string {
  return L.dottedNumber ? dniDotted(n) : n;
}

/** 2012+ front: header, portrait, data column, document number block and the front PDF417. */
export async function renderRandomFront2012(
  person: DniPerson,
  L: CardLayout,
  options: RandomRenderOptions = {},
): Promise<RandomRenderedCard> {
  const printed = printedPerson(person, options.tamper);
  const payload = frontPayload(person);
  const sym = await pdf417Layer(payload, options.dpi ?? 300, options.moduleMm ?? 0.254, L.barcode.shape);
  const docRows: Cell[][] = [
    [
      {
        field: 'documentNumber',
        label: label2012(L, 'documentNumber'),
        value: numberText(L, printed.documentNumber),
        number: true,
      },
    ],
    [{ field: 'tramite', label: label2012(L, 'tramite'), value: printed.tramite, placement: 'beside', small: true }],
  ];
  return fitted(L, 'front-2012', async (scale, level) => {
    const s = new Sheet(L, options, { scale, level });
    const { c } = s;
    const st = s.styles(scale, level >= 3);
    const left = L.portrait.side === 'left';
    const pw0 = s.px(L.portrait.widthMm);
    const nominalColumnX = left ? s.px(L.portrait.marginMm) + pw0 + s.px(L.column.gapMm) : s.px(L.column.marginMm);
    const headerBottom = await s.header(L.header.lines2012, nominalColumnX, scale);
    const bm = s.px(L.barcode.marginMm);
    const by = c.height - bm - sym.height;
    const place = L.barcode.place;
    const bx =
      place === 'bottom'
        ? Math.round((c.width - sym.width) / 2 + s.px(L.barcode.shiftMm))
        : (place === 'text-side') === left
          ? c.width - bm - sym.width
          : bm;
    const barcodeSpan: [number, number] = [bx, bx + sym.width];
    // The document number block: under the portrait, beside a barcode on the portrait side, or in the column.
    let doc: Flow | null = null;
    let docSpan: [number, number] = [0, 0];
    if (place !== 'bottom') {
      const gap = s.px(2.2);
      docSpan =
        place === 'text-side'
          ? left
            ? [s.px(L.portrait.marginMm), bx - gap]
            : [bx + sym.width + gap, c.width - s.px(L.portrait.marginMm)]
          : left
            ? [bx + sym.width + gap, c.width - s.px(L.column.marginMm)]
            : [s.px(L.column.marginMm), bx - gap];
      doc = await s.block(docRows, docSpan[0], docSpan[1] - docSpan[0], c.height - bm, scale, level);
      if (!doc) return null;
    }
    const docTop = doc ? Math.min(...doc.placed.map((p) => (p.baselines[0] ?? 0) - (p.lines[0]?.baseline ?? 0))) : c.height;
    // The portrait ends above whatever lies under it.
    const py = headerBottom + s.px(L.portrait.gapTopMm);
    const pSpan: [number, number] = left
      ? [s.px(L.portrait.marginMm), s.px(L.portrait.marginMm) + pw0]
      : [c.width - s.px(L.portrait.marginMm) - pw0, c.width - s.px(L.portrait.marginMm)];
    let limit = c.height - s.px(2);
    if (overlapsX(pSpan, barcodeSpan)) limit = Math.min(limit, by - s.px(1.2));
    if (doc && overlapsX(pSpan, docSpan)) limit = Math.min(limit, docTop - s.px(1.2));
    const ph = Math.min(Math.round(pw0 * 1.28), limit - py);
    if (ph < s.px(16)) return null;
    const pw = Math.min(pw0, Math.round(ph / 1.28));
    const px0 = left ? s.px(L.portrait.marginMm) : c.width - s.px(L.portrait.marginMm) - pw;
    const [cx0, cx1] = columnSpan(s, { x: px0, y: py, width: pw, height: ph });
    let bottom = c.height - s.px(2);
    if (overlapsX([cx0, cx1], barcodeSpan)) bottom = Math.min(bottom, by - s.px(1.2));
    if (doc && overlapsX([cx0, cx1], docSpan)) bottom = Math.min(bottom, docTop - s.px(1.2));
    const rows = frontRows2012(L, printed, level);
    // A centred barcode leaves no corner: the number and trámite close the column, on one line.
    if (place === 'bottom') rows.push(docRows.flat());
    const column = await layColumn(s.t, rows, cx0, headerBottom + s.px(0.8), cx1 - cx0, bottom, st);
    if (!column) return null;
    const portrait = await s.portrait(options, px0, py, pw, ph);
    for (const p of [...column.placed, ...(doc?.placed ?? [])]) s.draw(p);
    const pdf417 = s.barcode(sym, bx, by);
    return s.finish(
      {
        side: 'front-2012',
        person,
        payload,
        payloadBytes: Buffer.from(payload, 'latin1'),
        boxes: { pdf417, portrait },
        ...(options.tamper ? { tampered: options.tamper } : {}),
      },
      true,
    );
  });
}

/** 2009-2011 front: Spanish labels, portrait, data column and the number; its barcode is on the back. */
export async function renderRandomFront2009(
  person: DniPerson,
  L: CardLayout,
  options: RandomRenderOptions = {},
): Promise<RandomRenderedCard> {
  const p = printedPerson(person, options.tamper);
  const cell = (field: FieldName, value: string, extra: Partial<Cell> = {}): Cell => ({
    field,
    label: labelSpanish(L, field),
    value,
    ...extra,
  });
  const rows: Cell[][] = [
    [cell('surname', p.surname, { maxLines: 2 })],
    [cell('givenNames', p.givenNames, { maxLines: 2 })],
    [cell('sex', p.sex, { share: 0.6 }), cell('nationality', p.nationality, { share: 1.4 })],
    [cell('dateOfBirth', printedDate(p.birthDate, L.dates))],
    L.issueRow === 'one-line'
      ? [cell('dateOfIssue', printedDate(p.issueDate, L.dates), { share: 1.5 }), cell('ejemplar', p.ejemplar, { share: 0.8 })]
      : [cell('dateOfIssue', printedDate(p.issueDate, L.dates))],
    ...(L.issueRow === 'one-line' ? [] : [[cell('ejemplar', p.ejemplar)]]),
  ];
  const docRows = [[cell('documentNumber', numberText(L, p.documentNumber), { number: true })]];
  // Under the portrait unless the layout puts the number in the column.
  const docInColumn = L.barcode.place === 'bottom';
  return fitted(L, 'front-2009', async (scale, level) => {
    const s = new Sheet(L, options, { scale, level });
    const { c } = s;
    const st = s.styles(scale, level >= 3);
    const left = L.portrait.side === 'left';
    const pw0 = s.px(L.portrait.widthMm);
    const pm = s.px(L.portrait.marginMm);
    const nominalColumnX = left ? pm + pw0 + s.px(L.column.gapMm) : s.px(L.column.marginMm);
    const headerBottom = await s.header(L.header.lines2009, nominalColumnX, scale);
    const py = headerBottom + s.px(L.portrait.gapTopMm);
    let limit = c.height - s.px(2.5);
    let doc: Flow | null = null;
    if (!docInColumn) {
      const x = left ? pm : c.width - pm - pw0;
      doc = await s.block(docRows, x, pw0 + s.px(8), c.height - s.px(2.5), scale, level);
      if (!doc) return null;
      limit = Math.min(...doc.placed.map((d) => (d.baselines[0] ?? 0) - (d.lines[0]?.baseline ?? 0))) - s.px(1.2);
      if (!left) {
        // Right-aligned under a right portrait: shift the block so it ends at the card margin.
        const right = Math.max(...doc.placed.map((d) => d.x + Math.max(...d.lines.map((l) => l.width))));
        for (const d of doc.placed) d.x -= right - (c.width - pm);
      }
    }
    const ph = Math.min(Math.round(pw0 * 1.28), limit - py);
    if (ph < s.px(16)) return null;
    const pw = Math.min(pw0, Math.round(ph / 1.28));
    const px0 = left ? pm : c.width - pm - pw;
    const [cx0, cx1] = columnSpan(s, { x: px0, y: py, width: pw, height: ph });
    const docLeft = doc ? Math.min(...doc.placed.map((d) => d.x)) : 0;
    const docRight = doc ? Math.max(...doc.placed.map((d) => d.x + Math.max(...d.lines.map((l) => l.width)))) : 0;
    // A long number may reach under the column: the column then stops above it.
    const docTop = limit + s.px(1.2);
    const bottom = doc && overlapsX([cx0, cx1], [docLeft, docRight]) ? docTop - s.px(1.2) : c.height - s.px(2.5);
    const column = await layColumn(
      s.t,
      docInColumn ? [...rows, ...docRows] : rows,
      cx0,
      headerBottom + s.px(0.8),
      cx1 - cx0,
      bottom,
      st,
    );
    if (!column) return null;
    const portrait = await s.portrait(options, px0, py, pw, ph);
    for (const d of [...column.placed, ...(doc?.placed ?? [])]) s.draw(d);
    return s.finish(
      { side: 'front-2009', person, boxes: { portrait }, ...(options.tamper ? { tampered: options.tamper } : {}) },
      true,
    );
  });
}

/** Back rows: address (may wrap), place of birth and, where the person has one, the CUIL. */
function backRows(L: CardLayout, p: DniPerson, cuil: boolean): Cell[][] {
  const cell = (field: FieldName, value: string, maxLines = 1): Cell => ({
    field,
    label: labelSpanish(L, field),
    value,
    maxLines,
  });
  const rows = [[cell('address', p.address, 3)], [cell('placeOfBirth', p.placeOfBirth ?? '', 2)]];
  const c = cuil ? cuilText(p) : null;
  if (c) rows.push([cell('cuil', c)]);
  return rows;
}

/** A grey box with ridge-like arcs where the thumbprint goes. */
function fingerprintSvg(size: number): Buffer {
  const arcs: string[] = [];
  for (let k = 1; k < 12; k++)
    arcs.push(`<ellipse cx="${size / 2}" cy="${size * 0.55}" rx="${k * size * 0.035}" ry="${k * size * 0.045}"/>`);
  return Buffer.from(
    `<svg xmlns="http://www.w3.org/2000/svg" width="${size}" height="${size}"><rect width="${size}" height="${size}" fill="#d8d8d8"/>` +
      `<g fill="none" stroke="#a9a9a9" stroke-width="${Math.max(1, size / 90)}">${arcs.join('')}</g></svg>`,
  );
}

/** 2012+ back: address block beside the thumbprint box, and the TD1 MRZ in OCR-B at the ICAO pitch. */
export async function renderRandomBack2012(
  person: DniPerson,
  L: CardLayout,
  options: RandomRenderOptions = {},
): Promise<RandomRenderedCard> {
  const mrzLines = mrzFor(person);
  return fitted(L, 'back-2012', async (scale, level) => {
    const s = new Sheet(L, options, { scale, level });
    const { c } = s;
    const st = s.styles(scale, level >= 3);
    const lineBoxes: Box[] = [];
    // 10.2 pt OCR-B at the render dpi gives 2.54 mm per character, as on the fixed back.
    for (let i = 0; i < 3; i++)
      lineBoxes.push(await c.text(mrzLines[i] ?? '', 4.7 + L.back.mrzDxMm, 37.3 + L.back.mrzDyMm + i * 4.6, 10.2));
    const mrzZone = union(lineBoxes);
    const fp = s.px(L.back.fingerprintMm);
    const right = L.back.fingerprintSide === 'right';
    const fx = right ? c.width - s.px(4) - fp : s.px(4);
    const fingerprint = c.image(await sharp(fingerprintSvg(fp)).png().toBuffer(), fx, s.px(L.back.topMm), fp, fp);
    s.decor.fingerprint = fingerprint;
    const [x0, x1] = right ? [s.px(4), fx - s.px(2.5)] : [fx + fp + s.px(2.5), c.width - s.px(4)];
    const column = await layColumn(s.t, backRows(L, person, true), x0, s.px(L.back.topMm), x1 - x0, mrzZone.y - s.px(1.5), st);
    if (!column) return null;
    for (const p of column.placed) s.draw(p);
    return s.finish({ side: 'back-2012', person, mrzLines, boxes: { mrzZone, mrzLines: lineBoxes } }, false);
  });
}

/** A few loops of pen, for the holder's signature. */
function signatureSvg(w: number, h: number, seed: number): Buffer {
  const r = new Draw(seed);
  let d = `M ${w * 0.05} ${h * r.float(0.4, 0.8)}`;
  for (let k = 1; k <= 6; k++) d += ` Q ${(w * (k - 0.5)) / 6.5} ${h * r.float(0, 1)} ${(w * k) / 6.5} ${h * r.float(0.3, 0.8)}`;
  return Buffer.from(
    `<svg xmlns="http://www.w3.org/2000/svg" width="${w}" height="${h}"><path d="${d}" fill="none" stroke="#1d2b57" stroke-width="${Math.max(1.5, h / 25)}"/></svg>`,
  );
}

/** 2009-2011 back: address, place of birth, the holder's signature and the long PDF417. */
export async function renderRandomBack2009(
  person: DniPerson,
  L: CardLayout,
  options: RandomRenderOptions = {},
): Promise<RandomRenderedCard> {
  const payload = back2009Payload(person);
  const sym = await pdf417Layer(payload, options.dpi ?? 300, options.moduleMm ?? 0.254, L.barcode.shape);
  return fitted(L, 'back-2009', async (scale, level) => {
    const s = new Sheet(L, options, { scale, level });
    const { c } = s;
    const st = s.styles(scale, level >= 3);
    const bm = s.px(L.barcode.marginMm);
    const where = L.barcode.back2009;
    const bx = where === 'left' ? bm : where === 'right' ? c.width - bm - sym.width : Math.round((c.width - sym.width) / 2);
    const by = c.height - bm - sym.height;
    const column = await layColumn(
      s.t,
      backRows(L, person, false),
      s.px(4),
      s.px(L.back.topMm),
      c.width - s.px(8),
      by - s.px(1.5),
      st,
    );
    if (!column) return null;
    for (const p of column.placed) s.draw(p);
    // The signature beside the barcode, where there is room for it.
    const room: [number, number] = where === 'left' ? [bx + sym.width + s.px(2), c.width - s.px(4)] : [s.px(4), bx - s.px(2)];
    if (L.back.signature2009 && room[1] - room[0] >= s.px(20)) {
      const cellStyle = { ...st, placement: 'above' as const };
      const sigLabel: Cell = { field: 'signature', label: null, value: labelSpanish(L, 'signature'), maxLines: 2 };
      const probe = await layColumn(s.t, [[sigLabel]], room[0], 0, room[1] - room[0], c.height, {
        ...cellStyle,
        value: st.label,
      });
      if (probe) {
        const sig = await layColumn(s.t, [[sigLabel]], room[0], c.height - bm - probe.bottom, room[1] - room[0], c.height, {
          ...cellStyle,
          value: st.label,
        });
        const top = Math.max(column.bottom + s.px(1.5), by);
        const sh = Math.min(s.px(9), c.height - bm - probe.bottom - top - s.px(1));
        if (sig && sh > s.px(4)) {
          // Printed as a label: no value goes with it.
          for (const p of sig.placed) s.draw({ ...p, kind: 'label' });
          const sw = Math.min(room[1] - room[0], s.px(28));
          s.decor.signature = c.image(
            await sharp(signatureSvg(sw, sh, L.seed))
              .png()
              .toBuffer(),
            room[0],
            top,
            sw,
            sh,
          );
        }
      }
    }
    const pdf417 = s.barcode(sym, bx, by);
    return s.finish(
      { side: 'back-2009', person, payload, payloadBytes: Buffer.from(payload, 'latin1'), boxes: { pdf417 } },
      false,
    );
  });
}

export type RandomSide = 'front-2012' | 'back-2012' | 'front-2009' | 'back-2009';

export const RANDOM_RENDERERS: Record<
  RandomSide,
  (p: DniPerson, L: CardLayout, o?: RandomRenderOptions) => Promise<RandomRenderedCard>
> = {
  'front-2012': renderRandomFront2012,
  'back-2012': renderRandomBack2012,
  'front-2009': renderRandomFront2009,
  'back-2009': renderRandomBack2009,
};

/** The card of `seed` (its person and its layout, split taken from the seed). */
export function renderRandomCard(seed: number, side: RandomSide, options: RandomRenderOptions = {}): Promise<RandomRenderedCard> {
  return RANDOM_RENDERERS[side](randomPerson(seed), randomLayout(seed, splitOf(seed)), options);
}

const intersects = (a: Box, b: Box): boolean =>
  a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;

/** What a reader could not be blamed for: text off the card, over other text, or over the images. */
export function layoutProblems(card: RandomRenderedCard): string[] {
  const out: string[] = [];
  const lines = card.truth.text.flatMap((t) => t.lines.map((l) => ({ name: `${t.field}/${t.kind} "${l.text}"`, box: l.box })));
  const b = card.truth.boxes;
  const d = card.truth.decor;
  const solid = Object.entries({ pdf417: b.pdf417, portrait: b.portrait, mrz: b.mrzZone, ...d })
    .filter((e): e is [string, Box] => e[1] !== undefined && e[0] !== 'hologram')
    .map(([name, box]) => ({ name, box }));
  for (const [i, l] of lines.entries()) {
    const { x, y, width, height } = l.box;
    if (x < 0 || y < 0 || x + width > card.width || y + height > card.height) out.push(`${l.name} off the card`);
    for (const m of lines.slice(i + 1)) if (intersects(l.box, m.box)) out.push(`${l.name} over ${m.name}`);
    for (const m of solid) if (intersects(l.box, m.box)) out.push(`${l.name} over ${m.name}`);
  }
  return out;
}
