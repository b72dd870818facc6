import { isRealDate, type DateParts } from '../dates.js';
import { foldText } from './text-lines.js';

/** The fields of a DNI's printed side that are read by their labels and checked by their patterns. */
export type DniTextField =
  | 'surname'
  | 'givenNames'
  | 'sex'
  | 'nationality'
  | 'sequence'
  | 'dateOfBirth'
  | 'issuingDate'
  | 'expirationDate'
  | 'documentNumber'
  | 'order'
  | 'address'
  | 'placeOfBirth'
  | 'cuil';

/** Spanish and English month abbreviations as the 2012+ card prints them ("15 MAR/ MAR 2015"). */
const MONTHS: Record<string, number> = {
  ENE: 1,
  JAN: 1,
  FEB: 2,
  MAR: 3,
  ABR: 4,
  APR: 4,
  MAY: 5,
  JUN: 6,
  JUL: 7,
  AGO: 8,
  AUG: 8,
  SEP: 9,
  SET: 9,
  OCT: 10,
  NOV: 11,
  DIC: 12,
  DEC: 12,
};

/** Letters OCR gives for digits in a field that holds only digits. */
const DIGIT_LOOKALIKES: Record<string, string> = {
  O: '0',
  Q: '0',
  D: '0',
  I: '1',
  L: '1',
  '|': '1',
  Z: '2',
  S: '5',
  B: '8',
  G: '6',
};

export function digitsOf(text: string): string {
  return [...foldText(text)].map((c) => DIGIT_LOOKALIKES[c] ?? c).join('');
}

/** A printed date, numeric (15/03/2015) or with month names (15 MAR/ MAR 2015, 15 MAR 2015); null if not a real date. */
export function parsePrintedDate(text: string): DateParts | null {
  const t = foldText(text).replace(/\s+/g, ' ').trim();
  const numeric = /^(\d{1,2})\s*[/.-]\s*(\d{1,2})\s*[/.-]\s*(\d{4})$/.exec(digitsOf(t).replace(/[^0-9/.\- ]/g, ''));
  if (numeric) return real({ day: Number(numeric[1]), month: Number(numeric[2]), year: Number(numeric[3]) });
  const named = /^([0-9OQDILZSBG|]{1,2})\s*([A-Z]{3})\.?(?:\s*\/\s*([A-Z]{3})\.?)?\s*([0-9OQDILZSBG|]{4})$/.exec(t);
  if (!named) return null;
  const month = MONTHS[named[2]!];
  const other = named[3] ? MONTHS[named[3]] : month;
  if (!month || other !== month) return null;
  return real({ day: Number(digitsOf(named[1]!)), month, year: Number(digitsOf(named[4]!)) });
}

const real = (d: DateParts): DateParts | null => (isRealDate(d) ? d : null);

/** 7 or 8 digits, as printed with dots (4.567.890) or without. */
export function parseDocumentNumber(text: string): string | null {
  const d = digitsOf(text).replace(/[\s.,]/g, '');
  return /^\d{7,8}$/.test(d) ? d : null;
}

/** The número de trámite: 11 digits (after "N°", which the label took). */
export function parseOrder(text: string): string | null {
  const d = digitsOf(text).replace(/\s/g, '');
  const m = /(\d{11})/.exec(d);
  return m ? m[1]! : null;
}

export function parseSex(text: string): 'M' | 'F' | 'X' | null {
  // "Xx": one letter read twice over, as OCR does with a lone capital.
  const m = /^([MFX])\1?$/.exec(foldText(text).replace(/[^A-Z]/g, ''));
  return m ? (m[1] as 'M' | 'F' | 'X') : null;
}

export function parseSequence(text: string): string | null {
  const t = foldText(text).replace(/[^A-Z]/g, '');
  return /^[A-Z]$/.test(t) ? t : null;
}

/** A name as printed: capitals (accents and Ñ kept), single spaces; null if it holds anything else. */
export function parseName(text: string): string | null {
  const t = text.toUpperCase().replace(/\s+/g, ' ').trim();
  return /^[A-ZÑÁÉÍÓÚÜ][A-ZÑÁÉÍÓÚÜ '.-]*$/.test(t) ? t : null;
}

/** Free text (address, place of birth) with OCR's spacing tidied. */
export function parseFreeText(text: string): string | null {
  // The card separates street, locality and province with " - ": OCR glues the dash to a word.
  const t = text
    .replace(/\s+/g, ' ')
    .replace(/\s+([,.])/g, '$1')
    .replace(/(^|\s)-(?=\S)/g, '$1- ')
    .replace(/(\S)-(?=\s|$)/g, '$1 -')
    // "SALTA-SALTA", "DPTO 1-SALTA": a word of three letters or more after, a word or a number before, are two parts.
    .replace(/(\p{L}{3,}|\d)-(?=\p{L}{3,})/gu, '$1 - ')
    // "B°" (barrio) and "N°": OCR reads the degree sign as a quote, a star or an o.
    .replace(/(^|\s)([BN])\s?["”“*º°]{1,2}\s/g, '$1$2° ')
    .trim();
  return t.length >= 2 ? t.toUpperCase() : null;
}

/**
 * A place of birth: a locality, and its province after a comma. No place begins with the label's
 * "DE" (LUGAR DE / NACIMIENTO set over two lines) nor ends with a word of one or two letters,
 * which is the next label's start read beside it ("GODOY CRUZ CU" before CUIL).
 */
export function parsePlaceOfBirth(text: string): string | null {
  const t = parseFreeText(text)
    ?.replace(/^DE\s+/, '')
    .replace(/\s+\p{L}{1,2}$/u, '')
    .trim();
  return t && t.length >= 2 ? t : null;
}

/** Whether a value found for a field looks like one: a number where a number goes, a name without digits. */
export function fitsField(field: DniTextField, text: string): boolean {
  switch (field) {
    case 'documentNumber':
      return parseDocumentNumber(text) !== null;
    case 'order':
      return parseOrder(text) !== null;
    case 'dateOfBirth':
    case 'issuingDate':
    case 'expirationDate':
      return parsePrintedDate(text) !== null;
    case 'sex':
      return parseSex(text) !== null;
    case 'sequence':
      return parseSequence(text) !== null;
    case 'cuil':
      return /\d{2}\s*-?\s*\d{7,8}\s*-?\s*\d/.test(digitsOf(text));
    case 'surname':
    case 'givenNames':
    case 'nationality':
    case 'placeOfBirth':
      return /\p{L}{2}/u.test(text) && !/\d/.test(text);
    case 'address':
      return text.length >= 4;
  }
}
