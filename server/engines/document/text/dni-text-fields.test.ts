import { describe, expect, it } from 'vitest';
import { readDniFields } from './dni-text-fields.js';
import { parseDocumentNumber, parseFreeText, parsePlaceOfBirth, parsePrintedDate } from './dni-text-values.js';
import { groupWords, type TextWord } from './text-lines.js';

/** Words of a phrase laid out from (x, y): `h` pixels high, 0.6 h per character, one space between. */
function phrase(text: string, x: number, y: number, h: number, confidence = 95): TextWord[] {
  const cw = 0.6 * h;
  const out: TextWord[] = [];
  let at = x;
  for (const word of text.split(' ')) {
    out.push({ text: word, confidence, box: { x0: at, y0: y, x1: at + word.length * cw, y1: y + h } });
    at += (word.length + 1) * cw;
  }
  return out;
}

const fieldsOf = (...words: TextWord[][]) => readDniFields(groupWords(words.flat())).fields;
const texts = (f: ReturnType<typeof fieldsOf>) => Object.fromEntries(Object.entries(f).map(([k, v]) => [k, v.text]));

describe('printed DNI fields found by their labels, wherever they sit', () => {
  it('reads values under their labels, with three labels and values on one row', () => {
    const f = fieldsOf(
      phrase('Apellido / Surname', 340, 110, 12),
      phrase('MUÑOZ PEÑA', 340, 130, 24),
      phrase('Nombre / Name', 340, 165, 12),
      phrase('JOSÉ MARÍA', 340, 185, 24),
      phrase('Sexo / Sex', 340, 220, 12),
      phrase('Nacionalidad / Nationality', 470, 220, 12),
      phrase('Ejemplar', 800, 220, 12),
      phrase('M', 340, 240, 20),
      phrase('ARGENTINA', 470, 240, 20),
      phrase('C', 800, 240, 20),
      phrase('Fecha de nacimiento / Date of birth', 340, 272, 12),
      phrase('01/02/1948', 340, 292, 22),
    );
    expect(texts(f)).toEqual({
      surname: 'MUÑOZ PEÑA',
      givenNames: 'JOSÉ MARÍA',
      sex: 'M',
      nationality: 'ARGENTINA',
      sequence: 'C',
      dateOfBirth: '01/02/1948',
    });
    expect(f.surname).toMatchObject({ byLabel: true, confidence: 95 });
  });

  it('reads values beside their labels, and an address wrapped over two lines', () => {
    const f = fieldsOf(
      phrase('APELLIDO: GÓMEZ', 60, 100, 20),
      phrase('NOMBRES: ANA LAURA', 60, 140, 20),
      phrase('DOMICILIO: AV. SIEMPRE VIVA 742 PISO 3', 40, 300, 16),
      phrase('DTO B - VILLA FICTICIA - SANTA FE', 40, 320, 16),
      phrase('LUGAR DE NACIMIENTO: ROSARIO', 40, 360, 16),
      phrase('CUIL: 27-30111222-5', 40, 400, 16),
    );
    expect(texts(f)).toEqual({
      surname: 'GÓMEZ',
      givenNames: 'ANA LAURA',
      address: 'AV. SIEMPRE VIVA 742 PISO 3 DTO B - VILLA FICTICIA - SANTA FE',
      placeOfBirth: 'ROSARIO',
      cuil: '27-30111222-5',
    });
  });

  it('follows a long value beside a small label along a slightly skewed row', () => {
    // Each word 1.2 px higher than the one before: the last words share none of the label's height.
    const value = phrase('BELGRANO 348 PISO 14 DPTO 1 - SALTA - SALTA', 160, 60, 26).map((w, i) => ({
      ...w,
      box: { ...w.box, y0: w.box.y0 - 1.2 * i, y1: w.box.y1 - 1.2 * i },
    }));
    const f = readDniFields([
      ...groupWords(phrase('DOMICILIO:', 40, 72, 14)),
      ...value.map((w) => groupWords([w])[0]!),
      ...groupWords(phrase('LUGAR DE NACIMIENTO: NEUQUÉN', 40, 140, 14)),
    ]).fields;
    expect(texts(f)).toEqual({ address: 'BELGRANO 348 PISO 14 DPTO 1 - SALTA - SALTA', placeOfBirth: 'NEUQUÉN' });
  });

  it('drops a doubtful glyph run into the next word and a speck above the row, and keeps a number that starts a street', () => {
    const street = phrase('BELGRANO 348', 160, 60, 20);
    const ghost: TextWord = { text: '1', confidence: 55, box: { x0: 150, y0: 62, x1: 164, y1: 80 } };
    expect(texts(fieldsOf(phrase('DOMICILIO:', 40, 64, 14), [ghost], street))).toEqual({ address: 'BELGRANO 348' });
    // A speck above the row read as letters (the accent's height makes the first word reach it).
    const [diaz, ...rest] = phrase('DÍAZ DE LA FUENTE', 160, 60, 20);
    const accented = { ...diaz!, box: { ...diaz!.box, y0: 52 } };
    const speck: TextWord = { text: 'LA', confidence: 90, box: { x0: 180, y0: 51, x1: 186, y1: 57 } };
    expect(texts(fieldsOf(phrase('APELLIDO:', 40, 66, 14), [accented, speck, ...rest]))).toEqual({
      surname: 'DÍAZ DE LA FUENTE',
    });
    expect(texts(fieldsOf(phrase('DOMICILIO:', 40, 64, 14), phrase('9 DE JULIO 1234', 160, 60, 20, 60)))).toEqual({
      address: '9 DE JULIO 1234',
    });
  });

  it("keeps a value's words when its first word's box came out twice as tall", () => {
    const [av, ...rest] = phrase('AV. DEL LIBERTADOR 301 PISO 2', 160, 60, 20);
    const tall = { ...av!, box: { ...av!.box, y0: 48, y1: 92 } };
    expect(texts(fieldsOf(phrase('DOMICILIO:', 40, 64, 14), [tall, ...rest]))).toEqual({
      address: 'AV. DEL LIBERTADOR 301 PISO 2',
    });
  });

  it('takes a label read with one slip, and does not take a name for a label', () => {
    const f = fieldsOf(
      phrase('Apelido / Surnarne', 300, 100, 12),
      phrase('SEXTO', 300, 120, 24),
      phrase('Sexo', 300, 160, 12),
      phrase('F', 300, 180, 20),
    );
    expect(texts(f)).toEqual({ surname: 'SEXTO', sex: 'F' });
  });

  it('reads the place of birth as such, not as a date of birth', () => {
    const f = fieldsOf(phrase('LUGAR DE NACIMIENTO', 40, 100, 14), phrase('CIUDAD FICTICIA', 40, 120, 16));
    expect(texts(f)).toEqual({ placeOfBirth: 'CIUDAD FICTICIA' });
  });

  it('finds the document number and the trámite by their patterns when their labels are unread', () => {
    const f = fieldsOf(phrase('4.567.890', 40, 490, 30), phrase('Trámite N° 00098765432', 40, 550, 16));
    expect(f.documentNumber).toMatchObject({ text: '4.567.890', byLabel: false });
    expect(f.order).toMatchObject({ text: '00098765432', byLabel: true });
  });

  it("keeps the dashes of a value under its label, though they sit below the gap a word's top may leave", () => {
    // A 2009 back: a small label, and a tall address line a label's height and more below it.
    const dash = (x: number): TextWord => ({ text: '-', confidence: 66, box: { x0: x, y0: 88, x1: x + 11, y1: 92 } });
    const value = phrase('MORENO 955 PISO 12 DPTO B', 48, 73, 28);
    const rest = phrase('ROSARIO', value.at(-1)!.box.x1 + 30, 73, 28);
    const f = fieldsOf(
      phrase('Domicilio', 48, 44, 11),
      value,
      [dash(value.at(-1)!.box.x1 + 10)],
      rest,
      [dash(rest[0]!.box.x1 + 10)],
      phrase('SANTA', rest[0]!.box.x1 + 30, 73, 28),
      phrase('FE', 48, 115, 28),
    );
    expect(f.address?.text).toBe('MORENO 955 PISO 12 DPTO B - ROSARIO - SANTA FE');
  });

  it('says where a label without a value should have it', () => {
    const r = readDniFields(groupWords(phrase('Ejemplar', 800, 220, 12)));
    expect(r.fields).toEqual({});
    expect(r.unread).toEqual([{ field: 'sequence', region: expect.objectContaining({ x0: 788, y0: 214 }) }]);
  });
});

