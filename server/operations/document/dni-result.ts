import type { DocumentInfo, MrzResult, Pdf417Result } from '../../../common/api/document-schemas.js';
import { distance } from 'fastest-levenshtein';
import {
  type DateParts,
  cuilCheckDigit,
  formatCuil,
  foldText,
  type DniTextField,
  type DniTextFields,
  digitsOf,
  parseDocumentNumber,
  parseFreeText,
  parsePlaceOfBirth,
  parseName,
  parseOrder,
  parsePrintedDate,
  parseSequence,
  parseSex,
  mrzNamesEquivalent,
  type Td1Result,
  type DniPayload,
  type UnrecognisedPayload,
  type SideReading,
} from '../../engines/index.js';

type Source = DocumentInfo['fields'][string]['source'];
/** A field's detail before its confidence is worked out from all of its sources. */
type Detail = Omit<DocumentInfo['fields'][string], 'confidence'> & { confidence?: number };

export interface Candidate<T> {
  value: T | null;
  valid: boolean;
  source: Source;
  /** Looks right (OCR): returned for the operator to see, never vouched for. */
  plausible?: boolean;
}

const sameDate = (a: DateParts, b: DateParts) => a.day === b.day && a.month === b.month && a.year === b.year;

/**
 * One field from its candidate sources, most trusted first: the first valid one gives the value;
 * any other valid source that disagrees makes the field invalid, never silently overruled.
 */
export function pick<T>(
  candidates: Candidate<T>[],
  same: (a: T, b: T) => boolean = (a, b) => a === b,
): { value: T | null; detail: Detail } {
  const read = candidates.filter((c) => c.value !== null);
  const valid = read.filter((c) => c.valid);
  if (valid.length === 0) {
    const plausible = read.find((c) => c.plausible);
    if (plausible) {
      return {
        value: plausible.value,
        detail: {
          source: plausible.source,
          valid: false,
          agreement: 'SINGLE_SOURCE',
          motivo: 'solo leído por OCR: no verificado',
        },
      };
    }
    return read.length
      ? {
          value: null,
          detail: {
            source: 'NONE',
            valid: false,
            agreement: 'SINGLE_SOURCE',
            motivo: `leído de ${read.map((c) => c.source).join(' y ')} sin validez`,
          },
        }
      : { value: null, detail: { source: 'NONE', valid: false, agreement: 'SINGLE_SOURCE', motivo: 'no leído' } };
  }
  const first = valid[0]!;
  const disagree = valid.slice(1).filter((c) => !same(first.value as T, c.value as T));
  if (disagree.length) {
    return {
      value: null,
      detail: {
        source: first.source,
        valid: false,
        agreement: 'MISMATCH',
        motivo: `${first.source} y ${disagree.map((c) => c.source).join(', ')} no coinciden`,
      },
    };
  }
  return {
    value: first.value,
    detail: { source: first.source, valid: true, agreement: valid.length > 1 ? 'AGREE' : 'SINGLE_SOURCE' },
  };
}

const mrzDigits = (s: string) => s.replace(/</g, '');

/**
 * The CUIL printed on the back. Unlike other printed text it verifies itself: its mod-11 check digit
 * must hold and its DNI must be the document's (validated) number.
 */
function cuilFromText(printed: DniTextFields, documentNumber: string | null): Candidate<string> {
  const m = /(\d{2})-?(\d{7,8})-?(\d)/.exec(digitsOf(printed.cuil?.text ?? '').replace(/\s/g, ''));
  if (!m) return { value: null, valid: false, source: 'OCR' };
  const [, prefix, dni, digit] = m as unknown as [string, string, string, string];
  const value = formatCuil(prefix, dni, digit);
  const checks =
    cuilCheckDigit(prefix, dni) === Number(digit) &&
    documentNumber !== null &&
    dni.padStart(8, '0') === documentNumber.padStart(8, '0');
  return { value, valid: checks, plausible: true, source: 'OCR' };
}

/** Under this OCR confidence a printed value is shown but never taken as evidence against the barcode. */
export const OCR_EVIDENCE_CONFIDENCE = 75;

/** The printed fields as the lowest-trust candidates: plausible when they look like their kind, never valid. */
function ocrCandidates(printed: DniTextFields) {
  const candidate = <T>(field: DniTextField, parse: (text: string) => T | null, minConfidence = 60): Candidate<T> => {
    const read = printed[field];
    const value = read ? parse(read.text) : null;
    return { value, valid: false, plausible: value !== null && read!.confidence >= minConfidence, source: 'OCR' };
  };
  return {
    surname: candidate('surname', parseName, 70),
    givenNames: candidate('givenNames', parseName, 70),
    documentNumber: candidate('documentNumber', parseDocumentNumber),
    sex: candidate('sex', parseSex),
    nationality: candidate('nationality', (t) => parseName(t)),
    dateOfBirth: candidate('dateOfBirth', parsePrintedDate),
    issuingDate: candidate('issuingDate', parsePrintedDate),
    expirationDate: candidate('expirationDate', parsePrintedDate),
    order: candidate('order', parseOrder),
    sequence: candidate('sequence', parseSequence),
  };
}

