import { type DateParts, isRealDate, todayParts, compareDates } from '../dates.js';
import { checkDigit, isCheckDigitValid } from './check-digit.js';

/**
 * ICAO 9303 part 5 TD1 (ID-1 card, 3 lines of 30): the MRZ on the back of the 2012+ Argentine DNI.
 *
 * line 1: 0-1 document code, 2-4 issuing state, 5-13 document number, 14 its check digit, 15-29 optional data
 * line 2: 0-5 birth YYMMDD, 6 check, 7 sex, 8-13 expiry YYMMDD, 14 check, 15-17 nationality,
 *         18-28 optional data, 29 composite check over 1:5-29, 2:0-6, 2:8-14, 2:18-28
 * line 3: SURNAME<<GIVEN<NAMES
 */

export const TD1_LINE_LENGTH = 30;

export type MrzSex = 'M' | 'F' | 'X' | '<';

export type Td1CheckName = 'documentNumber' | 'birthDate' | 'expiryDate' | 'composite';

export interface Td1Check {
  /** The characters the digit covers, after corrections. */
  field: string;
  /** The check digit as read. */
  found: string;
  /** The check digit the field implies, or null when the field holds a character outside the MRZ alphabet. */
  expected: string | null;
  valid: boolean;
}

/** A character changed because the field type made the OCR confusion unambiguous (e.g. `O` in a date). */
export interface MrzCorrection {
  line: 1 | 2 | 3;
  index: number;
  from: string;
  to: string;
  field: string;
}

export interface MrzDate {
  /** The six characters YYMMDD as they stand after corrections. */
  raw: string;
  /** The resolved date, or null if the characters are not a real calendar date. */
  date: DateParts | null;
}

export interface Td1Result {
  /** The three lines after normalisation (upper case, spaces removed) and corrections. */
  lines: [string, string, string];
  documentCode: string;
  issuingState: string;
  /** Without filler; includes the overflow part of a long document number. */
  documentNumber: string;
  optionalData1: string;
  birthDate: MrzDate;
  sex: MrzSex | null;
  expiryDate: MrzDate;
  nationality: string;
  optionalData2: string;
  surname: string;
  givenNames: string;
  /** Line 3 ends in a letter: the name was cut to fit, so it is a prefix of the real one. */
  namesTruncated: boolean;
  checks: Record<Td1CheckName, Td1Check>;
  corrections: MrzCorrection[];
  /** Why the MRZ is not valid, beyond failing check digits (empty when valid). */
  problems: string[];
  /** Every check digit matches, the layout and character classes are right and the dates are real. */
  valid: boolean;
}

export interface Td1ParseOptions {
  /** "Today", for resolving two-digit years (tests pin it). */
  referenceDate?: Date;
  /** Apply the OCR-confusion corrections (default true). */
  correctOcr?: boolean;
}

// Only confusions a field's type makes unambiguous: a letter in a digit field, a digit in a letter field.
// Kept to the classic OCR-B pairs: every extra guess is one more way for a misread to pass a check digit.
const TO_DIGIT: Record<string, string> = { O: '0', I: '1', B: '8', S: '5', Z: '2' };
const TO_LETTER: Record<string, string> = { '0': 'O', '1': 'I', '8': 'B', '5': 'S', '2': 'Z' };

type CharClass = 'digit' | 'alpha' | 'alnum' | 'sex' | 'digitOrFiller';

interface Span {
  line: 0 | 1 | 2;
  start: number;
  end: number; // exclusive
  cls: CharClass;
  field: string;
}

const ALLOWED: Record<CharClass, RegExp> = {
  digit: /^[0-9]$/,
  digitOrFiller: /^[0-9<]$/,
  alpha: /^[A-Z<]$/,
  alnum: /^[A-Z0-9<]$/,
  sex: /^[MFX<]$/,
};

function normaliseLine(line: string): string {
  return line.toUpperCase().replace(/\s+/g, '');
}

