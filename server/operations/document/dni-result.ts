import type { DocumentInfo, MrzResult, Pdf417Result } from '../../../common/api/document-schemas.js';
import { isRealDate, type DateParts } from '../../engines/document/dates.js';
import { cuilCheckDigit, formatCuil } from '../../engines/document/pdf417/cuil.js';
import type { PrintedField } from '../../engines/document/ocr/read-printed-fields.js';
import { mrzNamesEquivalent } from '../../engines/document/mrz/transliterate.js';
import type { Td1Result } from '../../engines/document/mrz/td1-parser.js';
import type { DniPayload, UnrecognisedPayload } from '../../engines/document/pdf417/dni-payload.js';
import type { SideReading } from '../../engines/document/read-card-side.js';

type Source = DocumentInfo['fields'][string]['source'];
type Detail = DocumentInfo['fields'][string];

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
        agreement: 'DISAGREE',
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
function cuilFromBack(backText: Record<string, PrintedField> | null, documentNumber: string | null): Candidate<string> {
  const m = /(\d{2})-?(\d{7,8})-?(\d)/.exec((backText?.cuil?.text ?? '').replace(/\s/g, ''));
  if (!m) return { value: null, valid: false, source: 'OCR' };
  const [, prefix, dni, digit] = m as unknown as [string, string, string, string];
  const value = formatCuil(prefix, dni, digit);
  const checks =
    cuilCheckDigit(prefix, dni) === Number(digit) &&
    documentNumber !== null &&
    dni.padStart(8, '0') === documentNumber.padStart(8, '0');
  return { value, valid: checks, plausible: true, source: 'OCR' };
}

/** OCR'd front fields as the lowest-trust candidates, each validated by what its kind must look like. */
function ocrCandidates(printed: Record<string, PrintedField> | null) {
  const text = (name: string) => printed?.[name]?.text ?? null;
  // Printed text has no check digit: OCR can only be plausible, and is vouched for only when the MRZ confirms it.
  const candidate = <T>(value: T | null, plausible: boolean): Candidate<T> => ({
    value,
    valid: false,
    plausible: value !== null && plausible,
    source: 'OCR',
  });
  const date = (name: string): Candidate<DateParts> => {
    const m = /^(\d{2})\/(\d{2})\/(\d{4})$/.exec(text(name) ?? '');
    const d = m ? { day: Number(m[1]), month: Number(m[2]), year: Number(m[3]) } : null;
    return candidate(d, d !== null && isRealDate(d));
  };
  const name = (field: string): Candidate<string> => {
    const t = text(field);
    return candidate(t, t !== null && /^[A-ZÑÁÉÍÓÚÜ][A-ZÑÁÉÍÓÚÜ '-]*$/.test(t) && (printed?.[field]?.confidence ?? 0) >= 70);
  };
  const dni = (text('documentNumber') ?? '').replace(/\./g, '');
  const order = /(\d{11})/.exec(text('order') ?? '')?.[1] ?? null;
  const sex = text('sex');
  const sequence = text('sequence');
  return {
    surname: name('surname'),
    givenNames: name('givenNames'),
    documentNumber: candidate(dni || null, /^\d{7,8}$/.test(dni)),
    sex: candidate(sex as 'M' | 'F' | 'X' | null, sex === 'M' || sex === 'F' || sex === 'X'),
    dateOfBirth: date('dateOfBirth'),
    issuingDate: date('issuingDate'),
    expirationDate: date('expirationDate'),
    order: candidate(order, order !== null),
    sequence: candidate(sequence, sequence !== null && /^[A-Z]$/.test(sequence)),
  };
}

/** documentInfo from the PDF417 payload (either layout) and the MRZ, cross-checked field by field. */
export function documentInfoOf(
  payload: DniPayload | null,
  mrz: Td1Result | null,
  printed: Record<string, PrintedField> | null = null,
  backText: Record<string, PrintedField> | null = null,
): Omit<DocumentInfo, 'face' | 'address' | 'addressConfidence' | 'placeOfBirth' | 'fingerPrint'> {
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
    pick([
      M(mrz ? mrzDigits(mrz.documentNumber) : null, !!checks?.documentNumber.valid && mrzOk),
      P(f?.documentNumber),
      O.documentNumber,
    ]),
  );
  const surname = take('surname', pick([P(f?.surname), O.surname]));
  const givenNames = take('givenNames', pick([P(f?.givenNames), O.givenNames]));
  if (mrz && surname !== null && givenNames !== null) {
    // The MRZ holds names transliterated and maybe cut: it confirms the barcode's or the OCR's, it cannot replace them.
    const source = fields.surname!.source;
    if (!mrzNamesEquivalent(mrz.lines[2], surname, givenNames)) {
      const motivo = `el nombre de la MRZ no corresponde al de ${source}`;
      fields.surname = { ...fields.surname!, valid: false, agreement: 'DISAGREE', motivo };
      fields.givenNames = { ...fields.givenNames!, valid: false, agreement: 'DISAGREE', motivo };
    } else if (mrzOk) {
      fields.surname = { source: fields.surname!.source, valid: true, agreement: 'AGREE' };
      fields.givenNames = { source: fields.givenNames!.source, valid: true, agreement: 'AGREE' };
    }
  }
  const mrzSurname = !payload && mrz && mrzOk ? mrz.surname : null;
  const sex = take('sex', pick<'M' | 'F' | 'X'>([M(mrz?.sex === '<' ? null : (mrz?.sex ?? null), mrzOk), P(f?.sex), O.sex]));
  const dateOfBirth = take(
    'dateOfBirth',
    pick([M(mrz?.birthDate.date ?? null, !!checks?.birthDate.valid && mrzOk), P(f?.birthDate), O.dateOfBirth], sameDate),
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
  const cuilNumber = take('cuilNumber', pick([P(cuil), cuilFromBack(backText, documentNumber)]));
  const version = payload?.layout === 'back-2009' ? 'ARGENTINA_ID_V1' : payload || mrz ? 'ARGENTINA_ID_V2' : null;
  return {
    surname: surname ?? mrzSurname,
    givenNames: givenNames ?? (!payload && mrz && mrzOk ? mrz.givenNames : null),
    documentNumber,
    cuilNumber,
    sex,
    nationality,
    issuingCountry,
    dateOfBirth,
    issuingDate,
    expirationDate,
    order,
    sequence,
    documentVersion: version,
    documentNumberCheckDigitValid: checks ? checks.documentNumber.valid : null,
    dateOfBirthCheckDigitValid: checks ? checks.birthDate.valid : null,
    expirationDateCheckDigitValid: checks ? checks.expiryDate.valid : null,
    compositeCheckDigitValid: checks ? checks.composite.valid : null,
    cuilCheckDigitValid: cuil ? cuil.valid : null,
    fields,
  };
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
