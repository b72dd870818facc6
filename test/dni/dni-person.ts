import { type DateParts, formatDmy } from '../../server/engines/document/dates.js';
import { cuilCheckDigit } from '../../server/engines/document/pdf417/cuil.js';

/** Ground truth for one fictitious card holder. Every value here is invented. */
export interface DniPerson {
  tramite: string;
  surname: string;
  givenNames: string;
  sex: 'M' | 'F' | 'X';
  documentNumber: string;
  ejemplar: string;
  birthDate: DateParts;
  issueDate: DateParts;
  expiryDate: DateParts;
  /** 2-digit CUIL prefix; the 9th PDF417 field carries it with the check digit. Omit for an 8-field payload. */
  cuilPrefix?: string;
  nationality: string;
  /** back-2009 only. */
  officeCode: string;
  /** Fictitious address printed on the back. */
  address: string;
  /** Printed on the back; PEOPLE leave it out and get synthetic-card's PLACE_OF_BIRTH. */
  placeOfBirth?: string;
}

/** `20` + DNI + check digit as the 3-character 9th field, or undefined if there is no CUIL. */
export function cuilField(p: DniPerson): string | undefined {
  if (!p.cuilPrefix) return undefined;
  const d = cuilCheckDigit(p.cuilPrefix, p.documentNumber);
  if (d === null) throw new Error(`prefijo ${p.cuilPrefix} sin dígito para ${p.documentNumber}: usar 23`);
  return p.cuilPrefix + String(d);
}

/** The fields a parsed payload of this layout must give back for this person (the payload's truth). */
export function payloadFieldsOf(p: DniPerson, layout: 'front-2012' | 'back-2009'): Record<string, unknown> {
  const common = {
    tramite: p.tramite,
    surname: p.surname,
    givenNames: p.givenNames,
    sex: p.sex,
    documentNumber: p.documentNumber,
    ejemplar: p.ejemplar,
    birthDate: p.birthDate,
    issueDate: p.issueDate,
  };
  return layout === 'front-2012'
    ? common
    : { ...common, nationality: p.nationality, officeCode: p.officeCode, expiryDate: p.expiryDate };
}

/** The 2012+ front layout: trámite@apellido@nombre@sexo@DNI@ejemplar@nacimiento@emisión[@CUIL]. */
export function frontPayload(p: DniPerson): string {
  const fields = [
    p.tramite,
    p.surname,
    p.givenNames,
    p.sex,
    p.documentNumber,
    p.ejemplar,
    formatDmy(p.birthDate),
    formatDmy(p.issueDate),
  ];
  const cuil = cuilField(p);
  if (cuil) fields.push(cuil);
  return fields.join('@');
}

/** The 2009-2011 back layout, leading `@`, DNI right-padded with spaces as on the cards. */
export function back2009Payload(p: DniPerson): string {
  return [
    '',
    p.documentNumber.padEnd(9, ' '),
    p.ejemplar,
    '1',
    p.surname,
    p.givenNames,
    p.nationality,
    formatDmy(p.birthDate),
    p.sex,
    formatDmy(p.issueDate),
    p.tramite,
    p.officeCode + ' ',
    formatDmy(p.expiryDate),
    '7',
    '0',
    'ILR:2.01 C:110208.01 (No Cap.)',
    'UNIDAD #02 || S/N: 0040>2008>>0006',
  ].join('@');
}

const d = (day: number, month: number, year: number): DateParts => ({ day, month, year });

/** The hard cases the issue asks for, plus ordinary ones. Names and numbers are made up. */
export const PEOPLE: Record<string, DniPerson> = {
  ordinary: {
    tramite: '00412345678',
    surname: 'GOMEZ',
    givenNames: 'ANA LAURA',
    sex: 'F',
    documentNumber: '30111222',
    ejemplar: 'A',
    birthDate: d(14, 3, 1983),
    issueDate: d(2, 5, 2019),
    expiryDate: d(2, 5, 2034),
    cuilPrefix: '27',
    nationality: 'ARGENTINA',
    officeCode: '0123',
    address: 'CALLE FALSA 123 - VILLA FICTICIA - BUENOS AIRES',
  },
  sevenDigitsMunoz: {
    tramite: '00098765432',
    surname: 'MUÑOZ PEÑA',
    givenNames: 'JOSÉ MARÍA',
    sex: 'M',
    documentNumber: '4567890',
    ejemplar: 'C',
    birthDate: d(1, 2, 1948),
    issueDate: d(15, 3, 2015),
    expiryDate: d(15, 3, 2030),
    nationality: 'ARGENTINA',
    officeCode: '0456',
    address: 'AV. DEL ENSAYO 4500 PISO 2 - CIUDAD PRUEBA - CÓRDOBA',
  },
  sexX: {
    tramite: '00655544433',
    surname: 'IBÁÑEZ',
    givenNames: 'ALEX',
    sex: 'X',
    documentNumber: '41222333',
    ejemplar: 'B',
    birthDate: d(29, 2, 1996),
    issueDate: d(10, 8, 2022),
    expiryDate: d(10, 8, 2037),
    cuilPrefix: '23',
    nationality: 'ARGENTINA',
    officeCode: '0789',
    address: 'PASAJE INVENTADO 77 - PUEBLO MODELO - MENDOZA',
  },
  longNames: {
    tramite: '00733311122',
    surname: 'FERNÁNDEZ DE LA SANTÍSIMA TRINIDAD',
    givenNames: 'MARÍA DE LOS ÁNGELES VALENTINA',
    sex: 'F',
    documentNumber: '38999000',
    ejemplar: 'D',
    birthDate: d(31, 12, 1994),
    issueDate: d(20, 1, 2020),
    expiryDate: d(20, 1, 2035),
    cuilPrefix: '27',
    nationality: 'ARGENTINA',
    officeCode: '1001',
    address: 'RUTA SUPUESTA KM 12 - PARAJE EJEMPLO - SALTA',
  },
};
