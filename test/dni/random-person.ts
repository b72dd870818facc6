/**
 * Fictitious card holders drawn from a seed: Spanish names with accents and Ñ, real calendar dates,
 * addresses long enough to wrap. Every person is invented; the lists only sound Argentine.
 */
import { type DateParts, daysInMonth } from '../../server/engines/document/dates.js';
import { cuilCheckDigit } from '../../server/engines/document/pdf417/cuil.js';
import { seededRandom } from '../random.js';
import { type DniPerson } from './dni-person.js';

/** Draws from one seeded stream: the same seed gives the same choices on every run. */
export class Draw {
  private readonly next: () => number;
  constructor(seed: number) {
    this.next = seededRandom(seed);
  }
  float(lo = 0, hi = 1): number {
    return lo + (hi - lo) * this.next();
  }
  int(lo: number, hi: number): number {
    return lo + Math.floor(this.next() * (hi - lo + 1));
  }
  chance(p: number): boolean {
    return this.next() < p;
  }
  pick<T>(items: readonly T[]): T {
    const item = items[Math.floor(this.next() * items.length)];
    if (item === undefined) throw new Error('nada que elegir');
    return item;
  }
  /** `n` distinct items, in drawn order. */
  some<T>(items: readonly T[], n: number): T[] {
    const pool = [...items];
    const out: T[] = [];
    while (out.length < n && pool.length) out.push(...pool.splice(Math.floor(this.next() * pool.length), 1));
    return out;
  }
  digits(n: number): string {
    let s = '';
    for (let i = 0; i < n; i++) s += String(this.int(0, 9));
    return s;
  }
}

/** Comma-separated, so that a name may hold spaces (DE LA FUENTE). */
const list = (s: string): readonly string[] => s.split(',').map((x) => x.trim());

export const SURNAMES = list(
  'GÓMEZ, MUÑOZ, PEÑA, NÚÑEZ, ÁLVAREZ, FERNÁNDEZ, GONZÁLEZ, RODRÍGUEZ, LÓPEZ, MARTÍNEZ, PÉREZ, SÁNCHEZ, ' +
    'ROMERO, DÍAZ, TORRES, RUIZ, RAMÍREZ, BENÍTEZ, ACOSTA, MEDINA, HERRERA, SUÁREZ, AGUIRRE, GIMÉNEZ, ' +
    'GUTIÉRREZ, PEREYRA, ROJAS, MOLINA, CASTRO, ORTIZ, SILVA, LUNA, JUÁREZ, CABRERA, RÍOS, FERREYRA, ' +
    'GODOY, MORALES, DOMÍNGUEZ, MÉNDEZ, VILLALBA, CÁCERES, IBÁÑEZ, QUIROGA, OJEDA, VÁZQUEZ, ARGÜELLO, ' +
    'ZÚÑIGA, ESPÍNDOLA, SOSA, FRÍAS, CASTAÑEDA, ORDÓÑEZ, PATIÑO, MONTAÑO, DE LA FUENTE, RUIZ DÍAZ, ' +
    'DEL VALLE, ESPÓSITO, FERRARI, RUSSO, BIANCHI, GALLO, COSTA, YÁÑEZ, BRIZUELA, CHÁVEZ, AGÜERO, MUÑIZ',
);

const MALE_NAMES = list(
  'JOSÉ, MARTÍN, JUAN, CARLOS, LUIS, JORGE, MIGUEL ÁNGEL, NICOLÁS, TOMÁS, JOAQUÍN, SEBASTIÁN, MATÍAS, ' +
    'AGUSTÍN, FACUNDO, GONZALO, RAMÓN, RUBÉN, HÉCTOR, ÓSCAR, IÑAKI, BENJAMÍN, MAXIMILIANO, BARTOLOMÉ, ' +
    'FRANCISCO, SANTIAGO, EZEQUIEL, LAUTARO, ANDRÉS, JESÚS, FEDERICO, ALEJANDRO, HERNÁN, DAMIÁN, CRISTIAN, ' +
    'ELÍAS',
);

const FEMALE_NAMES = list(
  'MARÍA, ANA, LUCÍA, SOFÍA, VALENTINA, FLORENCIA, CAMILA, MARTINA, INÉS, BELÉN, MÓNICA, VERÓNICA, ' +
    'ROCÍO, NOELIA, AGUSTINA, MAGDALENA, CONCEPCIÓN, ASUNCIÓN, MARÍA DE LOS ÁNGELES, GUADALUPE, MACARENA, ' +
    'ANTONELLA, XIMENA, NATALIA, ROSARIO, MARÍA JOSÉ, ESTEFANÍA, JAZMÍN, ABRIL, MIRTA, NORMA, BEATRIZ',
);

const UNISEX_NAMES = list('ALEX, ARIEL, ANDREA, PARIS, NOA, MICA, GAEL, ROSARIO');