function spans(issuingState: string): Span[] {
  // Argentine document numbers are all digits, so only there is the number a digit field.
  const docClass: CharClass = issuingState === 'ARG' ? 'digitOrFiller' : 'alnum';
  return [
    { line: 0, start: 0, end: 2, cls: 'alpha', field: 'documentCode' },
    { line: 0, start: 2, end: 5, cls: 'alpha', field: 'issuingState' },
    { line: 0, start: 5, end: 14, cls: docClass, field: 'documentNumber' },
    { line: 0, start: 14, end: 15, cls: 'digitOrFiller', field: 'documentNumberCheck' },
    { line: 0, start: 15, end: 30, cls: 'alnum', field: 'optionalData1' },
    { line: 1, start: 0, end: 6, cls: 'digit', field: 'birthDate' },
    { line: 1, start: 6, end: 7, cls: 'digit', field: 'birthDateCheck' },
    { line: 1, start: 7, end: 8, cls: 'sex', field: 'sex' },
    { line: 1, start: 8, end: 14, cls: 'digit', field: 'expiryDate' },
    { line: 1, start: 14, end: 15, cls: 'digit', field: 'expiryDateCheck' },
    { line: 1, start: 15, end: 18, cls: 'alpha', field: 'nationality' },
    { line: 1, start: 18, end: 29, cls: 'alnum', field: 'optionalData2' },
    { line: 1, start: 29, end: 30, cls: 'digit', field: 'compositeCheck' },
    { line: 2, start: 0, end: 30, cls: 'alpha', field: 'names' },
  ];
}

function correctChar(c: string, cls: CharClass): string {
  if (ALLOWED[cls].test(c)) return c;
  if (cls === 'digit' || cls === 'digitOrFiller') return TO_DIGIT[c] ?? c;
  if (cls === 'alpha') return TO_LETTER[c] ?? c;
  return c; // sex (M/F/X) and alphanumeric fields: no confusion is unambiguous there
}

function resolveYear(yy: number, kind: 'birth' | 'expiry', mm: number, dd: number, today: Date): number {
  const ref = todayParts(today);
  if (kind === 'birth') {
    // A birth date is in the past: the latest century that does not put it after today.
    const y = 2000 + yy;
    return compareDates({ year: y, month: mm, day: dd }, ref) <= 0 ? y : 1900 + yy;
  }
  // An expiry date sits within about 50 years of today (cards last 15 years; expired ones are read too).
  const y = 2000 + yy;
  return y <= ref.year + 50 ? y : 1900 + yy;
}

function parseDate(raw: string, kind: 'birth' | 'expiry', today: Date): MrzDate {
  if (!/^\d{6}$/.test(raw)) return { raw, date: null };
  const yy = Number(raw.slice(0, 2));
  const month = Number(raw.slice(2, 4));
  const day = Number(raw.slice(4, 6));
  const date = { day, month, year: resolveYear(yy, kind, month, day, today) };
  return { raw, date: isRealDate(date) ? date : null };
}

function check(field: string, found: string): Td1Check {
  const d = checkDigit(field);
  return { field, found, expected: d === null ? null : String(d), valid: isCheckDigitValid(field, found) };
}

function splitNames(line3: string): { surname: string; givenNames: string } {
  const trimmed = line3.replace(/<+$/, '');
  const sep = trimmed.indexOf('<<');
  const toText = (s: string): string => s.replace(/<+/g, ' ').trim();
  if (sep < 0) return { surname: toText(trimmed), givenNames: '' };
  return { surname: toText(trimmed.slice(0, sep)), givenNames: toText(trimmed.slice(sep + 2)) };
}

