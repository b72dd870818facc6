/**
 * Where the standard synthetic card (synthetic-card.ts) prints its fields, in millimetres from the
 * card's top-left corner (ID-1, 85.6 x 54 mm), after the 2012+ card's arrangement as published.
 * The engine does not use it: it finds each field by its label wherever it sits.
 */
import type { FieldBox } from '../../server/engines/document/layout/dni-layout.js';
import type { DniTextField } from '../../server/engines/document/text/dni-text-values.js';

export type BackField = Extract<DniTextField, 'address' | 'placeOfBirth' | 'cuil'>;
export type FrontField = Exclude<DniTextField, BackField>;

/** Each value sits 1.8 mm under its label. */
const value = (x: number, labelY: number, width: number, height = 3.2): FieldBox => ({ x, y: labelY + 1.8, width, height });

export const DNI_2012_FRONT: {
  labels: Record<Exclude<FrontField, 'documentNumber' | 'order'>, { x: number; y: number }>;
  fields: Record<FrontField, FieldBox>;
} = {
  labels: {
    surname: { x: 29, y: 9.5 },
    givenNames: { x: 29, y: 14 },
    sex: { x: 29, y: 18.5 },
    nationality: { x: 40, y: 18.5 },
    sequence: { x: 68, y: 18.5 },
    dateOfBirth: { x: 29, y: 23 },
    issuingDate: { x: 29, y: 27.5 },
    expirationDate: { x: 63, y: 27.5 },
  },
  fields: {
    surname: value(29, 9.5, 55),
    givenNames: value(29, 14, 55),
    sex: value(29, 18.5, 9),
    nationality: value(40, 18.5, 26),
    sequence: value(68, 18.5, 10),
    dateOfBirth: value(29, 23, 30),
    issuingDate: value(29, 27.5, 30),
    expirationDate: value(63, 27.5, 22),
    documentNumber: { x: 4, y: 41.5, width: 40, height: 4.6 },
    order: { x: 4, y: 46.5, width: 50, height: 2.8 },
  },
};

export const DNI_2012_BACK: Record<BackField, FieldBox> = {
  address: { x: 4, y: 5.5, width: 80, height: 2.8 },
  placeOfBirth: { x: 4, y: 9.5, width: 80, height: 2.6 },
  cuil: { x: 4, y: 13, width: 50, height: 2.6 },
};