/** Names compared as the card's sources can agree: accents, Ñ, spacing and punctuation aside. */
const nameKey = (s: string) => foldText(s).replace(/[^A-Z]/g, '');

/** Digits OCR takes for each other on card fonts (closed and open loops, the one and the seven). */
const LOOKALIKE_DIGITS = new Set(['38', '39', '89', '08', '09', '06', '68', '56', '17']);

/**
 * How far a printed number is from the machine-readable one, in OCR errors: a lookalike digit
 * (8 read as 3) half an error, any other digit, or one missing or added, a whole one.
 */
function digitErrors(machine: string, printed: string): number {
  if (machine.length !== printed.length) return distance(machine, printed);
  let errors = 0;
  for (let i = 0; i < machine.length; i++) {
    const [a, b] = [machine[i]!, printed[i]!];
    if (a !== b) errors += LOOKALIKE_DIGITS.has(a < b ? a + b : b + a) ? 0.5 : 1;
  }
  return errors;
}

const dateDigits = (d: DateParts) =>
  `${String(d.day).padStart(2, '0')}${String(d.month).padStart(2, '0')}${String(d.year).padStart(4, '0')}`;

/** The fewest edits that make `part` some run of `whole`'s letters (a semi-global alignment). */
function differencesWithin(part: string, whole: string): number {
  let row = new Array<number>(whole.length + 1).fill(0);
  for (let i = 1; i <= part.length; i++) {
    const next = [i];
    for (let j = 1; j <= whole.length; j++)
      next[j] = Math.min(row[j]! + 1, next[j - 1]! + 1, row[j - 1]! + (part[i - 1] === whole[j - 1] ? 0 : 1));
    row = next;
  }
  return Math.min(...row);
}

/**
 * Whether the printed value says something else than the machine-readable one: more than OCR's
 * slips (one letter or digit), read with enough confidence to count. A name read only in part (the
 * rest under glare or past the edge) says nothing else: only a part of it was seen.
 */
function printedDisagrees(
  field: 'surname' | 'givenNames' | 'documentNumber' | 'dateOfBirth',
  machine: unknown,
  printed: unknown,
  confidence: number,
): boolean {
  if (machine === null || printed === null || confidence < OCR_EVIDENCE_CONFIDENCE) return false;
  // A date tolerates one lookalike digit (1995 read 1935); a number one other slip or two lookalikes.
  // A forger's edit changes a whole date or several digits, and is caught.
  if (field === 'dateOfBirth') return digitErrors(dateDigits(machine as DateParts), dateDigits(printed as DateParts)) >= 1;
  if (field === 'documentNumber') return digitErrors(String(machine).padStart(8, '0'), String(printed).padStart(8, '0')) >= 1.5;
  const [whole, read] = [nameKey(String(machine)), nameKey(String(printed))];
  if (read.length <= whole.length - 2 && differencesWithin(read, whole) <= 1) return false;
  return distance(whole, read) >= 2;
}

/** What a field's sources say of it, 0-100: one valid source 90 (a check digit 95), each agreeing one more. */
function confidenceOf(detail: Detail, ocrConfidence: number | undefined): number {
  if (detail.agreement === 'MISMATCH') return 0;
  if (!detail.valid) return Math.round(Math.min(80, (ocrConfidence ?? 0) * 0.8));
  const base = detail.source === 'MRZ' ? 95 : 90;
  return detail.agreement === 'AGREE' ? Math.min(99, base + 5) : base;
}

