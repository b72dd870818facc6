import { type DateParts, compareDates, isRealDate, todayParts } from '../dates.js';
import { cuilCheckDigit, formatCuil, PERSON_CUIL_PREFIXES } from './cuil.js';
import { decodePayloadBytes, repairMojibake, repairNxx } from './payload-text.js';

/**
 * The Argentine DNI PDF417 payload (fields separated by `@`), in its two known layouts
 * (../shared/fixtures/dni/pdf417-payload-format-notes.md):
 *
 * - `front-2012`: the 2012+ card front. 8 or 9 fields, no leading `@`:
 *   trámite @ apellido @ nombre @ sexo @ DNI @ ejemplar @ nacimiento @ emisión [@ CUIL prefix+check]
 * - `back-2009`: the 2009-2011 card back. Leading `@`, about 17 fields:
 *   @ DNI @ ejemplar @ 1 @ apellido @ nombre @ nacionalidad @ nacimiento @ sexo @ emisión @ trámite
 *   @ oficina @ vencimiento @ número @ 0 @ ILR… @ UNIDAD…
 *
 * Nothing here throws on bad input: every field comes back with its validity and, when invalid, why.
 */

export type DniPayloadLayout = 'front-2012' | 'back-2009';
export type DniSex = 'M' | 'F' | 'X';

export interface PayloadField<T> {
  /** The field as it stood in the payload (after charset repair, before trimming). */
  raw: string;
  /** The parsed value; present even when invalid if it could be parsed at all. */
  value: T | null;
  valid: boolean;
  /** Why the field is invalid (Spanish, for the operator and the API). */
  reason?: string;
  /** What was repaired in this field (Ñ mojibake, NXX). */
  repaired?: string;
}

export interface DniPayloadFields {
  tramite: PayloadField<string>;
  surname: PayloadField<string>;
  givenNames: PayloadField<string>;
  sex: PayloadField<DniSex>;
  documentNumber: PayloadField<string>;
  ejemplar: PayloadField<string>;
  birthDate: PayloadField<DateParts>;
  issueDate: PayloadField<DateParts>;
  /** front-2012 only, and only on cards that carry the 9th field. */
  cuil?: PayloadField<string>;
  /** back-2009 only. */
  nationality?: PayloadField<string>;
  expiryDate?: PayloadField<DateParts>;
  officeCode?: PayloadField<string>;
}

export interface DniPayload {
  layout: DniPayloadLayout;
  /** The payload text after decoding and repair. */
  text: string;
  charset: 'utf-8' | 'latin1' | 'text';
  fields: DniPayloadFields;
  /** back-2009 fields with no agreed meaning (the constant 1, the number, 0, the ILR and UNIDAD strings). */
  extras: string[];
  /** Whole-payload repairs applied (UTF-8 read as Latin-1); per-field ones are on the field. */
  repairs: string[];
  /** Every field present is valid. */
  valid: boolean;
  /** One line per invalid field, `campo: motivo`. */
  problems: string[];
}

export interface UnrecognisedPayload {
  layout: null;
  text: string;
  charset: 'utf-8' | 'latin1' | 'text';
  valid: false;
  problems: string[];
}

export interface DniPayloadOptions {
  /** "Today", for rejecting dates in the future (tests pin it). */
  referenceDate?: Date;
}