/** Parses a TD1 MRZ from its three lines as read (OCR output or typed). Never throws on bad input. */
export function parseTd1(input: readonly string[], options: Td1ParseOptions = {}): Td1Result {
  const today = options.referenceDate ?? new Date();
  const correct = options.correctOcr ?? true;
  const problems: string[] = [];
  if (input.length !== 3) problems.push(`se esperaban 3 líneas y hay ${input.length}`);
  const raw = [0, 1, 2].map((i) => normaliseLine(input[i] ?? ''));
  raw.forEach((l, i) => {
    if (l.length !== TD1_LINE_LENGTH) problems.push(`la línea ${i + 1} tiene ${l.length} caracteres, no 30`);
  });
  const chars = raw.map((l) => (l + '<'.repeat(TD1_LINE_LENGTH)).slice(0, TD1_LINE_LENGTH).split(''));
  const corrections: MrzCorrection[] = [];

  // The issuing state decides whether the document number is a digit field, so settle it first.
  const fix = (span: Span): void => {
    const line = chars[span.line] ?? [];
    let bad = '';
    for (let i = span.start; i < span.end; i++) {
      const from = line[i] ?? '<';
      const to = correct ? correctChar(from, span.cls) : from;
      if (to !== from) {
        line[i] = to;
        corrections.push({ line: (span.line + 1) as 1 | 2 | 3, index: i, from, to, field: span.field });
      }
      if (!ALLOWED[span.cls].test(to)) bad += to;
    }
    if (bad) problems.push(`caracteres no válidos en ${span.field}: ${JSON.stringify(bad)}`);
  };
  const stateSpan = spans('').find((s) => s.field === 'issuingState');
  if (stateSpan) fix(stateSpan);
  const issuingState = (chars[0] ?? []).slice(2, 5).join('');
  for (const span of spans(issuingState)) if (span.field !== 'issuingState') fix(span);

  const [l1, l2, l3] = chars.map((c) => c.join('')) as [string, string, string];

  // Document number: when longer than 9 characters, position 14 is `<` and the rest of the number
  // followed by its check digit opens the optional data (ICAO 9303 part 5, note j).
  let docField = l1.slice(5, 14);
  let docCheckChar = l1.charAt(14);
  let optionalData1 = l1.slice(15, 30);
  if (docCheckChar === '<' && /^[A-Z0-9]/.test(optionalData1)) {
    const overflow = optionalData1.split('<')[0] ?? '';
    docField = docField + overflow.slice(0, -1);
    docCheckChar = overflow.slice(-1);
    optionalData1 = optionalData1.slice(overflow.length + 1); // and the `<` that ends the overflow
  }
  const checks: Record<Td1CheckName, Td1Check> = {
    documentNumber: check(docField, docCheckChar),
    birthDate: check(l2.slice(0, 6), l2.charAt(6)),
    expiryDate: check(l2.slice(8, 14), l2.charAt(14)),
    composite: check(l1.slice(5, 30) + l2.slice(0, 7) + l2.slice(8, 15) + l2.slice(18, 29), l2.charAt(29)),
  };

  const birthDate = parseDate(l2.slice(0, 6), 'birth', today);
  const expiryDate = parseDate(l2.slice(8, 14), 'expiry', today);
  if (!birthDate.date) problems.push(`fecha de nacimiento inexistente: ${birthDate.raw}`);
  if (!expiryDate.date) problems.push(`fecha de vencimiento inexistente: ${expiryDate.raw}`);
  const sexChar = l2.charAt(7);
  const sex = ALLOWED.sex.test(sexChar) ? (sexChar as MrzSex) : null;
  if (!l1.startsWith('I') && !l1.startsWith('A') && !l1.startsWith('C')) {
    problems.push(`código de documento ${JSON.stringify(l1.slice(0, 2))} no es de una tarjeta TD1 (I, A o C)`);
  }

  // Only the document number, dates and optional data are covered by check digits. A correction
  // elsewhere (names, states, nationality) is probably right but cannot be verified, so it costs
  // the MRZ its validity: the caller must confirm those fields from another source.
  const PROTECTED = /^(documentNumber|birthDate|expiryDate|optionalData|compositeCheck)/;
  for (const c of corrections) {
    if (!PROTECTED.test(c.field)) problems.push(`corrección sin dígito verificador en ${c.field}: ${c.from} -> ${c.to}`);
  }

  const names = splitNames(l3);
  const failed = (Object.keys(checks) as Td1CheckName[]).filter((k) => !checks[k].valid);
  return {
    lines: [l1, l2, l3],
    documentCode: l1.slice(0, 2).replace(/<+$/, ''),
    issuingState: issuingState.replace(/<+$/, ''),
    documentNumber: docField.replace(/<+$/, ''),
    optionalData1: optionalData1.replace(/<+$/, ''),
    birthDate,
    sex,
    expiryDate,
    nationality: l2.slice(15, 18).replace(/<+$/, ''),
    optionalData2: l2.slice(18, 29).replace(/<+$/, ''),
    surname: names.surname,
    givenNames: names.givenNames,
    namesTruncated: /[A-Z]$/.test(l3),
    checks,
    corrections,
    problems,
    valid: failed.length === 0 && problems.length === 0,
  };
}