/** documentInfo from the PDF417 payload (either layout), the MRZ and the printed text, cross-checked field by field. */
export function documentInfoOf(
  payload: DniPayload | null,
  mrz: Td1Result | null,
  printed: DniTextFields = {},
): Omit<DocumentInfo, 'face' | 'fingerPrint'> {
  const O = ocrCandidates(printed);
  const f = payload?.fields;
  const P = <T>(field: { value: T | null; valid: boolean } | undefined): Candidate<T> => ({
    value: field?.value ?? null,
    valid: field?.valid ?? false,
    source: 'PDF417',
  });
  const M = <T>(value: T | null, valid: boolean): Candidate<T> => ({
    value: mrz ? value : null,
    valid: mrz !== null && valid,
    source: 'MRZ',
  });
  const fields: Record<string, Detail> = {};
  const take = <T>(name: string, result: { value: T | null; detail: Detail }): T | null => {
    fields[name] = result.detail;
    return result.value;
  };
  const checks = mrz?.checks;
  const mrzOk = mrz !== null && mrz.problems.length === 0;

  const documentNumber = take(
    'documentNumber',
    pick([M(mrz ? mrzDigits(mrz.documentNumber) : null, !!checks?.documentNumber.valid && mrzOk), P(f?.documentNumber)]),
  );
  const surname = take('surname', pick([P(f?.surname)]));
  const givenNames = take('givenNames', pick([P(f?.givenNames)]));
  if (mrz && surname !== null && givenNames !== null) {
    // The MRZ holds names transliterated and maybe cut: it confirms the barcode's, it cannot replace them.
    if (!mrzNamesEquivalent(mrz.lines[2], surname, givenNames)) {
      const motivo = 'el nombre de la MRZ no corresponde al del PDF417';
      fields.surname = { ...fields.surname!, valid: false, agreement: 'MISMATCH', motivo };
      fields.givenNames = { ...fields.givenNames!, valid: false, agreement: 'MISMATCH', motivo };
    } else if (mrzOk) {
      fields.surname = { source: 'PDF417', valid: true, agreement: 'AGREE' };
      fields.givenNames = { source: 'PDF417', valid: true, agreement: 'AGREE' };
    }
  }
  const sex = take('sex', pick<'M' | 'F' | 'X'>([M(mrz?.sex === '<' ? null : (mrz?.sex ?? null), mrzOk), P(f?.sex), O.sex]));
  const dateOfBirth = take(
    'dateOfBirth',
    pick([M(mrz?.birthDate.date ?? null, !!checks?.birthDate.valid && mrzOk), P(f?.birthDate)], sameDate),
  );
  const expirationDate = take(
    'expirationDate',
    pick([M(mrz?.expiryDate.date ?? null, !!checks?.expiryDate.valid && mrzOk), P(f?.expiryDate), O.expirationDate], sameDate),
  );
  const issuingDate = take('issuingDate', pick([P(f?.issueDate), O.issuingDate], sameDate));
  const order = take('order', pick([P(f?.tramite), O.order]));
  const sequence = take('sequence', pick([P(f?.ejemplar), O.sequence]));
  const nationalityFromPayload = f?.nationality?.value === 'ARGENTINA' ? 'ARG' : (f?.nationality?.value ?? null);
  const nationality = take(
    'nationality',
    pick([
      M(mrz?.nationality || null, mrzOk),
      { value: nationalityFromPayload, valid: !!f?.nationality?.valid, source: 'PDF417' },
    ]),
  );
  const issuingCountry = take(
    'issuingCountry',
    pick([M(mrz?.issuingState || null, mrzOk), { value: payload ? 'ARG' : null, valid: payload !== null, source: 'PDF417' }]),
  );
  const cuil = f?.cuil;
  const cuilNumber = take('cuilNumber', pick([P(cuil), cuilFromText(printed, documentNumber)]));

  // The printed identity against the machine-readable one: read on every card, so an edited front
  // with its original barcode is caught; where nothing machine-readable was read, the print is shown unverified.
  const machine: Record<'surname' | 'givenNames' | 'documentNumber' | 'dateOfBirth', unknown> = {
    surname,
    givenNames,
    documentNumber,
    dateOfBirth,
  };
  const identity = { ...machine };
  for (const field of ['surname', 'givenNames', 'documentNumber', 'dateOfBirth'] as const) {
    const ocr = O[field];
    const read = printed[field];
    const detail = fields[field]!;
    if (ocr.value === null || !read) {
      if (detail.valid) fields[field] = { ...detail, motivo: 'el texto impreso no se leyó: no se comparó con él' };
      continue;
    }
    if (machine[field] === null) {
      // Only printed (no barcode, no MRZ with its check digit): shown for the operator, never valid.
      if (ocr.plausible) {
        identity[field] = ocr.value;
        fields[field] = { source: 'OCR', valid: false, agreement: 'SINGLE_SOURCE', motivo: 'solo leído por OCR: no verificado' };
      }
      continue;
    }
    if (printedDisagrees(field, machine[field], ocr.value, read.confidence)) {
      fields[field] = {
        source: detail.source,
        valid: false,
        agreement: 'MISMATCH',
        motivo: `el texto impreso (${read.text}) no coincide con ${detail.source}`,
      };
    } else if (detail.valid && detail.agreement !== 'MISMATCH') {
      fields[field] = { source: detail.source, valid: true, agreement: 'AGREE' };
    }
  }
  for (const [name, detail] of Object.entries(fields)) {
    const read = printed[name as DniTextField];
    fields[name] = { ...detail, confidence: confidenceOf(detail, read?.confidence) };
  }
  const complete = fields as DocumentInfo['fields'];
  const address = parseFreeText(printed.address?.text ?? '');
  const placeOfBirth = parsePlaceOfBirth(printed.placeOfBirth?.text ?? '');
  // Printed only: what OCR read, with its confidence, never valid.
  for (const [name, value, read] of [
    ['address', address, printed.address],
    ['placeOfBirth', placeOfBirth, printed.placeOfBirth],
  ] as const) {
    fields[name] = value
      ? {
          source: 'OCR',
          valid: false,
          agreement: 'SINGLE_SOURCE',
          confidence: read!.confidence,
          motivo: 'solo impreso: leído por OCR',
        }
      : { source: 'NONE', valid: false, agreement: 'SINGLE_SOURCE', confidence: 0, motivo: 'no leído' };
    complete[name] = fields[name] as DocumentInfo['fields'][string];
  }
  const version = payload?.layout === 'back-2009' ? 'ARGENTINA_ID_V1' : payload || mrz ? 'ARGENTINA_ID_V2' : null;
  return {
    surname: (identity.surname as string | null) ?? (!payload && mrz && mrzOk ? mrz.surname : null),
    givenNames: (identity.givenNames as string | null) ?? (!payload && mrz && mrzOk ? mrz.givenNames : null),
    documentNumber: identity.documentNumber as string | null,
    cuilNumber,
    sex: sex === null ? null : SEX_OF_CARD[sex],
    nationality,
    issuingCountry,
    dateOfBirth: identity.dateOfBirth as DateParts | null,
    issuingDate,
    expirationDate,
    address,
    addressConfidence: printed.address && address ? printed.address.confidence : 0,
    placeOfBirth,
    placeOfBirthConfidence: printed.placeOfBirth && placeOfBirth ? printed.placeOfBirth.confidence : 0,
    order,
    sequence,
    documentVersion: version,
    documentNumberCheckDigitValid: checks ? checks.documentNumber.valid : null,
    dateOfBirthCheckDigitValid: checks ? checks.birthDate.valid : null,
    expirationDateCheckDigitValid: checks ? checks.expiryDate.valid : null,
    compositeCheckDigitValid: checks ? checks.composite.valid : null,
    cuilCheckDigitValid: cuil ? cuil.valid : null,
    fields: complete,
  };
}