const NAME = /^[A-ZÁÉÍÓÚÜÑÀÈÌÒÙÂÊÎÔÛÄËÏÖÇ' .-]+$/u;

function ok<T>(raw: string, value: T): PayloadField<T> {
  return { raw, value, valid: true };
}

function bad<T>(raw: string, value: NoInfer<T> | null, reason: string): PayloadField<T> {
  return { raw, value, valid: false, reason };
}

function digitsField(raw: string, lengths: number[], label: string): PayloadField<string> {
  const v = raw.trim();
  if (!/^\d+$/.test(v)) return bad(raw, v || null, `${label}: solo dígitos, se leyó ${JSON.stringify(v)}`);
  if (!lengths.includes(v.length)) {
    return bad(raw, v, `${label}: se esperaban ${lengths.join(' u ')} dígitos y hay ${v.length}`);
  }
  return ok(raw, v);
}

function nameField(raw: string): PayloadField<string> {
  const nxx = repairNxx(raw);
  const v = nxx.text.trim().replace(/\s+/g, ' ');
  const field: PayloadField<string> = NAME.test(v)
    ? ok(raw, v)
    : v === ''
      ? bad(raw, null, 'vacío')
      : /[\uFFFD?]/.test(v)
        ? bad(raw, v, 'carácter ilegible (probablemente una Ñ perdida al decodificar)')
        : bad(raw, v, `caracteres no válidos en un nombre: ${JSON.stringify(v.replace(NAME_CHARS, ''))}`);
  if (nxx.repaired) field.repaired = 'NXX/UXX -> Ñ/Ü';
  return field;
}
const NAME_CHARS = /[A-ZÁÉÍÓÚÜÑÀÈÌÒÙÂÊÎÔÛÄËÏÖÇ' .-]/gu;

function sexField(raw: string): PayloadField<DniSex> {
  const v = raw.trim();
  return v === 'M' || v === 'F' || v === 'X'
    ? ok(raw, v)
    : bad(raw, null, `sexo debe ser M, F o X; se leyó ${JSON.stringify(v)}`);
}

function ejemplarField(raw: string): PayloadField<string> {
  const v = raw.trim();
  return /^[A-Z]$/.test(v) ? ok(raw, v) : bad(raw, v || null, `ejemplar debe ser una letra A-Z; se leyó ${JSON.stringify(v)}`);
}

function dateField(raw: string, label: string, today: Date, notFuture: boolean): PayloadField<DateParts> {
  const v = raw.trim();
  const m = /^(\d{2})\/(\d{2})\/(\d{4})$/.exec(v);
  if (!m) return bad(raw, null, `${label}: se esperaba dd/mm/aaaa y se leyó ${JSON.stringify(v)}`);
  const date = { day: Number(m[1]), month: Number(m[2]), year: Number(m[3]) };
  if (!isRealDate(date)) return bad(raw, date, `${label}: ${v} no existe en el calendario`);
  if (notFuture && compareDates(date, todayParts(today)) > 0) return bad(raw, date, `${label}: ${v} es posterior a hoy`);
  return ok(raw, date);
}

function cuilField(raw: string, dni: PayloadField<string>): PayloadField<string> {
  const v = raw.trim();
  if (!/^\d{3}$/.test(v))
    return bad(raw, null, `CUIL: se esperaban 3 dígitos (prefijo y verificador); se leyó ${JSON.stringify(v)}`);
  const prefix = v.slice(0, 2);
  const digit = v.slice(2);
  if (!dni.valid || dni.value === null) return bad(raw, null, 'CUIL: no se puede verificar sin un número de DNI válido');
  const cuil = formatCuil(prefix, dni.value, digit);
  if (!(PERSON_CUIL_PREFIXES as readonly string[]).includes(prefix)) {
    return bad(raw, cuil, `CUIL: prefijo ${prefix} no es de persona (20, 23, 24, 27)`);
  }
  const expected = cuilCheckDigit(prefix, dni.value);
  if (expected === null) return bad(raw, cuil, `CUIL: el prefijo ${prefix} no admite dígito verificador con este DNI`);
  if (String(expected) !== digit) return bad(raw, cuil, `CUIL: dígito verificador ${digit}, debería ser ${expected}`);
  return ok(raw, cuil);
}

function textField(raw: string, re: RegExp, label: string): PayloadField<string> {
  const v = raw.trim();
  return re.test(v) ? ok(raw, v) : bad(raw, v || null, `${label}: valor no válido ${JSON.stringify(v)}`);
}

/** Dates must be in order: born, then issued, then expiring. */
function checkDateOrder(fields: DniPayloadFields): void {
  const { birthDate: b, issueDate: i, expiryDate: e } = fields;
  if (b.valid && i.valid && b.value && i.value && compareDates(i.value, b.value) < 0) {
    fields.issueDate = bad(i.raw, i.value, 'fecha de emisión anterior a la de nacimiento');
  }
  if (e?.valid && e.value && i.valid && i.value && compareDates(e.value, i.value) <= 0) {
    fields.expiryDate = bad(e.raw, e.value, 'fecha de vencimiento no posterior a la de emisión');
  }
}

function finish(
  layout: DniPayloadLayout,
  text: string,
  charset: DniPayload['charset'],
  repairs: string[],
  fields: DniPayloadFields,
  extras: string[],
): DniPayload {
  checkDateOrder(fields);
  const problems = Object.entries(fields)
    .filter(([, f]) => f && !(f as PayloadField<unknown>).valid)
    .map(([k, f]) => `${k}: ${(f as PayloadField<unknown>).reason ?? 'no válido'}`);
  return { layout, text, charset, fields, extras, repairs, valid: problems.length === 0, problems };
}

/** Parses a DNI PDF417 payload from its raw bytes (preferred: the charset is decided here) or from text. */
export function parseDniPayload(input: string | Uint8Array, options: DniPayloadOptions = {}): DniPayload | UnrecognisedPayload {
  const today = options.referenceDate ?? new Date();
  let text: string;
  let charset: DniPayload['charset'];
  if (typeof input === 'string') {
    text = input;
    charset = 'text';
  } else {
    ({ text, charset } = decodePayloadBytes(input));
  }
  const mojibake = repairMojibake(text);
  text = mojibake.text;
  const repairs = mojibake.repaired ? ['UTF-8 leído como Latin-1 (mojibake) reparado'] : [];
  // Scanners may prepend `!` or another prefix, and pad with spaces or a newline.
  const body = text.replace(/^[^@A-Za-z0-9]+/, '').replace(/[\r\n\0]+$/, '');
  const tokens = body.split('@');
  while (tokens.length > 0 && (tokens[tokens.length - 1] ?? '').trim() === '') tokens.pop();

  if (body.startsWith('@')) {
    const t = tokens.slice(1); // the leading `@` leaves an empty first token
    if (t.length < 12) {
      return {
        layout: null,
        text,
        charset,
        valid: false,
        problems: [`formato 2009: ${t.length} campos, se esperaban al menos 12`],
      };
    }
    const g = (i: number): string => t[i] ?? '';
    const documentNumber = digitsField(g(0), [7, 8], 'DNI');
    const fields: DniPayloadFields = {
      documentNumber,
      ejemplar: ejemplarField(g(1)),
      surname: nameField(g(3)),
      givenNames: nameField(g(4)),
      nationality: textField(g(5), /^[A-Z][A-Z ]+$/, 'nacionalidad'),
      birthDate: dateField(g(6), 'fecha de nacimiento', today, true),
      sex: sexField(g(7)),
      issueDate: dateField(g(8), 'fecha de emisión', today, true),
      tramite: digitsField(g(9), [11], 'trámite'),
      officeCode: textField(g(10), /^\d{4}$/, 'oficina'),
      expiryDate: dateField(g(11), 'fecha de vencimiento', today, false),
    };
    return finish('back-2009', text, charset, repairs, fields, [g(2), ...t.slice(12)]);
  }

  if (tokens.length === 8 || tokens.length === 9) {
    const g = (i: number): string => tokens[i] ?? '';
    const documentNumber = digitsField(g(4), [7, 8], 'DNI');
    const fields: DniPayloadFields = {
      tramite: digitsField(g(0), [11], 'trámite'),
      surname: nameField(g(1)),
      givenNames: nameField(g(2)),
      sex: sexField(g(3)),
      documentNumber,
      ejemplar: ejemplarField(g(5)),
      birthDate: dateField(g(6), 'fecha de nacimiento', today, true),
      issueDate: dateField(g(7), 'fecha de emisión', today, true),
    };
    if (tokens.length === 9) fields.cuil = cuilField(g(8), documentNumber);
    return finish('front-2012', text, charset, repairs, fields, []);
  }
  return {
    layout: null,
    text,
    charset,
    valid: false,
    problems: [`no es un DNI argentino: ${tokens.length} campos separados por @ (se esperaban 8 o 9, o ~17 empezando con @)`],
  };
}
