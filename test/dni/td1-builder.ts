import { type DateParts } from '../../server/engines/document/dates.js';
import { checkDigitChar } from '../../server/engines/document/mrz/check-digit.js';
import { mrzNameLine } from '../../server/engines/document/mrz/transliterate.js';

/** What a TD1 MRZ encodes, as a test describes it (the inverse of parseTd1). */
export interface Td1Fields {
  documentCode: string;
  issuingState: string;
  documentNumber: string;
  optionalData1: string;
  birthDate: DateParts;
  sex: 'M' | 'F' | 'X' | '<';
  expiryDate: DateParts;
  nationality: string;
  optionalData2: string;
  surname: string;
  givenNames: string;
}

const pad = (s: string, n: number): string => (s + '<'.repeat(n)).slice(0, n);
const yymmdd = (d: DateParts): string =>
  String(d.year % 100).padStart(2, '0') + String(d.month).padStart(2, '0') + String(d.day).padStart(2, '0');

/** Renders the three TD1 lines with check digits from the project's own check-digit module. */
export function buildTd1(f: Td1Fields): [string, string, string] {
  let docField: string;
  let optional: string;
  if (f.documentNumber.length > 9) {
    // Long number: 9 chars, `<` in the check position, the rest + check digit opening the optional data.
    docField = f.documentNumber.slice(0, 9) + '<';
    optional = f.documentNumber.slice(9) + checkDigitChar(f.documentNumber) + '<' + f.optionalData1;
  } else {
    docField = pad(f.documentNumber, 9) + checkDigitChar(pad(f.documentNumber, 9));
    optional = f.optionalData1;
  }
  const l1 = pad(f.documentCode, 2) + pad(f.issuingState, 3) + docField + pad(optional, 15);
  const birth = yymmdd(f.birthDate);
  const expiry = yymmdd(f.expiryDate);
  const l2a =
    birth + checkDigitChar(birth) + f.sex + expiry + checkDigitChar(expiry) + pad(f.nationality, 3) + pad(f.optionalData2, 11);
  const composite = l1.slice(5, 30) + l2a.slice(0, 7) + l2a.slice(8, 15) + l2a.slice(18, 29);
  return [l1, l2a + checkDigitChar(composite), mrzNameLine(f.surname, f.givenNames)];
}