describe('printed values', () => {
  it('reads dates numeric or with month names, and refuses dates that do not exist', () => {
    expect(parsePrintedDate('15/03/2015')).toEqual({ day: 15, month: 3, year: 2015 });
    expect(parsePrintedDate('15 MAR/ MAR 2015')).toEqual({ day: 15, month: 3, year: 2015 });
    expect(parsePrintedDate('01 ENE/JAN 1980')).toEqual({ day: 1, month: 1, year: 1980 });
    expect(parsePrintedDate('29 FEB/ FEB 2000')).toEqual({ day: 29, month: 2, year: 2000 });
    expect(parsePrintedDate('29/02/2001')).toBeNull();
    expect(parsePrintedDate('01 ENE/ FEB 1980')).toBeNull();
  });

  it("puts the card's spaced dash back between an address's parts", () => {
    expect(parseFreeText('INDEPENDENCIA 939 PISO 6 DPTO 1- SALTA-SALTA')).toBe('INDEPENDENCIA 939 PISO 6 DPTO 1 - SALTA - SALTA');
    expect(parseFreeText('B" ALTO ALBERDI -PALERMO')).toBe('B° ALTO ALBERDI - PALERMO');
    expect(parseFreeText('185 - B”* PARQUE PATRICIOS')).toBe('185 - B° PARQUE PATRICIOS');
    expect(parseFreeText('DPTO 1-SALTA - SALTA')).toBe('DPTO 1 - SALTA - SALTA');
  });

  it("reads a place of birth without the label's leftovers around it", () => {
    expect(parsePlaceOfBirth('DE NEUQUÉN')).toBe('NEUQUÉN');
    expect(parsePlaceOfBirth('GODOY CRUZ CU')).toBe('GODOY CRUZ');
    expect(parsePlaceOfBirth('SAN MIGUEL DE TUCUMÁN')).toBe('SAN MIGUEL DE TUCUMÁN');
    expect(parsePlaceOfBirth('LA PAZ, ENTRE RÍOS')).toBe('LA PAZ, ENTRE RÍOS');
  });

  it('reads document numbers with dots and OCR letters for digits', () => {
    expect(parseDocumentNumber('4.567.890')).toBe('4567890');
    expect(parseDocumentNumber('3O.111.222')).toBe('30111222');
    expect(parseDocumentNumber('123')).toBeNull();
  });
});
