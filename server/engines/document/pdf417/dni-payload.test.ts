import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { back2009Payload, type DniPerson, frontPayload, PEOPLE, payloadFieldsOf } from '../../../../test/dni/dni-person.js';
import { isRealDate } from '../dates.js';
import { cuilCheckDigit } from './cuil.js';
import { type DniPayload, parseDniPayload } from './dni-payload.js';
import { decodePayloadBytes, repairMojibake } from './payload-text.js';

const TODAY = new Date(2025, 5, 1);
const FRONT = '00412345678@GOMEZ@ANA LAURA@F@30111222@A@14/03/1983@02/05/2019@275';

function parsed(input: string | Uint8Array): DniPayload {
  const r = parseDniPayload(input, { referenceDate: TODAY });
  if (r.layout === null) throw new Error(r.problems.join('; '));
  return r;
}

const values = (p: DniPayload): Record<string, unknown> =>
  Object.fromEntries(Object.entries(p.fields).map(([k, f]) => [k, (f as { value: unknown }).value]));

describe('parseDniPayload, 2012+ front layout', () => {
  it('parses the 9 fields with a valid CUIL', () => {
    const p = parsed(FRONT);
    expect(p.layout).toBe('front-2012');
    expect(p.valid).toBe(true);
    expect(values(p)).toEqual({
      tramite: '00412345678',
      surname: 'GOMEZ',
      givenNames: 'ANA LAURA',
      sex: 'F',
      documentNumber: '30111222',
      ejemplar: 'A',
      birthDate: { day: 14, month: 3, year: 1983 },
      issueDate: { day: 2, month: 5, year: 2019 },
      cuil: '27-30111222-5',
    });
  });

  it('accepts 8 fields (no CUIL), a 7-digit DNI and sex X', () => {
    const p = parsed('00098765432@PAZ@ALEX@X@4567890@C@01/02/1948@15/03/2015');
    expect(p.valid).toBe(true);
    expect(p.fields.cuil).toBeUndefined();
    expect(p.fields.documentNumber.value).toBe('4567890');
    expect(p.fields.sex.value).toBe('X');
  });

  it('tolerates a scanner prefix, padding spaces and a trailing @', () => {
    const p = parsed(`!${FRONT.replace('@GOMEZ@', '@GOMEZ  @')}@\r\n`);
    expect(p.valid).toBe(true);
    expect(p.fields.surname.value).toBe('GOMEZ');
  });

  it('reports each invalid field with a reason', () => {
    const p = parsed('0041234567@GOMEZ@ANA@Q@123456@AA@29/02/1983@31/04/2019@279');
    expect(p.valid).toBe(false);
    const invalid = Object.entries(p.fields)
      .filter(([, f]) => !f.valid)
      .map(([k]) => k);
    expect(invalid.sort()).toEqual(['birthDate', 'cuil', 'documentNumber', 'ejemplar', 'issueDate', 'sex', 'tramite']);
    expect(p.fields.tramite.reason).toMatch(/11 dígitos/);
    expect(p.fields.birthDate.reason).toMatch(/no existe/);
    expect(p.fields.cuil?.reason).toMatch(/DNI válido/);
    expect(p.problems).toHaveLength(7);
  });

  it('checks the CUIL mod-11 digit and the prefix', () => {
    expect(parsed(FRONT.replace(/275$/, '274')).fields.cuil).toMatchObject({
      valid: false,
      reason: expect.stringMatching(/debería ser 5/),
    });
    expect(parsed(FRONT.replace(/275$/, '305')).fields.cuil?.valid).toBe(false);
    // 20-DNI would give 10 for this number, so the CUIL is 23-DNI-9 (AFIP's rule)
    const dni = findDniWithTen('20');
    expect(cuilCheckDigit('20', dni)).toBeNull();
    expect(cuilCheckDigit('23', dni)).toBe(9);
    expect(parsed(FRONT.replace('30111222', dni).replace(/275$/, '239')).fields.cuil?.valid).toBe(true);
    expect(parsed(FRONT.replace('30111222', dni).replace(/275$/, '200')).fields.cuil?.valid).toBe(false);
  });

  it('accepts 29 February only in leap years, and no future or out-of-order dates', () => {
    expect(parsed(FRONT.replace('14/03/1983', '29/02/1996')).fields.birthDate.valid).toBe(true);
    expect(parsed(FRONT.replace('14/03/1983', '29/02/1900')).fields.birthDate.valid).toBe(false);
    expect(parsed(FRONT.replace('14/03/1983', '29/02/2000')).fields.birthDate.valid).toBe(true);
    expect(parsed(FRONT.replace('02/05/2019', '02/05/2031')).fields.issueDate.reason).toMatch(/posterior a hoy/);
    expect(parsed(FRONT.replace('02/05/2019', '02/05/1980')).fields.issueDate.reason).toMatch(/anterior a la de nacimiento/);
    expect(parsed(FRONT.replace('14/03/1983', '1983-03-14')).fields.birthDate.reason).toMatch(/dd\/mm\/aaaa/);
  });

  it('rejects text that is not a DNI payload', () => {
    expect(parseDniPayload('hello world').layout).toBeNull();
    expect(parseDniPayload('a@b@c').problems[0]).toMatch(/3 campos/);
  });
});