const STREETS = list(
  'AV. SAN MARTÍN, BELGRANO, RIVADAVIA, AV. CÓRDOBA, GRAL. JOSÉ DE SAN MARTÍN, PRESIDENTE PERÓN, ' +
    'DR. RAMÓN CARRILLO, AV. HIPÓLITO YRIGOYEN, PASAJE LAS ACACIAS, CALLE 12, BV. OROÑO, ESPAÑA, MORENO, ' +
    'SARMIENTO, INDEPENDENCIA, 25 DE MAYO, 9 DE JULIO, AV. DEL LIBERTADOR GRAL. SAN MARTÍN, ' +
    'ALMIRANTE BROWN, JUAN BAUTISTA ALBERDI, PEÑALOZA, ÑANDUBAY, LOS ALGARROBOS, AV. DE MAYO, CALLE 7, ' +
    'GÜEMES, FRAY JUSTO SANTA MARÍA DE ORO, MONSEÑOR DE ANDREA',
);

const NEIGHBOURHOODS = list('B° LOS ÁLAMOS, B° SAN VICENTE, VILLA BELGRANO, B° PARQUE PATRICIOS, B° ALTO ALBERDI');

/** Locality and province; places repeat across people, as on real cards. */
const PLACES: readonly (readonly [string, string])[] = [
  ['LA PLATA', 'BUENOS AIRES'],
  ['MAR DEL PLATA', 'BUENOS AIRES'],
  ['LOMAS DE ZAMORA', 'BUENOS AIRES'],
  ['CAÑUELAS', 'BUENOS AIRES'],
  ['PALERMO', 'CIUDAD AUTÓNOMA DE BUENOS AIRES'],
  ['CABALLITO', 'CIUDAD AUTÓNOMA DE BUENOS AIRES'],
  ['SAN MIGUEL DE TUCUMÁN', 'TUCUMÁN'],
  ['NEUQUÉN', 'NEUQUÉN'],
  ['RÍO CUARTO', 'CÓRDOBA'],
  ['VILLA MARÍA', 'CÓRDOBA'],
  ['CÓRDOBA', 'CÓRDOBA'],
  ['GODOY CRUZ', 'MENDOZA'],
  ['POSADAS', 'MISIONES'],
  ['RESISTENCIA', 'CHACO'],
  ['SANTA ROSA', 'LA PAMPA'],
  ['SAN SALVADOR DE JUJUY', 'JUJUY'],
  ['CONCEPCIÓN DEL URUGUAY', 'ENTRE RÍOS'],
  ['RÍO GALLEGOS', 'SANTA CRUZ'],
  ['USHUAIA', 'TIERRA DEL FUEGO'],
  ['SAN CARLOS DE BARILOCHE', 'RÍO NEGRO'],
  ['ROSARIO', 'SANTA FE'],
  ['SANTIAGO DEL ESTERO', 'SANTIAGO DEL ESTERO'],
  ['TRELEW', 'CHUBUT'],
  ['CORRIENTES', 'CORRIENTES'],
  ['SAN LUIS', 'SAN LUIS'],
  ['SALTA', 'SALTA'],
];

const EJEMPLARES = ['A', 'B', 'C', 'D', 'E', 'F'] as const;

export function randomDate(r: Draw, fromYear: number, toYear: number): DateParts {
  const year = r.int(fromYear, toYear);
  const month = r.int(1, 12);
  return { day: r.int(1, daysInMonth(year, month)), month, year };
}

/** 15 years on; 29 February becomes 28 when the later year is not leap. */
export function plusYears(d: DateParts, years: number): DateParts {
  const year = d.year + years;
  return { day: Math.min(d.day, daysInMonth(year, d.month)), month: d.month, year };
}

function givenNamesFor(r: Draw, sex: DniPerson['sex']): string {
  const pool =
    sex === 'M' ? MALE_NAMES : sex === 'F' ? FEMALE_NAMES : [...new Set([...UNISEX_NAMES, ...MALE_NAMES, ...FEMALE_NAMES])];
  const n = r.pick([1, 2, 2, 2, 3, 3]);
  return r.some(pool, n).join(' ');
}

/** One or two surnames that share no word (never DÍAZ RUIZ DÍAZ). */
function surnameFor(r: Draw, avoid: readonly string[] = []): string {
  const words = new Set(avoid.flatMap((s) => s.split(' ')));
  const free = (): readonly string[] => SURNAMES.filter((x) => !x.split(' ').some((w) => words.has(w)));
  const first = r.pick(free());
  if (!r.chance(0.4)) return first;
  for (const w of first.split(' ')) words.add(w);
  return `${first} ${r.pick(free())}`;
}