/** The card's M, F and X (non-binary) as the vendor's values. */
const SEX_OF_CARD = { M: 'MALE', F: 'FEMALE', X: 'UNSPECIFIED' } as const;

/** The fields whose sources disagree: a document whose printed text, barcode or MRZ say different things. */
export function mismatchedFields(info: Pick<DocumentInfo, 'fields'>): string[] {
  return Object.entries(info.fields)
    .filter(([, d]) => d.agreement === 'MISMATCH')
    .map(([name]) => name);
}

export function mrzResultOf(m: Td1Result): MrzResult {
  return {
    lines: m.lines,
    documentCode: m.documentCode,
    issuingState: m.issuingState,
    documentNumber: mrzDigits(m.documentNumber),
    dateOfBirth: m.birthDate.date,
    sex: m.sex,
    expirationDate: m.expiryDate.date,
    nationality: m.nationality,
    surname: m.surname,
    givenNames: m.givenNames,
    namesTruncated: m.namesTruncated,
    checks: Object.fromEntries(
      Object.entries(m.checks).map(([k, c]) => [k, { valid: c.valid, found: c.found, expected: c.expected }]),
    ),
    corrections: m.corrections.length,
    problems: m.problems,
    valid: m.valid,
  };
}

export function pdf417ResultOf(p: DniPayload | UnrecognisedPayload, decoder: string): Pdf417Result {
  const fields =
    p.layout === null
      ? {}
      : Object.fromEntries(
          Object.entries(p.fields)
            .filter(([, v]) => v !== undefined)
            .map(([k, v]) => [k, { value: v!.value, valid: v!.valid, ...(v!.reason ? { reason: v!.reason } : {}) }]),
        );
  return {
    raw: p.text,
    layout: p.layout,
    charset: p.charset,
    fields,
    valid: p.valid,
    problems: 'problems' in p ? p.problems : [],
    decoder,
  };
}

/** Which side a frame shows, from what was read on it, else from the capture's label, else its position. */
export function sideOf(reading: SideReading, declared: 'front' | 'back' | undefined, index: number): 'front' | 'back' {
  if (reading.pdf417?.payload.layout === 'front-2012') return 'front';
  if (reading.mrz || reading.pdf417?.payload.layout === 'back-2009') return 'back';
  return declared ?? (index === 0 ? 'front' : 'back');
}