describe('Ñ on the way in', () => {
  const munoz = '00098765432@MUÑOZ PEÑA@JOSÉ MARÍA@M@4567890@C@01/02/1948@15/03/2015';
  const expectMunoz = (p: DniPayload): void => {
    expect(p.fields.surname.value).toBe('MUÑOZ PEÑA');
    expect(p.fields.givenNames.value).toBe('JOSÉ MARÍA');
    expect(p.valid).toBe(true);
  };

  it('decodes Latin-1 bytes (what bwip-js binarytext and, presumably, the cards write)', () => {
    const bytes = Buffer.from(munoz, 'latin1');
    expect(decodePayloadBytes(bytes).charset).toBe('latin1');
    const p = parsed(bytes);
    expect(p.charset).toBe('latin1');
    expectMunoz(p);
  });

  it('decodes UTF-8 bytes', () => {
    const p = parsed(Buffer.from(munoz, 'utf8'));
    expect(p.charset).toBe('utf-8');
    expectMunoz(p);
  });

  it('repairs UTF-8 read as Latin-1 or windows-1252 (mojibake)', () => {
    const latin1 = Buffer.from(munoz, 'utf8').toString('latin1'); // MUÃ\x91OZ
    const cp1252 = new TextDecoder('windows-1252').decode(Buffer.from(munoz, 'utf8')); // MUÃ‘OZ
    for (const text of [latin1, cp1252]) {
      const p = parsed(text);
      expectMunoz(p);
      expect(p.repairs).toHaveLength(1);
    }
    expect(repairMojibake('ÃLVAREZ').repaired).toBe(false); // not UTF-8 underneath: left alone
  });

  it('repairs the NXX / UXX convention in names', () => {
    const p = parsed(munoz.replace('MUÑOZ PEÑA', 'MUNXXOZ PENXXA').replace('JOSÉ MARÍA', 'GUXXEMES'));
    expect(p.fields.surname).toMatchObject({ value: 'MUÑOZ PEÑA', valid: true, repaired: 'NXX/UXX -> Ñ/Ü' });
    expect(p.fields.givenNames.value).toBe('GÜEMES');
  });

  it('calls a lost Ñ unreadable instead of passing it on', () => {
    const p = parsed(munoz.replace('MUÑOZ', 'MU\uFFFDOZ'));
    expect(p.fields.surname).toMatchObject({ valid: false, reason: expect.stringMatching(/ilegible/) });
    expect(p.valid).toBe(false);
  });
});