/** Older holders have lower numbers (about 1-9 million before 1960, up to ~56 million for 2008). */
function documentNumberFor(r: Draw, birthYear: number): string {
  if (birthYear < 1960) return String(r.int(1_000_000, 9_999_999));
  const mid = 10_000_000 + ((birthYear - 1960) / 48) * 45_000_000;
  return String(Math.round(Math.min(56_999_999, Math.max(10_000_000, mid + r.int(-3_000_000, 3_000_000)))));
}

function addressFor(r: Draw): string {
  const [locality, province] = r.pick(PLACES);
  const number = r.chance(0.08) ? 'S/N' : String(r.int(1, r.chance(0.5) ? 999 : 9999));
  const parts = [`${r.pick(STREETS)} ${number}`];
  if (r.chance(0.4)) parts[0] += ` PISO ${r.int(1, 14)} DPTO ${r.pick(['A', 'B', 'C', 'D', '1', '2', '3'])}`;
  if (r.chance(0.25)) parts.push(r.pick(NEIGHBOURHOODS));
  parts.push(locality, province);
  return parts.join(' - ');
}

function placeOfBirthFor(r: Draw): string {
  const [city, province] = r.pick(PLACES);
  return r.chance(0.4) && city !== province ? `${city}, ${province}` : city;
}

/** CUIL prefix by sex (20 men, 27 women), else 23 or 24 as the number's check digit allows. */
function cuilPrefixFor(sex: DniPerson['sex'], documentNumber: string): string | undefined {
  const usual = sex === 'M' ? '20' : sex === 'F' ? '27' : '23';
  return [usual, '23', '24'].find((p) => cuilCheckDigit(p, documentNumber) !== null);
}

/** A fictitious holder for `seed`; some have no CUIL (the 8-field front payload). */
export function randomPerson(seed: number): DniPerson {
  const r = new Draw(seed * 7919 + 1);
  const sex = r.pick(['M', 'M', 'F', 'F', 'X'] as const);
  const birthDate = randomDate(r, 1930, 2008);
  const issueDate = randomDate(r, 2013, 2025);
  const documentNumber = documentNumberFor(r, birthDate.year);
  const person: DniPerson = {
    tramite: '00' + r.digits(9),
    surname: surnameFor(r),
    givenNames: givenNamesFor(r, sex),
    sex,
    documentNumber,
    ejemplar: r.pick(EJEMPLARES),
    birthDate,
    issueDate,
    expiryDate: plusYears(issueDate, 15),
    nationality: 'ARGENTINA',
    officeCode: r.digits(4),
    address: addressFor(r),
    placeOfBirth: placeOfBirthFor(r),
  };
  const cuilPrefix = cuilPrefixFor(sex, documentNumber);
  if (cuilPrefix && r.chance(0.85)) person.cuilPrefix = cuilPrefix;
  return person;
}

/** What a forger prints over the real values (the barcode keeps the real ones). */
export interface Tamper {
  surname: string;
  givenNames: string;
  documentNumber: string;
  dateOfBirth: DateParts;
}

/** A number of the same length with 3-4 digits changed (never a leading zero). */
function otherNumber(r: Draw, n: string): string {
  const digits = n.split('');
  for (const i of r.some([...digits.keys()], r.int(3, 4))) {
    const old = digits[i] ?? '0';
    let d = old;
    while (d === old || (i === 0 && d === '0')) d = String(r.int(0, 9));
    digits[i] = d;
  }
  return digits.join('');
}

/** A birth date 3-15 years away, still between 1930 and 2008. */
function otherBirthDate(r: Draw, d: DateParts): DateParts {
  const years = r.int(3, 15) * (d.year - 15 < 1930 || (d.year + 15 <= 2008 && r.chance(0.5)) ? 1 : -1);
  const month = r.int(1, 12);
  const year = d.year + years;
  return { day: r.int(1, daysInMonth(year, month)), month, year };
}

function otherGivenNames(r: Draw, p: DniPerson): string {
  for (;;) {
    const names = givenNamesFor(r, p.sex);
    if (!names.split(' ').some((w) => p.givenNames.split(' ').includes(w))) return names;
  }
}

/** Plausible forged values for 1-3 of the four fields, chosen by `seed`. */
export function tamperedValues(person: DniPerson, seed: number): Partial<Tamper> {
  const r = new Draw(seed * 104729 + 3);
  const fields = r.some(['surname', 'givenNames', 'documentNumber', 'dateOfBirth'] as const, r.int(1, 3));
  const out: Partial<Tamper> = {};
  for (const f of fields) {
    if (f === 'surname') out.surname = surnameFor(r, [person.surname]);
    else if (f === 'givenNames') out.givenNames = otherGivenNames(r, person);
    else if (f === 'documentNumber') out.documentNumber = otherNumber(r, person.documentNumber);
    else out.dateOfBirth = otherBirthDate(r, person.birthDate);
  }
  return out;
}
