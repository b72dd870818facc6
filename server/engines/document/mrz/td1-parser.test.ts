import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { buildTd1, type Td1Fields } from '../../../../test/dni/td1-builder.js';
import { isRealDate } from '../dates.js';
import { parseTd1 } from './td1-parser.js';
import { mrzNameLine, mrzNamesEquivalent, transliterateForMrz } from './transliterate.js';

const ICAO = ['I<UTOD231458907<<<<<<<<<<<<<<<', '7408122F1204159UTO<<<<<<<<<<<6', 'ERIKSSON<<ANNA<MARIA<<<<<<<<<<'];
const TODAY = new Date(2025, 5, 1);

describe('parseTd1', () => {
  it('parses the ICAO worked example with every check valid', () => {
    const r = parseTd1(ICAO, { referenceDate: TODAY });
    expect(r.valid).toBe(true);
    expect(r.problems).toEqual([]);
    expect(r).toMatchObject({
      documentCode: 'I',
      issuingState: 'UTO',
      documentNumber: 'D23145890',
      birthDate: { raw: '740812', date: { day: 12, month: 8, year: 1974 } },
      sex: 'F',
      expiryDate: { raw: '120415', date: { day: 15, month: 4, year: 2012 } },
      nationality: 'UTO',
      surname: 'ERIKSSON',
      givenNames: 'ANNA MARIA',
      namesTruncated: false,
    });
    expect(Object.values(r.checks).every((c) => c.valid)).toBe(true);
    expect(r.corrections).toEqual([]);
  });

  it('accepts sex X (Argentine non-binary cards since 2021) and <', () => {
    for (const sex of ['X', '<'] as const) {
      const lines = buildTd1({ ...argentine(), sex });
      const r = parseTd1(lines, { referenceDate: TODAY });
      expect(r.valid).toBe(true);
      expect(r.sex).toBe(sex);
    }
  });

  it('reports each failing check digit and never calls a wrong value valid', () => {
    const lines = [...ICAO];
    lines[1] = '7408132F1204159UTO<<<<<<<<<<<6'; // birth day 12 -> 13
    const r = parseTd1(lines, { referenceDate: TODAY });
    expect(r.valid).toBe(false);
    expect(r.checks.birthDate).toMatchObject({ valid: false, found: '2', expected: '3' });
    expect(r.checks.composite.valid).toBe(false);
    expect(r.checks.documentNumber.valid).toBe(true);
    expect(r.checks.expiryDate.valid).toBe(true);
  });

  it('corrects O/I/B/S/Z in digit fields, and says so', () => {
    const lines = buildTd1(argentine());
    const noisy = [lines[0].replace('30111222', '3O1I1ZZ2'), lines[1].replace('830314', '83O3I4'), lines[2]];
    const r = parseTd1(noisy, { referenceDate: TODAY });
    expect(r.documentNumber).toBe('30111222');
    expect(r.birthDate.date).toEqual({ day: 14, month: 3, year: 1983 });
    expect(r.valid).toBe(true);
    expect(r.corrections.map((c) => `${c.line}:${c.from}>${c.to}`).sort()).toEqual([
      '1:I>1',
      '1:O>0',
      '1:Z>2',
      '1:Z>2',
      '2:I>1',
      '2:O>0',
    ]);
  });

  it('corrects digits in name fields but does not vouch for it (no check digit covers names)', () => {
    const lines = buildTd1(argentine());
    const r = parseTd1([lines[0], lines[1], lines[2].replace('GOMEZ', 'G0MEZ')], { referenceDate: TODAY });
    expect(r.surname).toBe('GOMEZ');
    expect(r.corrections).toEqual([{ line: 3, index: 1, from: '0', to: 'O', field: 'names' }]);
    expect(Object.values(r.checks).every((c) => c.valid)).toBe(true);
    expect(r.valid).toBe(false);
    expect(r.problems.join()).toMatch(/sin dígito verificador en names/);
  });

  it('does not correct where the field type does not make it unambiguous', () => {
    const lines = buildTd1(argentine());
    const r = parseTd1([lines[0], lines[1].slice(0, 7) + 'N' + lines[1].slice(8), lines[2]], { referenceDate: TODAY });
    expect(r.sex).toBeNull();
    expect(r.valid).toBe(false);
  });

  it('with corrections off, reports the raw misreads as invalid', () => {
    const lines = buildTd1(argentine());
    const r = parseTd1([lines[0].replace('30111222', '3O111222'), lines[1], lines[2]], {
      referenceDate: TODAY,
      correctOcr: false,
    });
    expect(r.valid).toBe(false);
    expect(r.checks.documentNumber.valid).toBe(false);
  });

  it('reads a long document number that overflows into the optional data', () => {
    const f = { ...argentine(), issuingState: 'UTO', documentNumber: 'D23145890123', optionalData1: 'XY' };
    const lines = buildTd1(f);
    expect(lines[0].charAt(14)).toBe('<');
    const r = parseTd1(lines, { referenceDate: TODAY });
    expect(r.documentNumber).toBe('D23145890123');
    expect(r.optionalData1).toBe('XY');
    expect(r.valid).toBe(true);
  });

  it('resolves two-digit years: births in the past, expiries within 50 years', () => {
    const f = { ...argentine(), birthDate: { day: 1, month: 6, year: 2025 }, expiryDate: { day: 1, month: 1, year: 2074 } };
    const r = parseTd1(buildTd1(f), { referenceDate: TODAY });
    expect(r.birthDate.date?.year).toBe(2025);
    expect(r.expiryDate.date?.year).toBe(2074);
    const g = { ...argentine(), birthDate: { day: 2, month: 6, year: 1925 }, expiryDate: { day: 1, month: 1, year: 1999 } };
    const s = parseTd1(buildTd1(g), { referenceDate: TODAY });
    expect(s.birthDate.date?.year).toBe(1925); // 2 June 2025 would be tomorrow
    expect(s.expiryDate.date?.year).toBe(1999);
  });

  it('rejects dates that do not exist even when the check digit matches', () => {
    const lines = buildTd1(argentine());
    // 29 Feb 1983 is not a date; build the line with a valid check digit anyway.
    const bad = buildTd1({ ...argentine(), birthDate: { day: 28, month: 2, year: 1983 } });
    const l2 = bad[1].replace('830228', '830229');
    const fixed = parseTd1([lines[0], l2, lines[2]], { referenceDate: TODAY, correctOcr: false });
    expect(fixed.birthDate.date).toBeNull();
    expect(fixed.valid).toBe(false);
    const leap = parseTd1(buildTd1({ ...argentine(), birthDate: { day: 29, month: 2, year: 1996 } }), { referenceDate: TODAY });
    expect(leap.birthDate.date).toEqual({ day: 29, month: 2, year: 1996 });
    expect(leap.valid).toBe(true);
  });

  it('flags wrong line lengths and line counts', () => {
    expect(parseTd1(ICAO.slice(0, 2)).valid).toBe(false);
    const r = parseTd1([ICAO[0] + '<', ICAO[1] ?? '', ICAO[2] ?? ''], { referenceDate: TODAY });
    expect(r.valid).toBe(false);
    expect(r.problems.join()).toMatch(/31 caracteres/);
  });

  it('marks truncated names (long names cut at 30 characters)', () => {
    const f = { ...argentine(), surname: 'FERNÁNDEZ DE LA SANTÍSIMA TRINIDAD', givenNames: 'MARÍA DE LOS ÁNGELES' };
    const r = parseTd1(buildTd1(f), { referenceDate: TODAY });
    expect(r.namesTruncated).toBe(true);
    expect(r.surname).toBe('FERNANDEZ DE LA SANTISIMA TRIN');
    expect(r.givenNames).toBe('');
    expect(mrzNamesEquivalent(r.lines[2], f.surname, f.givenNames)).toBe(true);
    expect(mrzNamesEquivalent(r.lines[2], 'FERNANDEZ DE LA SANTISIMA', 'ANA')).toBe(false);
  });

  it('property: parse(render(fields)) == fields', () => {
    const letters = fc.stringMatching(/^[A-Z]{1,8}$/);
    const date = fc
      .record({
        day: fc.integer({ min: 1, max: 31 }),
        month: fc.integer({ min: 1, max: 12 }),
        year: fc.integer({ min: 1930, max: 2024 }),
      })
      .filter(isRealDate);
    const expiry = fc
      .record({
        day: fc.integer({ min: 1, max: 31 }),
        month: fc.integer({ min: 1, max: 12 }),
        year: fc.integer({ min: 2000, max: 2074 }),
      })
      .filter(isRealDate);
    const fields = fc
      .record({
        documentCode: fc.constantFrom('ID', 'I', 'IR', 'AC'),
        issuingState: fc.constantFrom('ARG', 'UTO', 'D', 'BRA'),
        documentNumber: fc.stringMatching(/^[0-9]{7,9}$/),
        optionalData1: fc.stringMatching(/^[A-Z0-9]{0,6}$/),
        birthDate: date,
        sex: fc.constantFrom('M', 'F', 'X', '<') as fc.Arbitrary<Td1Fields['sex']>,
        expiryDate: expiry,
        nationality: fc.constantFrom('ARG', 'UTO', 'BOL', 'D'),
        optionalData2: fc.stringMatching(/^[A-Z0-9]{0,8}$/),
        surname: fc.array(letters, { minLength: 1, maxLength: 2 }).map((a) => a.join(' ')),
        givenNames: fc.array(letters, { minLength: 0, maxLength: 2 }).map((a) => a.join(' ')),
      })
      .filter((f) => f.surname.length + 2 + f.givenNames.length <= 30); // longer names are truncated (tested above)
    fc.assert(
      fc.property(fields, (f) => {
        const r = parseTd1(buildTd1(f), { referenceDate: TODAY });
        expect(r.valid).toBe(true);
        expect(r.corrections).toEqual([]);
        expect({
          documentCode: r.documentCode,
          issuingState: r.issuingState,
          documentNumber: r.documentNumber,
          optionalData1: r.optionalData1,
          birthDate: r.birthDate.date,
          sex: r.sex,
          expiryDate: r.expiryDate.date,
          nationality: r.nationality,
          optionalData2: r.optionalData2,
          surname: r.surname,
          givenNames: r.givenNames,
        }).toEqual(f);
      }),
      { numRuns: 300 },
    );
  });

  it('property: any single-character change is caught or leaves the value unchanged', () => {
    const base = buildTd1(argentine());
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 1 }),
        fc.integer({ min: 5, max: 29 }),
        fc.constantFrom(...'0123456789'),
        (line, i, c) => {
          const lines = [...base];
          const l = lines[line] ?? '';
          if (l.charAt(i) === c || l.charAt(i) === '<') return;
          lines[line] = l.slice(0, i) + c + l.slice(i + 1);
          const r = parseTd1(lines, { referenceDate: TODAY });
          expect(r.valid).toBe(false);
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe('transliteration for the MRZ', () => {
  it('writes Ñ as N, drops accents, spaces and hyphens to <, drops apostrophes', () => {
    expect(transliterateForMrz('MUÑOZ PEÑA')).toBe('MUNOZ<PENA');
    expect(transliterateForMrz('José María')).toBe('JOSE<MARIA');
    expect(transliterateForMrz("O'NEIL-GÜEMES")).toBe('ONEIL<GUEMES');
    expect(mrzNameLine('MUÑOZ', 'JOSÉ')).toBe('MUNOZ<<JOSE<<<<<<<<<<<<<<<<<<<');
  });

  it('accepts the ICAO NXX and UE alternatives when comparing', () => {
    expect(mrzNamesEquivalent('MUNXXOZ<<JOSE<<<<<<<<<<<<<<<<<', 'MUÑOZ', 'JOSÉ')).toBe(true);
    expect(mrzNamesEquivalent('MUNOZ<<JOSE<<<<<<<<<<<<<<<<<<<', 'MUÑOZ', 'JOSÉ')).toBe(true);
    expect(mrzNamesEquivalent('MUNOZ<<JOSEFA<<<<<<<<<<<<<<<<<', 'MUÑOZ', 'JOSÉ')).toBe(false);
  });
});

function argentine(): Td1Fields & { surname: string } {
  return {
    documentCode: 'ID',
    issuingState: 'ARG',
    documentNumber: '30111222',
    optionalData1: '',
    birthDate: { day: 14, month: 3, year: 1983 },
    sex: 'F',
    expiryDate: { day: 2, month: 5, year: 2034 },
    nationality: 'ARG',
    optionalData2: '',
    surname: 'GOMEZ',
    givenNames: 'ANA LAURA',
  };
}
