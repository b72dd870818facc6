import { describe, expect, it } from 'vitest';
import { parseTd1 } from '../../engines/document/mrz/td1-parser.js';
import { mrzNamesEquivalent } from '../../engines/document/mrz/transliterate.js';
import { parseDniPayload, type DniPayload } from '../../engines/document/pdf417/dni-payload.js';
import type { DniTextFields } from '../../engines/document/text/dni-text-fields.js';
import { frontPayload } from '../../../test/dni/dni-person.js';
import { randomPerson } from '../../../test/dni/random-card.js';
import { mrzFor } from '../../../test/dni/synthetic-card.js';
import { documentInfoOf, pick } from './dni-result.js';

describe('choosing a field among sources', () => {
  it('takes the first valid source and reports agreement', () => {
    expect(
      pick([
        { value: '30111222', valid: true, source: 'MRZ' },
        { value: '30111222', valid: true, source: 'PDF417' },
      ]),
    ).toEqual({
      value: '30111222',
      detail: { source: 'MRZ', valid: true, agreement: 'AGREE' },
    });
  });

  it('never overrules a disagreement: the field becomes invalid and empty', () => {
    const r = pick([
      { value: '30111222', valid: true, source: 'MRZ' },
      { value: '30111223', valid: true, source: 'PDF417' },
    ]);
    expect(r.value).toBeNull();
    expect(r.detail).toMatchObject({ valid: false, agreement: 'MISMATCH' });
  });

  it('shows what OCR alone read, but never as valid', () => {
    const r = pick([
      { value: null, valid: false, source: 'PDF417' },
      { value: 'F', valid: false, plausible: true, source: 'OCR' },
    ]);
    expect(r).toEqual({
      value: 'F',
      detail: { source: 'OCR', valid: false, agreement: 'SINGLE_SOURCE', motivo: 'solo leído por OCR: no verificado' },
    });
  });

  it('ignores an invalid source when a valid one exists', () => {
    const r = pick([
      { value: '3011122X', valid: false, source: 'MRZ' },
      { value: '30111222', valid: true, source: 'PDF417' },
    ]);
    expect(r).toMatchObject({ value: '30111222', detail: { source: 'PDF417', valid: true, agreement: 'SINGLE_SOURCE' } });
  });
});

describe('the printed identity against the barcode', () => {
  const person = randomPerson(7);
  const payload = parseDniPayload(frontPayload(person)) as DniPayload;
  const mrz = parseTd1(mrzFor(person));
  const printedAs = (changes: Partial<Record<'surname' | 'documentNumber' | 'dateOfBirth', string>>): DniTextFields => {
    const b = person.birthDate;
    const fields = {
      surname: person.surname,
      givenNames: person.givenNames,
      documentNumber: person.documentNumber,
      dateOfBirth: `${String(b.day).padStart(2, '0')}/${String(b.month).padStart(2, '0')}/${b.year}`,
      ...changes,
    };
    return Object.fromEntries(Object.entries(fields).map(([k, text]) => [k, { text, confidence: 90 }])) as DniTextFields;
  };
  const agreements = (printed: DniTextFields) =>
    Object.fromEntries(
      (['surname', 'givenNames', 'documentNumber', 'dateOfBirth'] as const).map((f) => [
        f,
        documentInfoOf(payload, mrz, printed).fields[f]!.agreement,
      ]),
    );
  // A digit replaced by one no OCR confuses with it (2 and 4 look like no other digit).
  const edit = (s: string, i: number) => s.slice(0, i) + (s[i] === '4' ? '2' : '4') + s.slice(i + 1);

  it('agrees with a faithful print and with OCR slips on lookalike digits', () => {
    expect(Object.values(agreements(printedAs({})))).toEqual(['AGREE', 'AGREE', 'AGREE', 'AGREE']);
    // 18024997 read 73024997: the one for a seven, the eight for a three; 1966 read 1968.
    expect(person.documentNumber).toBe('18024997');
    expect(agreements(printedAs({ documentNumber: '73024997' })).documentNumber).toBe('AGREE');
    expect(agreements(printedAs({ dateOfBirth: '19/11/1968' })).dateOfBirth).toBe('AGREE');
  });

  it('calls an edited number, birth date or surname a mismatch', () => {
    const n = person.documentNumber;
    const edited = edit(edit(n, 1), 3);
    expect(agreements(printedAs({ documentNumber: edited })).documentNumber).toBe('MISMATCH');
    const b = person.birthDate;
    const otherYear = `${String(b.day).padStart(2, '0')}/${String(b.month).padStart(2, '0')}/${b.year + 7}`;
    expect(agreements(printedAs({ dateOfBirth: otherYear })).dateOfBirth).toBe('MISMATCH');
    expect(agreements(printedAs({ dateOfBirth: '19/11/1988' })).dateOfBirth).toBe('MISMATCH'); // two lookalikes: too many for a date
    expect(agreements(printedAs({ surname: 'PEÑA NÚÑEZ' })).surname).toBe('MISMATCH');
  });
});

describe('the MRZ name line against the barcode', () => {
  it('allows one character misread or added by OCR, not another name', () => {
    expect(mrzNamesEquivalent('LOJEDA<<MIRTA<<<<<<<<<<<<<<<<<', 'OJEDA', 'MIRTA')).toBe(true);
    expect(mrzNamesEquivalent('OMUNOZ<<AGUSTIN<ANDRES<VERONIC', 'MUÑOZ', 'AGUSTÍN ANDRÉS VERÓNICA')).toBe(true);
    expect(mrzNamesEquivalent('OJEDA<<MARTA<<<<<<<<<<<<<<<<<<', 'OJEDA', 'MIRTA')).toBe(true);
    expect(mrzNamesEquivalent('OJEDA<<MARIA<<<<<<<<<<<<<<<<<<', 'OJEDA', 'MIRTA')).toBe(false);
    expect(mrzNamesEquivalent('ORTIZ<<MIRTA<<<<<<<<<<<<<<<<<<', 'OJEDA', 'MIRTA')).toBe(false);
  });
});