describe('parseDniPayload, 2009-2011 back layout', () => {
  it('parses the leading-@ layout with its padded DNI', () => {
    const person = PEOPLE.sevenDigitsMunoz as DniPerson;
    const p = parsed(Buffer.from(back2009Payload(person), 'latin1'));
    expect(p.layout).toBe('back-2009');
    expect(p.valid).toBe(true);
    expect(values(p)).toMatchObject({
      documentNumber: '4567890',
      ejemplar: 'C',
      surname: 'MUÑOZ PEÑA',
      givenNames: 'JOSÉ MARÍA',
      nationality: 'ARGENTINA',
      sex: 'M',
      tramite: '00098765432',
      officeCode: '0456',
      expiryDate: { day: 15, month: 3, year: 2030 },
    });
    expect(p.extras[0]).toBe('1');
  });

  it('rejects a truncated 2009 payload', () => {
    expect(parseDniPayload('@4567890  @C@1@PAZ').layout).toBeNull();
  });
});

describe('property: parse(render(person)) == person', () => {
  const name = fc
    .array(fc.stringMatching(/^[A-ZÑÁÉÍÓÚÜ]{1,10}$/), { minLength: 1, maxLength: 3 })
    .map((a) => a.join(' '))
    .filter((s) => !s.includes('NXX') && !s.includes('UXX'));
  const date = (min: number, max: number): fc.Arbitrary<{ day: number; month: number; year: number }> =>
    fc
      .record({ day: fc.integer({ min: 1, max: 31 }), month: fc.integer({ min: 1, max: 12 }), year: fc.integer({ min, max }) })
      .filter(isRealDate);
  const person: fc.Arbitrary<DniPerson> = fc
    .record({
      tramite: fc.stringMatching(/^\d{11}$/),
      surname: name,
      givenNames: name,
      sex: fc.constantFrom('M', 'F', 'X') as fc.Arbitrary<'M' | 'F' | 'X'>,
      documentNumber: fc.stringMatching(/^[1-9]\d{6,7}$/),
      ejemplar: fc.stringMatching(/^[A-Z]$/),
      birthDate: date(1920, 2004),
      issueDate: date(2005, 2024),
      expiryDate: date(2025, 2040),
      cuilPrefix: fc.constantFrom(undefined, '20', '27', '23', '24'),
      nationality: fc.constant('ARGENTINA'),
      officeCode: fc.stringMatching(/^\d{4}$/),
      address: fc.constant(''),
    })
    .filter((p) => !p.cuilPrefix || cuilCheckDigit(p.cuilPrefix, p.documentNumber) !== null);

  it('front-2012, as Latin-1 and UTF-8 bytes', () => {
    fc.assert(
      fc.property(person, fc.constantFrom('latin1', 'utf8') as fc.Arbitrary<BufferEncoding>, (p, enc) => {
        const r = parsed(Buffer.from(frontPayload(p), enc));
        expect(r.valid).toBe(true);
        const { cuil, ...rest } = values(r);
        expect(rest).toEqual(payloadFieldsOf(p, 'front-2012'));
        if (p.cuilPrefix) expect(cuil).toMatch(new RegExp(`^${p.cuilPrefix}-${p.documentNumber.padStart(8, '0')}-\\d$`));
        else expect(cuil).toBeUndefined();
      }),
      { numRuns: 300 },
    );
  });

  it('back-2009', () => {
    fc.assert(
      fc.property(person, (p) => {
        const r = parsed(Buffer.from(back2009Payload(p), 'latin1'));
        expect(r.valid).toBe(true);
        expect(values(r)).toEqual(payloadFieldsOf(p, 'back-2009'));
      }),
      { numRuns: 200 },
    );
  });
});

function findDniWithTen(prefix: string): string {
  for (let n = 30000000; ; n++) if (cuilCheckDigit(prefix, String(n)) === null) return String(n);
}
